"""Invariants of the engine for any valid input (hypothesis)."""

from __future__ import annotations

import math
from datetime import date, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratings.engine.formats import get_format
from ratings.engine.replay import Replayer
from ratings.engine.types import TEAM_METHODS, MatchResult, Params, PlayerState

BADMINTON = get_format("badminton_21")
DAY = date(2024, 1, 1)
PROFILE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every valid badminton_21 game as (winner points, loser points).
WINNING_GAMES = [(21, lo) for lo in range(20)] + [(w, w - 2) for w in range(22, 31)] + [(30, 29)]
games_won = st.sampled_from(WINNING_GAMES)


@st.composite
def badminton_match_games(draw) -> tuple[tuple[int, int], ...]:
    """Valid games of a best-of-3 match, from side A's view."""
    pattern = draw(st.sampled_from(["AA", "BB", "ABA", "BAA", "ABB", "BAB"]))
    games = []
    for side in pattern:
        w, lo = draw(games_won)
        games.append((w, lo) if side == "A" else (lo, w))
    return tuple(games)


states = st.builds(
    PlayerState,
    rating=st.floats(2000, 9000),
    rd=st.floats(20, 500),
    volatility=st.floats(0.01, 0.3),
)
params_st = st.builds(
    Params,
    team_method=st.sampled_from(TEAM_METHODS),
    composite_rd=st.sampled_from(["mean", "rms_of_mean", "rms"]),
    tau=st.floats(0.2, 1.2),
    scale_factor=st.floats(100, 800),
    repetition_alpha=st.floats(0, 1),
    diversity_threshold=st.floats(0, 1),
    match_win_bonus=st.floats(0.2, 0.5),
    margin_weight=st.floats(0, 0.5),
    margin_clamp=st.floats(0, 0.5),
    stat_weights=st.just({"kills": 1.0, "deaths": -1.0}),
    delta_max=st.one_of(st.none(), st.floats(1, 300)),
    g1_boost=st.booleans(),
)


@st.composite
def scenario(draw):
    """Params, a team size, starting states for everyone, and a short history between them."""
    params = draw(params_st)
    size = draw(st.integers(1, 3))
    names = [f"P{i}" for i in range(2 * size + 2)]
    initial = {n: draw(states) for n in names}
    matches = []
    day = DAY
    for i in range(draw(st.integers(1, 6))):
        day += timedelta(days=draw(st.sampled_from([0, 1, 8, 100])))
        picked = draw(st.permutations(names))[: 2 * size]
        stats = None
        if draw(st.booleans()):
            stats = {
                n: {"kills": draw(st.integers(0, 40)), "deaths": draw(st.integers(0, 40))}
                for n in picked
            }
        matches.append(
            MatchResult(
                day,
                tuple(picked[:size]),
                tuple(picked[size:]),
                draw(badminton_match_games()),
                stats,
                i + 1,
            )
        )
    return params, initial, matches


def mirrored(m: MatchResult) -> MatchResult:
    return MatchResult(
        m.played_on, m.side_b, m.side_a, tuple((b, a) for a, b in m.games), m.stats, m.id
    )


@PROFILE
@given(scenario())
def test_results_finite_and_bounded(case) -> None:
    params, initial, matches = case
    replayer = Replayer(params, BADMINTON, initial)
    for m in matches:
        for c in replayer.rate(m):
            assert params.rating_min <= c.rating_after <= params.rating_max
            assert 0 < c.rd_after <= params.rd_max
            assert math.isfinite(c.volatility_after) and c.volatility_after > 0
            assert 0 <= c.expected <= 1
            assert 0 <= c.outcome <= 1
            assert 0 < c.repetition_weight <= 1
            assert 0 < c.diversity_ratio <= 1
            assert c.performance_weight > 0
    a, b = matches[-1].side_a, matches[-1].side_b
    p = replayer.predict(a, b, matches[-1].played_on + timedelta(days=30))
    assert 0 <= p <= 1  # 0 or 1 only when float precision runs out (gaps of thousands)
    assert 0 < replayer.quality(a, b, matches[-1].played_on) <= 1


@PROFILE
@given(scenario())
def test_swapping_sides_mirrors_the_result(case) -> None:
    params, initial, matches = case
    straight = Replayer(params, BADMINTON, initial)
    swapped = Replayer(params, BADMINTON, initial)
    for m in matches:
        one = {c.player: c for c in straight.rate(m)}
        other = {c.player: c for c in swapped.rate(mirrored(m))}
        assert one.keys() == other.keys()
        for name, c in one.items():
            d = other[name]
            assert math.isclose(c.rating_after, d.rating_after, rel_tol=0, abs_tol=1e-9)
            assert math.isclose(c.rd_after, d.rd_after, rel_tol=0, abs_tol=1e-9)
            assert math.isclose(c.volatility_after, d.volatility_after, rel_tol=0, abs_tol=1e-12)
            assert math.isclose(c.outcome, d.outcome, abs_tol=1e-12)


@PROFILE
@given(
    params_st,
    st.integers(1, 3),
    st.lists(states, min_size=6, max_size=6),
    st.integers(0, 19),
    st.integers(0, 19),
)
def test_bigger_margin_never_gives_the_winner_less(params, size, people, small, big) -> None:
    """21-x 21-x against 21-y 21-y with y <= x: every winner gains at least as much."""
    small, big = max(small, big), min(small, big)  # points the loser got
    names = [f"P{i}" for i in range(6)]
    initial = dict(zip(names, people, strict=True))
    side_a, side_b = tuple(names[:size]), tuple(names[size : 2 * size])

    def winners_changes(loser_points: int) -> list[float]:
        replayer = Replayer(params, BADMINTON, initial)
        games = ((21, loser_points), (21, loser_points))
        return [c.change for c in replayer.rate(MatchResult(DAY, side_a, side_b, games))[:size]]

    for narrow, wide in zip(winners_changes(small), winners_changes(big), strict=True):
        assert wide >= narrow - 1e-9


@PROFILE
@given(scenario(), st.data())
def test_pieces_equal_whole(case, data) -> None:
    params, initial, matches = case
    cut = data.draw(st.integers(0, len(matches)))
    whole = Replayer(params, BADMINTON, initial)
    expected = whole.rate_all(matches)
    first = Replayer(params, BADMINTON, initial)
    got = first.rate_all(matches[:cut])
    second = Replayer.from_snapshot(params, BADMINTON, first.snapshot())
    got += second.rate_all(matches[cut:])
    assert got == expected
    assert dict(second.states) == dict(whole.states)
    # Continuing the same replayer is the same as restoring it.
    first.rate_all(matches[cut:])
    assert dict(first.states) == dict(whole.states)
