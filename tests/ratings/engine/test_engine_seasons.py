"""RATINGS.md §3 step 1's raise at a season's start: before a match on day D, a player whose
last rated match was on day L grows by `floor((D - L) / rating_period_days) +
season_start_periods * S` periods, S the seasons whose first day F has L < F <= D. The
numbers below are worked out by hand from that sentence; the reference model
(tests/ratings/engine/reference.py) checks the same rule on whole histories
(test_reference.py), and the C replay against predictions in test_engine_native.py."""

from __future__ import annotations

import math
from datetime import date, timedelta
from pathlib import Path

import pytest

from ratings.engine.formats import get_format
from ratings.engine.predict import inactivity_periods, inflated_rd, win_probability
from ratings.engine.replay import Replayer, replay, validate_params
from ratings.engine.types import EngineError, MatchResult, Params, PlayerState
from ratings.lab.importfmt import parse_matches

S = 173.7178
BADMINTON = get_format("badminton_21")
L = date(2026, 1, 1)  # the last rated match
D = date(2026, 1, 20)  # the next one: 19 days later, two whole weeks
WIN = ((21, 15), (21, 15))
BWF = Path(__file__).resolve().parents[2] / "data" / "bwf_mens_singles_2018_2021.csv"
QUARTERS = tuple(date(year, month, 1) for year in range(2017, 2023) for month in (1, 4, 7, 10))


def raising(*starts: date, per_start: int = 4) -> Params:
    return Params(season_start_periods=per_start, season_starts=tuple(starts))


def grown(rd: float, volatility: float, periods: int) -> float:
    """§3 step 1 written out: RD after `periods` idle periods (below rd_max)."""
    return S * math.sqrt((rd / S) ** 2 + periods * volatility**2)


@pytest.mark.parametrize(
    ("starts", "periods"),
    [
        ((), 2),  # two whole weeks, no season
        ((date(2026, 1, 10),), 2 + 4),  # one start crossed
        ((date(2026, 1, 10), date(2026, 1, 15)), 2 + 8),  # two starts crossed
        ((L,), 2),  # a start on the day of the last match: not crossed
        ((D,), 2 + 4),  # a start on the day of this match: crossed
        ((date(2025, 12, 1), L, date(2026, 1, 21)), 2),  # before L, on L, after D: none
        ((date(2025, 9, 1), date(2026, 1, 5), D, date(2026, 2, 1)), 2 + 8),
    ],
)
def test_the_periods_before_a_match(starts: tuple[date, ...], periods: int) -> None:
    assert inactivity_periods(L, D, raising(*starts)) == periods


def test_no_raise_without_the_setting_and_none_for_a_new_player() -> None:
    start = (date(2026, 1, 10),)
    assert inactivity_periods(L, D, raising(*start, per_start=0)) == 2
    assert inactivity_periods(None, D, raising(*start)) == 0  # never played: no inflation
    assert inactivity_periods(L, L, raising(*start)) == 0
    assert inactivity_periods(D, L, raising(*start)) == 0  # a date before: nothing grows
    # A start crossed within the first period still counts: 3 days, no whole week.
    assert inactivity_periods(L, date(2026, 1, 4), raising(date(2026, 1, 2))) == 4


def test_the_rd_grown_to_a_day_counts_the_season_starts() -> None:
    state = PlayerState(5000.0, 60.0, 0.06, 12, L)
    params = raising(date(2026, 1, 10))
    # n = 2 + 4 = 6: 173.7178 * sqrt((60 / 173.7178)^2 + 6 * 0.06^2) = 65.21 (RATINGS.md §3).
    assert inflated_rd(state, D, params) == pytest.approx(65.2062, abs=1e-4)
    assert inflated_rd(state, D, params) == pytest.approx(grown(60.0, 0.06, 6), rel=1e-12)
    assert inflated_rd(state, D, Params()) == pytest.approx(grown(60.0, 0.06, 2), rel=1e-12)
    # Capped at rd_max however many starts: the most a ladder may add, many times.
    many = raising(*(L + timedelta(days=d) for d in range(1, 20)), per_start=1000)
    assert inflated_rd(state, D, many) == pytest.approx(500.0)


