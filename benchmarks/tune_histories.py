"""Histories for measuring `tune`: the real files, BWF halves, synthetic seasons.

Shared by benchmarks/tune_generalisation.py (and research scripts): each history is a
(name, matches, scoring format, params) tuple, matches in time order.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ratings.engine.formats import get_format  # noqa: E402
from ratings.engine.types import MatchResult, Params, defaults_for  # noqa: E402
from ratings.lab.evaluate import time_order  # noqa: E402
from ratings.lab.importfmt import parse_matches  # noqa: E402
from ratings.lab.simulate import club_season, make_world, spread_levels  # noqa: E402

DATA = ROOT / "tests" / "data"
BADMINTON = get_format("badminton_21")

History = tuple[str, list[MatchResult], Any, Params]


def _file(name: str, fmt: Any) -> list[MatchResult]:
    return time_order(parse_matches((DATA / name).read_text(encoding="utf-8"), fmt))


def histories(names: set[str] | None = None) -> Iterator[History]:
    """The histories by name (all when ``names`` is None)."""

    def want(name: str) -> bool:
        return names is None or name in names

    if want("bwf") or want("bwf_h1") or want("bwf_h2"):
        bwf = _file("bwf_mens_singles_2018_2021.csv", BADMINTON)
        half = len(bwf) // 2
        if want("bwf"):
            yield "bwf", bwf, BADMINTON, Params()
        if want("bwf_h1"):
            yield "bwf_h1", bwf[:half], BADMINTON, Params()
        if want("bwf_h2"):
            yield "bwf_h2", bwf[half:], BADMINTON, Params()
    if want("csgo"):
        fmt = get_format("generic", None, 16)
        yield "csgo", _file("csgo_5v5_2022.csv", fmt), fmt, defaults_for(5)
    if want("csgo_stats"):
        fmt = get_format("generic", None, 16)
        weights = {"kills": 1.0, "deaths": -1.0, "adr": 0.01}
        params = defaults_for(5).with_overrides(stat_weights=weights)
        yield "csgo_stats", _file("csgo_5v5_2022.csv", fmt), fmt, params
    if want("tennis"):
        fmt = get_format("generic", 5, 6)
        yield "tennis", _file("tennis_doubles_club_2021_2024.csv", fmt), fmt, Params()
    for seed in (1, 2):
        name = f"synthetic_singles_{seed}"
        if want(name):
            world = make_world(120, 2000, 1, seed)
            yield name, time_order(world.matches), BADMINTON, Params()
    for seed in (1, 2):
        name = f"club_season_{seed}"
        if want(name):
            levels = spread_levels(18, 4.5, 1.1)
            world = club_season(levels, date(2026, 11, 1), weeks=26, seed=seed)
            yield name, time_order(world.matches), BADMINTON, Params()
