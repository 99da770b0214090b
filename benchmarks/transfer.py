"""Choosing defaults by transfer (ratings/lab/transfer.py): every real history, each in turn
unseen, and time-ordered splits within each. `python benchmarks/transfer.py [--data DIR]`.

Reads the real histories found in DIR (default tests/data, or any folder holding copies of
the same files): BWF men's singles (badminton_21), CS:GO 5v5 (generic, to 16) and the
tennis doubles club fixture (generic, best of 5, to 6). Prints the folds as a markdown
table, the verdict, and with --json everything as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ratings.engine.formats import get_format  # noqa: E402
from ratings.engine.types import Params  # noqa: E402
from ratings.lab.importfmt import parse_matches  # noqa: E402
from ratings.lab.transfer import evaluate, format_transfer, online_losses, verdict  # noqa: E402

#: File name -> (short name, scoring format).
HISTORIES = {
    "bwf_mens_singles_2018_2021.csv": ("bwf", get_format("badminton_21")),
    "csgo_5v5_2022.csv": ("csgo", get_format("generic", None, 16)),
    "tennis_doubles_club_2021_2024.csv": ("tennis", get_format("generic", 5, 6)),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "tests" / "data")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    data = {}
    for file, (name, fmt) in HISTORIES.items():
        path = args.data / file
        if path.exists():
            matches = parse_matches(path.read_text(encoding="utf-8"), fmt)
            data[name] = online_losses(name, matches, Params(), fmt)
    rows = evaluate(data)
    summary = verdict(rows)
    if args.json:
        print(json.dumps({"folds": rows, "verdict": summary}, indent=2))
    else:
        print(format_transfer(rows, summary))
        print(f"\n({len(data)} histories, {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