def test_the_replay_grows_a_crossing_player_and_not_a_new_one() -> None:
    """ann and ben play on L; ann then meets cat (new) on D, across a season's start on
    10 Jan. ann's RD going in is her RD after L grown by 6 periods; cat starts at 250."""
    params = raising(date(2026, 1, 10))
    replayer = Replayer(params, BADMINTON)
    (ann_first, _ben) = replayer.rate(MatchResult(L, ("ann",), ("ben",), WIN, id=1))
    ann, cat = replayer.rate(MatchResult(D, ("ann",), ("cat",), WIN, id=2))
    want = grown(ann_first.rd_after, ann_first.volatility_after, 6)
    assert ann.rd_before == pytest.approx(want, rel=1e-12)
    assert cat.rd_before == 250.0
    # Without the raise, two periods only.
    plain = Replayer(Params(), BADMINTON)
    plain.rate(MatchResult(L, ("ann",), ("ben",), WIN, id=1))
    ann_plain, _ = plain.rate(MatchResult(D, ("ann",), ("cat",), WIN, id=2))
    two = grown(ann_first.rd_after, ann_first.volatility_after, 2)
    assert ann_plain.rd_before == pytest.approx(two, rel=1e-12)
    assert ann.rd_before > ann_plain.rd_before
    # The rating moves only with the match: the same rating going in.
    assert ann.rating_before == ann_plain.rating_before
    # A prediction on D grows RDs as the replay does (§6): the same probability either way.
    before = replayer.state("ann"), replayer.state("cat")
    assert replayer.predict(("ann",), ("cat",), D) == win_probability(
        [before[0]], [before[1]], params, D
    )


def test_a_player_whose_last_match_is_on_the_first_day_is_not_raised_again() -> None:
    params = raising(date(2026, 1, 10))
    replayer = Replayer(params, BADMINTON)
    replayer.rate(MatchResult(L, ("ann",), ("ben",), WIN, id=1))
    first, _ = replayer.rate(MatchResult(date(2026, 1, 10), ("ann",), ("ben",), WIN, id=2))
    assert inactivity_periods(L, date(2026, 1, 10), params) == 1 + 4
    # The next match, 10 days after the first day: one whole period, no start crossed.
    second, _ = replayer.rate(MatchResult(date(2026, 1, 20), ("ann",), ("ben",), WIN, id=3))
    want = grown(first.rd_after, first.volatility_after, 1)
    assert second.rd_before == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"season_start_periods": -1}, "season_start_periods must be a whole number"),
        ({"season_start_periods": 1001}, "from 0 to 1000"),
        ({"season_start_periods": 2.5}, "season_start_periods must be a whole number"),
        ({"season_start_periods": True}, "season_start_periods must be a whole number"),
        ({"season_starts": (D, L)}, "season_starts must be dates in increasing order"),
        ({"season_starts": (L, L)}, "season_starts must be dates in increasing order, each once"),
        ({"season_starts": [L]}, "season_starts must be dates"),
        ({"season_starts": ("2026-01-01",)}, "season_starts must be dates"),
    ],
)
def test_bad_settings_are_refused_in_words(overrides: dict[str, object], message: str) -> None:
    params = Params().with_overrides(**overrides)
    with pytest.raises(EngineError, match=message):
        validate_params(params)
    with pytest.raises(EngineError, match=message):
        Replayer(params, BADMINTON)


def test_the_bounds_themselves_are_accepted() -> None:
    validate_params(raising(per_start=0))
    validate_params(raising(L, D, per_start=1000))


@pytest.fixture(scope="module")
def bwf() -> list[MatchResult]:
    return parse_matches(BWF.read_text(encoding="utf-8"), BADMINTON)


def test_without_the_setting_seasons_change_nothing_bit_for_bit(bwf: list[MatchResult]) -> None:
    """season_start_periods 0 (every ladder's default): the first days given or not, every
    change and state is the one of the engine without seasons, float for float."""
    plain = replay(bwf, Params(), BADMINTON)
    for params in (Params(season_starts=QUARTERS), Params(season_start_periods=13)):
        same = replay(bwf, params, BADMINTON)
        assert same.changes == plain.changes
        assert dict(same.states) == dict(plain.states)


def test_with_the_setting_crossing_players_grow(bwf: list[MatchResult]) -> None:
    plain = replay(bwf, Params(), BADMINTON)
    raised = replay(bwf, Params(season_start_periods=4, season_starts=QUARTERS), BADMINTON)
    pairs = [
        (p, r)
        for ps, rs in zip(plain.changes, raised.changes, strict=True)
        for p, r in zip(ps, rs, strict=True)
    ]
    grew = sum(r.rd_before > p.rd_before for p, r in pairs)
    assert grew > len(pairs) // 10
