"""RATINGS.md's fairness guarantees, searched for counter-examples (hypothesis).

For every team method, team sizes 1-5 and every parameter value a ladder accepts
(`validate_params`), after a random history:
- a win never lowers a winner's rating and a loss never raises a loser's;
- a bigger winning margin never moves either player less than a smaller one would;
- under `margin_information` the wrong-way floor never binds: the update itself moves
  every player the right way (switching the floor off changes nothing);
- under `score` the floor is what keeps the first guarantee, and it does bind.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ratings.engine.formats import get_format
from ratings.engine.replay import Replayer, validate_params
from ratings.engine.types import (
    COMPOSITE_RD_CHOICES,
    NEWCOMER_STARTS,
    OUTCOME_MODELS,
    TEAM_METHODS,
    EngineError,
    MatchResult,
    Params,
    PlayerChange,
    PlayerState,
)

BADMINTON = get_format("badminton_21")
DAY = date(2024, 1, 1)
PROFILE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Rating points: the updates are floating point; "never less" holds to this much.
TOLERANCE = 1e-9

# Every parameter a ladder can set, over the ranges validate_params accepts (the open ends
# capped where a bigger value only repeats what the cap already shows).
params_st = st.builds(
    Params,
    team_method=st.sampled_from(TEAM_METHODS),
    composite_rd=st.sampled_from(COMPOSITE_RD_CHOICES),
    outcome_model=st.sampled_from(OUTCOME_MODELS),
    margin_boost=st.floats(0, 10),
    match_win_bonus=st.floats(0, 0.5),
    margin_weight=st.floats(0, 2),
    margin_clamp=st.floats(0, 1),
    tau=st.floats(0.05, 2.0),
    scale_factor=st.floats(50, 1000),
    repetition_alpha=st.floats(0, 3),
    diversity_threshold=st.floats(0, 1),
    initial_rd=st.floats(30, 500),
    initial_volatility=st.floats(0.01, 0.2),
    newcomer_start=st.sampled_from(NEWCOMER_STARTS),  # §4: players without a start join
    lookback_days=st.integers(0, 365),
    rating_period_days=st.integers(1, 60),
    # §3 step 1's season starts (dates around the histories' days, some on a match day)
    season_start_periods=st.one_of(st.integers(0, 60), st.just(1000)),
    season_starts=st.lists(
        st.dates(date(2023, 12, 1), date(2028, 12, 31)), unique=True, max_size=6
    ).map(lambda days: tuple(sorted(days))),
    stat_weights=st.just({"kills": 1.0, "deaths": -0.5}),
    delta_max=st.one_of(st.none(), st.floats(1, 500)),
    g1_boost=st.booleans(),
    g1_scale=st.floats(0.5, 4.0),
)
states_st = st.builds(
    PlayerState,
    rating=st.floats(2000, 9000),
    rd=st.floats(20, 500),
    volatility=st.floats(0.01, 0.3),
)
# Every valid badminton_21 game as (winner points, loser points).
WINNING_GAMES = [(21, lo) for lo in range(20)] + [(w, w - 2) for w in range(22, 31)] + [(30, 29)]


@st.composite
def games_st(draw, a_wins: bool | None = None):  # type: ignore[no-untyped-def]
    """Valid games of a best-of-3 match; `a_wins` picks the winner (None: either)."""
    patterns = {True: ["AA", "ABA", "BAA"], False: ["BB", "ABB", "BAB"]}
    choices = patterns[a_wins] if a_wins is not None else patterns[True] + patterns[False]
    pattern = draw(st.sampled_from(choices))
    games = []
    for side in pattern:
        w, lo = draw(st.sampled_from(WINNING_GAMES))
        games.append((w, lo) if side == "A" else (lo, w))
    return tuple(games)


@st.composite
def history_st(draw):  # type: ignore[no-untyped-def]
    """Params, a team size 1-5, starting states, a short history and the players of one more match."""
    params = draw(params_st)
    size = draw(st.integers(1, 5))
    names = [f"P{i}" for i in range(2 * size + draw(st.integers(0, 3)))]
    initial = {n: draw(states_st) for n in names if draw(st.booleans())}
    matches = []
    day = DAY
    for i in range(draw(st.integers(0, 8))):
        day += timedelta(days=draw(st.sampled_from([0, 1, 7, 8, 30, 91, 400])))
        picked = draw(st.permutations(names))[: 2 * size]
        stats = None
        if draw(st.booleans()):
            stats = {
                n: {"kills": draw(st.integers(0, 30)), "deaths": draw(st.integers(0, 30))}
                for n in picked
            }
        matches.append(
            MatchResult(
                day, tuple(picked[:size]), tuple(picked[size:]), draw(games_st()), stats, i + 1
            )
        )
    picked = draw(st.permutations(names))[: 2 * size]
    last = (day + timedelta(days=draw(st.sampled_from([0, 1, 7, 30]))), picked, size)
    return params, initial, matches, last


def _replayed(params: Params, initial, matches) -> Replayer:  # type: ignore[no-untyped-def]
    replayer = Replayer(params, BADMINTON, initial)
    try:
        replayer.rate_all(matches)
    except EngineError:
        assume(False)  # extreme settings where the volatility iteration gives up
    return replayer


def _final(replayer: Replayer, last, games) -> tuple[PlayerChange, ...]:  # type: ignore[no-untyped-def]
    day, picked, size = last
    stats = {n: {"kills": 10 + i, "deaths": 5} for i, n in enumerate(picked)}
    match = MatchResult(day, tuple(picked[:size]), tuple(picked[size:]), games, stats, 10_000)
    try:
        return replayer.rate(match)
    except EngineError:
        assume(False)
        raise  # unreachable


def _assert_right_way(changes) -> None:  # type: ignore[no-untyped-def]
    for c in changes:
        if c.won:
            assert c.rating_after >= c.rating_before, c
        else:
            assert c.rating_after <= c.rating_before, c


def test_the_strategy_only_makes_ladder_settings() -> None:
    """The search covers settings a ladder accepts, nothing validate_params refuses."""

    @settings(max_examples=200, deadline=None)
    @given(params_st)
    def valid(params: Params) -> None:
        validate_params(params)

    valid()


@PROFILE
@given(history_st(), st.data())
def test_a_win_never_lowers_and_a_loss_never_raises(case, data) -> None:  # type: ignore[no-untyped-def]
    """Over every match of a random history and a final one, for every player."""
    params, initial, matches, last = case
    replayer = Replayer(params, BADMINTON, initial)
    try:
        for m in matches:
            _assert_right_way(replayer.rate(m))
    except EngineError:
        assume(False)
    _assert_right_way(_final(replayer, last, data.draw(games_st())))


@PROFILE
@given(history_st(), st.data())
def test_margin_information_needs_no_floor(case, data) -> None:  # type: ignore[no-untyped-def]
    """Under margin_information the update itself moves everyone the right way: with the
    floor switched off the ratings still never go the wrong way, so the floor never binds."""
    params, initial, matches, last = case
    free = params.with_overrides(outcome_model="margin_information", wrong_way_floor=False)
    floored = free.with_overrides(wrong_way_floor=True)
    replayer = Replayer(free, BADMINTON, initial)
    check = Replayer(floored, BADMINTON, initial)
    games = data.draw(games_st())
    try:
        for m in matches:
            got = replayer.rate(m)
            _assert_right_way(got)
            assert got == tuple(c for c in check.rate(m)), (
                "the floor changed something under margin_information"
            )
        final = _final(replayer, last, games)
    except EngineError:
        assume(False)
    _assert_right_way(final)
    assert not any(c.floor_applied for c in final)


@PROFILE
@given(history_st(), st.data())
def test_a_bigger_margin_never_moves_anyone_less(case, data) -> None:  # type: ignore[no-untyped-def]
    """The same final match won by the same side in the same games, once with every game
    at least as wide: the winners gain at least as much and the losers drop at least as much."""
    params, initial, matches, last = case
    a_wins = data.draw(st.booleans())
    narrow_games = data.draw(games_st(a_wins=a_wins))
    wide_games = []
    for a, b in narrow_games:
        # Widen each game the winner of the game won; a game the match winner lost may
        # only get narrower for them (their margin grows either way).
        game_a_won = a > b
        w, lo = (a, b) if game_a_won else (b, a)
        game_for_winner = game_a_won == a_wins
        if game_for_winner:
            lo = data.draw(st.integers(0, lo)) if w == 21 else lo
        else:
            w, lo = data.draw(st.sampled_from([g for g in WINNING_GAMES if g[1] >= lo]))
        wide_games.append((w, lo) if game_a_won else (lo, w))
    replayer = _replayed(params, initial, matches)
    snapshot = replayer.snapshot()
    narrow = _final(replayer, last, narrow_games)
    wide = _final(Replayer.from_snapshot(params, BADMINTON, snapshot), last, tuple(wide_games))
    for n, w in zip(narrow, wide, strict=True):
        assert n.player == w.player and n.won == w.won
        if n.won:
            assert w.change >= n.change - TOLERANCE, (n, w)
        else:
            assert w.change <= n.change + TOLERANCE, (n, w)


@pytest.mark.parametrize("method", TEAM_METHODS)
def test_score_model_floor_binds_and_is_recorded(method: str) -> None:
    """The seed's score model: a strong player's narrow win (0.9 < E) would lower them;
    the floor keeps their rating, records it, and leaves RD and volatility alone."""
    params = Params(outcome_model="score", team_method=method, stat_weights={"kills": 1.0})
    strong = PlayerState(6500.0, 80.0, 0.06)
    weak = PlayerState(3500.0, 80.0, 0.06)
    replayer = Replayer(params, BADMINTON, {"Strong": strong, "Weak": weak})
    winner, loser = replayer.rate(MatchResult(DAY, ("Strong",), ("Weak",), ((21, 19), (21, 19))))
    assert winner.won and winner.floor_applied
    assert winner.rating_after == winner.rating_before == 6500.0
    assert loser.floor_applied and loser.rating_after == 3500.0
    assert winner.rd_after != winner.rd_before  # RD still updates
    unfloored = Replayer(
        params.with_overrides(wrong_way_floor=False), BADMINTON, {"Strong": strong, "Weak": weak}
    ).rate(MatchResult(DAY, ("Strong",), ("Weak",), ((21, 19), (21, 19))))
    assert unfloored[0].rating_after < 6500.0 and unfloored[1].rating_after > 3500.0
    assert unfloored[0].rd_after == winner.rd_after
    assert unfloored[0].volatility_after == winner.volatility_after
