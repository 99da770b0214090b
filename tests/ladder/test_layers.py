"""The import-linter contracts in pyproject.toml name ratings' modules one by one (the
engine and the lab may import none of the site's): a module added to ratings must be
added there too, or the contracts silently stop covering it."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def site_modules() -> set[str]:
    """Every top-level module and package of ``ratings`` except the engine and the lab."""
    found = set()
    for path in (ROOT / "ratings").iterdir():
        name = path.stem if path.suffix == ".py" else path.name
        if name.startswith("_") or name in {"engine", "lab"}:
            continue
        if path.suffix == ".py" or (path / "__init__.py").exists():
            found.add(f"ratings.{name}")
    return found


def test_the_pure_contracts_forbid_every_site_module_of_ratings():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"
    ]
    pure = {
        c["source_modules"][0]: set(c["forbidden_modules"])
        for c in contracts
        if c["type"] == "forbidden"
    }
    expected = site_modules()
    assert {"ratings.leaderboards", "ratings.models", "ratings.views"} <= expected
    for source in ("ratings.engine", "ratings.lab"):
        assert expected - pure[source] == set(), source
