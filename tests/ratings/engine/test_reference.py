"""The engine against tests/ratings/engine/reference.py, an independent plain model of
RATINGS.md v2: final ratings, RDs and volatilities agree to 0.05 rating points on real
singles and team histories, under both outcome models and every team method. The engine
has one implementation of the update (the C kernel); this is what checks its arithmetic."""

from __future__ import annotations

from dataclasses import asdict, fields
from datetime import date
from pathlib import Path

import pytest

from ratings.engine.formats import get_format
from ratings.engine.replay import replay
from ratings.engine.types import Params
from ratings.lab.importfmt import parse_matches
from tests.ratings.engine import reference

DATA = Path(__file__).resolve().parents[2] / "data"
FILES = {
    "bwf": ("bwf_mens_singles_2018_2021.csv", get_format("badminton_21")),
    "tennis": (
        "tennis_doubles_club_2021_2024.csv",
        get_format("generic", best_of=5, points_per_game=6),
    ),
    "csgo": ("csgo_5v5_2022.csv", get_format("generic", best_of=1, points_per_game=16)),
}
# Rating points: the two differ only in the order of floating-point operations.
AGREE = 0.05
# Seasons of three months over every file's years (RATINGS.md §3 step 1's season starts).
QUARTERS = tuple(date(year, month, 1) for year in range(2017, 2026) for month in (1, 4, 7, 10))


@pytest.mark.parametrize(
    ("file", "settings"),
    [
        ("bwf", {}),
        ("bwf", {"outcome_model": "score"}),
        ("bwf", {"margin_boost": 2.5, "margin_clamp": 0.15, "scale_factor": 300.0}),
        ("tennis", {}),
        ("tennis", {"team_method": "individual"}),
        ("tennis", {"outcome_model": "score", "composite_rd": "rms"}),
        ("csgo", {}),
        ("csgo", {"team_method": "individual", "lookback_days": 30}),
        ("tennis", {"team_method": "composite_team"}),
        ("csgo", {"team_method": "composite_team", "composite_rd": "rms_of_mean"}),
        ("bwf", {"team_method": "composite_team", "outcome_model": "score"}),
        ("tennis", {"team_method": "glicko1_team"}),
        ("csgo", {"team_method": "glicko1_team", "g1_boost": False, "outcome_model": "score"}),
        ("tennis", {"team_method": "performance_weighted"}),
        ("bwf", {"team_method": "performance_weighted", "wrong_way_floor": False}),
        # §3 step 1's season starts: quarterly seasons, some first days with matches on them
        ("bwf", {"season_start_periods": 4, "season_starts": QUARTERS}),
        ("tennis", {"season_start_periods": 13, "season_starts": QUARTERS}),
        ("csgo", {"team_method": "composite_team", "season_start_periods": 1,
                  "season_starts": QUARTERS}),
    ],
)  # fmt: skip
def test_engine_follows_the_reference(file: str, settings: dict) -> None:  # type: ignore[type-arg]
    name, fmt = FILES[file]
    matches = parse_matches((DATA / name).read_text(encoding="utf-8"), fmt)
    spec = reference.Settings(**settings)
    # The same parameters on both sides: the reference holds the sources' values (scale_factor
    # 400, margin_clamp 0.25), the engine's defaults are measured (RATINGS.md §9).
    known = {f.name for f in fields(Params)}
    params = Params(**{k: v for k, v in asdict(spec).items() if k in known})
    if params.team_method == "performance_weighted":
        # The reference has no match stats: the histories compared carry none.
        assert not any(m.stats for m in matches)
        params = params.with_overrides(stat_weights={"points": 1.0})
    engine = replay(matches, params, fmt).states
    ref = reference.replay(matches, fmt.points_per_game, spec)
    assert engine.keys() == ref.keys()
    worst = max(abs(engine[n].rating - ref[n].rating) for n in ref)
    assert worst <= AGREE, worst
    assert max(abs(engine[n].rd - ref[n].rd) for n in ref) <= AGREE
    assert max(abs(engine[n].volatility - ref[n].sigma) for n in ref) <= 1e-6


def test_season_starts_change_what_the_reference_is_compared_on() -> None:
    """The season cases above are not the plain ones again: crossing a season's start grows
    RDs, on the reference and the engine alike."""
    name, fmt = FILES["bwf"]
    matches = parse_matches((DATA / name).read_text(encoding="utf-8"), fmt)
    plain = replay(matches, Params(), fmt).states
    seasons = Params(season_start_periods=4, season_starts=QUARTERS)
    raised = replay(matches, seasons, fmt).states
    ref = reference.replay(
        matches,
        fmt.points_per_game,
        reference.Settings(season_start_periods=4, season_starts=QUARTERS),
    )
    grown = [n for n in plain if raised[n].rd > plain[n].rd + 1]
    assert len(grown) > len(plain) // 4
    assert max(abs(raised[n].rd - ref[n].rd) for n in ref) <= AGREE
