"""The optional compiled glicko2 (`python -m ratings.engine build-native`) equals the source."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from ratings.engine import glicko2
from ratings.engine.__main__ import (
    NATIVE_SOURCE,
    NATIVE_STAMP,
    build_native,
    clean_native,
    native_artifacts,
    source_digest,
)

ROOT = Path(__file__).resolve().parents[3]
BWF = ROOT / "tests" / "data" / "bwf_mens_singles_2018_2021.csv"

# Prints, for the glicko2 module Python imports, a sample of updates and a whole replay.
PROBE = """
import json, sys
from ratings.engine import glicko2, get_format, parse_matches, Params, Replayer
samples = []
for i in range(200):
    mu, phi, sigma = (i % 17 - 8) / 3, 0.2 + (i % 7) / 3, 0.03 + (i % 5) / 50
    opp = ((i % 11 - 5) / 2, 0.1 + (i % 13) / 4, (i % 9) / 8, 1 / (1 + 0.2 * (i % 4)))
    samples.append(glicko2.update_one(mu, phi, sigma, *opp, 0.5, 1.0, i % 3 > 0))
fmt = get_format("badminton_21")
replayer = Replayer(Params(), fmt)
replayer.rate_all(parse_matches(open(sys.argv[1], encoding="utf-8").read(), fmt))
states = {n: [s.rating, s.rd, s.volatility] for n, s in replayer.states.items()}
print(json.dumps({"module": glicko2.__file__, "samples": samples, "states": states}))
"""


def _can_compile() -> bool:
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return False
    headers = Path(sysconfig.get_paths()["include"], "Python.h")
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return headers.exists() and shutil.which(compiler) is not None


def _probe(root: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(BWF)],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _assert_same(one: dict, other: dict) -> None:
    for a, b in zip(one["samples"], other["samples"], strict=True):
        assert a == pytest.approx(b, abs=1e-9, rel=0)
    assert one["states"].keys() == other["states"].keys()
    for name, values in one["states"].items():
        assert values == pytest.approx(other["states"][name], abs=1e-9, rel=0)


@pytest.mark.slow
@pytest.mark.skipif(not _can_compile(), reason="needs mypyc, a C compiler and Python.h")
def test_compiled_equals_pure_python(tmp_path: Path) -> None:
    """Build a copy of the engine, then replay with and without the compiled module."""
    shutil.copytree(
        ROOT / "ratings",
        tmp_path / "ratings",
        ignore=shutil.ignore_patterns("*.so", "__pycache__", "migrations"),
    )
    built = build_native(tmp_path)
    assert {p.name for p in built} >= {"glicko2.native-sha256"}
    assert any(p.suffix == ".so" for p in built)
    compiled = _probe(tmp_path)
    assert compiled["module"].endswith(".so")
    clean_native(tmp_path)
    assert native_artifacts(tmp_path) == []
    pure = _probe(tmp_path)
    assert pure["module"].endswith("glicko2.py")
    _assert_same(compiled, pure)


def test_build_in_this_tree_is_current() -> None:
    """If glicko2 is compiled here, it was built from today's source (else rebuild or clean)."""
    if glicko2.__file__.endswith(".py"):
        pytest.skip("glicko2 runs as pure Python here (no build-native)")
    stamp = ROOT / NATIVE_STAMP
    assert stamp.exists(), (
        "compiled glicko2 without a stamp: run python -m ratings.engine build-native"
    )
    assert stamp.read_text(encoding="utf-8").strip() == source_digest(ROOT / NATIVE_SOURCE), (
        "glicko2.py changed since it was compiled: run python -m ratings.engine build-native "
        "(or build-native --clean)"
    )
