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
from ratings.lab.transfer import (  # noqa: E402
    TEAM_GRID,
    evaluate,
    format_preset,
    format_transfer,
    online_losses,
    preset_elsewhere,
    preset_rows,
    preset_verdict,
    verdict,
)

#: The team history: the one a team-game preset is chosen on (3 to 5 a side).
TEAM = "csgo"

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
    data, team = {}, {}
    for file, (name, fmt) in HISTORIES.items():
        path = args.data / file
        if path.exists():
            matches = parse_matches(path.read_text(encoding="utf-8"), fmt)
            data[name] = online_losses(name, matches, Params(), fmt)
            team[name] = online_losses(name, matches, Params(), fmt, TEAM_GRID)
    rows = evaluate(data)
    summary = verdict(rows)
    out: dict[str, object] = {"folds": rows, "verdict": summary}
    text = [format_transfer(rows, summary)]
    if TEAM in team:
        preset = preset_rows(team[TEAM])
        chosen = preset_verdict(team[TEAM], preset)
        others = [preset_elsewhere(team[n], chosen["candidate"]) for n in team if n != TEAM]
        out["team_preset"] = {"folds": preset, "verdict": chosen, "elsewhere": others}
        text += ["", "Team-game preset (time-ordered splits within CS:GO, the one team history):"]
        text += ["", format_preset(preset, chosen, others)]
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print("\n".join(text))
        print(f"\n({len(data)} histories, {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
