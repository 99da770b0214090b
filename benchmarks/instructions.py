"""Instructions per replayed match, counted by valgrind (callgrind), for one or more checkouts.

    python benchmarks/instructions.py [--matches N] ROOT [ROOT ...]

Wall-clock timings on a shared two-core machine move by 30% with the load; callgrind's
instruction count does not (the same binary and input give the same count). For each
checkout ROOT (a directory with this repository's layout and its C module built in
place), it counts the instructions of a Python process that builds the benchmark's
synthetic singles history (benchmarks/engine.py) and then replays it (`Replayer.rate_all`;
with `--columns` also `encode` + `Replayer.rate_history`, where the checkout has them; with
`--plain` the plain C loop of the same arithmetic, `_native.plain_loop`), subtracts a run
that only builds the history, and prints instructions per match. Compare two checkouts in one run (an old one: `git worktree add /tmp/old REV`,
then build its C module in place) to see what a change costs.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()
PLAYERS = 2000


def _work(root: str, mode: str, matches: int) -> None:
    """The measured process: build the history, then (unless mode is "gen") replay it."""
    sys.path.insert(0, root)
    spec = importlib.util.spec_from_file_location("bench_engine", f"{root}/benchmarks/engine.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from ratings.engine import replay as replay_module
    from ratings.engine.formats import get_format
    from ratings.engine.types import Params

    if not str(replay_module.__file__).startswith(root):
        raise SystemExit(f"imported {replay_module.__file__}, not the checkout {root}")
    history = bench.synthetic_history(matches, PLAYERS)
    if mode == "gen":
        return
    if mode == "plain":
        bench.time_plain_loop(history, Params())
        return
    replayer = replay_module.Replayer(Params(), get_format("badminton_21"))
    if mode == "columns":
        replayer.rate_history(replay_module.encode(history))
        return
    replayer.rate_all(history)


def _count(root: str, mode: str, matches: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                str(HERE),
                "--work",
                root,
                mode,
                str(matches),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise SystemExit(run.stderr[-2000:])
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", default=[str(HERE.parents[1])])
    parser.add_argument("--matches", type=int, default=50_000)
    parser.add_argument(
        "--plain",
        action="store_true",
        help="also count the plain C loop (with building its arrays in Python)",
    )
    parser.add_argument(
        "--columns",
        action="store_true",
        help="also count the columnar replay (encode + Replayer.rate_history)",
    )
    parser.add_argument("--work", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.work:
        root, mode, matches = args.work
        _work(root, mode, int(matches))
        return 0
    modes = ["c", *(["columns"] if args.columns else []), *(["plain"] if args.plain else [])]
    print(f"| checkout | {' | '.join(f'{m} replay, instructions/match' for m in modes)} |")
    print(f"| --- | {' | '.join('---' for _ in modes)} |")
    for root in args.roots:
        root = str(Path(root).resolve())
        base = _count(root, "gen", args.matches)
        cells = [f"{(_count(root, m, args.matches) - base) / args.matches:,.0f}" for m in modes]
        print(f"| {root} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
