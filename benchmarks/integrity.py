"""Measure the integrity detectors on generated club seasons with planted cases.

    .venv/bin/python -m benchmarks.integrity [--seeds 20]

For each seed: a club of 40 honest players over 16 weeks plus the planted cases of
``ladder/integrity/planted.py`` (a win-trading pair, a farmer of three new accounts, a
closed pool of four, a sandbagger), rated by the engine; the detectors run with the
default thresholds. Prints which planted cases were flagged, how many honest players were
flagged, and, per detector, the planted case's number beside the most extreme honest
player's (the headroom each default leaves). The results are in docs/INTEGRITY.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace

from ladder.integrity.detectors import Finding, Thresholds, detect_all
from ladder.integrity.planted import CASES, Season, planted_season

# Thresholds that let every candidate through, to read the numbers of honest players too.
LOOSE = replace(
    Thresholds(),
    trade_min_matches=2,
    trade_norm_factor=0.0,
    trade_alternation=0.0,
    farm_min_wins=1,
    farm_win_share=0.0,
    farm_repeats=0.0,
    pool_min_size=2,
    pool_max_out=1.0,
    pool_min_matches=1,
    pool_drift=0.0,
    sandbag_gap=-99.0,
)

# (detector, what it measures, the number from a finding's evidence)
MEASURES: list[tuple[str, str, Callable[[Finding], float]]] = [
    (
        "win_trading",
        "meetings ÷ the ladder's mean",
        lambda f: f.evidence["meetings"] / f.evidence["ladder_mean"],
    ),
    ("win_trading", "alternation of winners", lambda f: f.evidence["alternation"]),
    ("farming", "share of wins over new or much lower", lambda f: f.evidence["win_share"]),
    (
        "closed_pool",
        "share of matches against outsiders",
        lambda f: f.evidence["outside"] / (f.evidence["inside"] + f.evidence["outside"]),
    ),
    ("closed_pool", "rating drift (levels)", lambda f: abs(f.evidence["drift"])),
    ("sandbagging", "level shown - self-assessment", lambda f: f.evidence["gap"]),
]


def measure(season: Season) -> tuple[dict[str, bool], set[str]]:
    found = detect_all(season.played, season.members)
    caught = {
        kind: any(f.kind == kind and who <= set(f.players) for f in found)
        for kind, who in CASES.items()
    }
    honest = {p for f in found for p in f.players} & season.honest
    return caught, honest


def headroom(season: Season) -> dict[str, tuple[float, float]]:
    """Per measure: (the planted case's value, the most extreme honest value)."""
    loose = detect_all(season.played, season.members, LOOSE)
    out = {}
    for kind, label, value in MEASURES:
        planted = [value(f) for f in loose if f.kind == kind and CASES[kind] <= set(f.players)]
        honest = [value(f) for f in loose if f.kind == kind and set(f.players) <= season.honest]
        if kind == "closed_pool" and "outsiders" in label:
            out[label] = (min(planted, default=1.0), min(honest, default=1.0))
        else:
            out[label] = (max(planted, default=0.0), max(honest, default=0.0))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    totals = dict.fromkeys(CASES, 0)
    honest_flagged = 0
    honest_seen = 0
    worst = 0.0
    rooms: dict[str, list[tuple[float, float]]] = {}
    print("seed  matches  " + "  ".join(CASES) + "  honest flagged")
    for seed in range(1, args.seeds + 1):
        season = planted_season(seed)
        caught, honest = measure(season)
        for kind, ok in caught.items():
            totals[kind] += ok
        honest_flagged += len(honest)
        honest_seen += len(season.honest)
        worst = max(worst, len(honest) / len(season.honest))
        marks = "  ".join(("yes" if caught[k] else "NO").ljust(len(k)) for k in CASES)
        print(f"{seed:>4}  {len(season.played):>7}  {marks}  {len(honest)} of {len(season.honest)}")
        for label, pair in headroom(season).items():
            rooms.setdefault(label, []).append(pair)
    print()
    for kind, n in totals.items():
        print(f"{kind}: flagged in {n} of {args.seeds} seasons")
    print(
        f"honest players flagged: {honest_flagged} of {honest_seen} "
        f"({honest_flagged / honest_seen:.1%}); worst season {worst:.1%} (limit 5%)"
    )
    print("\nheadroom (planted: weakest over the seasons; honest: most extreme over the seasons)")
    for kind, label, _ in MEASURES:
        pairs = rooms[label]
        if "outsiders" in label:
            print(
                f"  {kind} {label}: planted ≤ {max(p for p, _ in pairs):.2f}, honest ≥ {min(h for _, h in pairs):.2f}"
            )
        else:
            print(
                f"  {kind} {label}: planted ≥ {min(p for p, _ in pairs):.2f}, honest ≤ {max(h for _, h in pairs):.2f}"
            )


if __name__ == "__main__":
    main()
