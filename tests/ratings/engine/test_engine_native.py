"""The C replay (ratings/engine/_native.c): one batch equals one match at a time.

`Replayer.rate_all` rates a whole history in one pass of a C working copy; `rate` makes
a fresh working copy for each match, which loads its players from the Replayer's state
and writes them back. Both must give the same results, errors and state, bit for bit
(`==` on PlayerChange compares the floats exactly; field by field within 1e-9 first, for
a readable failure). The arithmetic itself is checked against the plain model in
tests/ratings/engine/reference.py (test_reference.py, and `update_one` below).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ratings.engine import _native, glicko2
from ratings.engine import replay as replay_module
from ratings.engine.formats import get_format
from ratings.engine.replay import Replayer, ReplaySnapshot, replay
from ratings.engine.scales import expected_slope
from ratings.engine.types import (
    OUTCOME_MODELS,
    TEAM_METHODS,
    EngineError,
    MatchResult,
    Params,
    PlayerChange,
    PlayerState,
)
from ratings.lab.importfmt import parse_matches
from tests.ratings.engine import reference

ROOT = Path(__file__).resolve().parents[3]
BWF = ROOT / "tests" / "data" / "bwf_mens_singles_2018_2021.csv"
BADMINTON = get_format("badminton_21")
DAY = date(2024, 1, 1)


def test_native_module_speaks_this_api() -> None:
    assert _native.API_VERSION == replay_module.NATIVE_API_VERSION


class OneByOne(Replayer):
    """`rate_all` as a loop over `rate`: a fresh C working copy for every match."""

    def rate_all(self, matches: Iterable[MatchResult]) -> list[tuple[PlayerChange, ...]]:
        return [self.rate(m) for m in matches]

    def predict_rate_all(
        self, matches: Iterable[MatchResult]
    ) -> tuple[list[float], list[tuple[PlayerChange, ...]]]:
        probs, out = [], []
        for m in matches:
            probs.append(self.predict(m.side_a, m.side_b, m.played_on))
            out.append(self.rate(m))
        return probs, out


FIELDS = tuple(f.name for f in dataclasses.fields(PlayerChange))


def assert_same_changes(got: list, expected: list) -> None:  # type: ignore[type-arg]
    """Every field within 1e-9 (named in the failure), then equal bit for bit."""
    assert len(got) == len(expected)
    for i, (one, other) in enumerate(zip(got, expected, strict=True)):
        assert len(one) == len(other), i
        for a, b in zip(one, other, strict=True):
            assert type(a) is PlayerChange
            for name in FIELDS:
                x, y = getattr(a, name), getattr(b, name)
                if type(y) is float:
                    assert abs(x - y) <= 1e-9 or (math.isnan(x) and math.isnan(y)), (i, name, x, y)
                else:
                    assert x == y, (i, name, x, y)
    assert got == expected  # bit for bit


def assert_same_replayers(native: Replayer, pure: Replayer) -> None:
    assert dict(native.states) == dict(pure.states)
    assert native.snapshot() == pure.snapshot()
    assert (native._last_ordinal, native._last_id) == (pure._last_ordinal, pure._last_id)


def _outcome_of(replayer: Replayer, matches: list[MatchResult]) -> tuple[object, list]:  # type: ignore[type-arg]
    """(None, changes), or ((exception type, message), []) when rate_all raised."""
    try:
        return None, replayer.rate_all(matches)
    except Exception as exc:  # noqa: BLE001 - compared by the callers
        return (type(exc), str(exc)), []


def rate_both(native: Replayer, pure: Replayer, matches: list[MatchResult]) -> None:
    """rate_all on both: the same changes, or the same error; the same state after either.

    Extreme random settings can make the engine itself give up (a volatility iteration
    that does not converge): then both must raise the same error at the same match.
    """
    error, changes = _outcome_of(native, matches)
    expected_error, expected = _outcome_of(pure, matches)
    assert error == expected_error
    assert_same_changes(changes, expected)
    assert_same_replayers(native, pure)


def both(
    params: Params, initial: dict[str, PlayerState] | None = None
) -> tuple[Replayer, Replayer]:
    return Replayer(params, BADMINTON, initial), OneByOne(params, BADMINTON, initial)


def singles(day: date, a: str, b: str, games=((21, 15), (21, 17)), match_id=None) -> MatchResult:  # type: ignore[no-untyped-def]
    return MatchResult(day, (a,), (b,), games, id=match_id)


# -- the BWF file ----------------------------------------------------------------


@pytest.fixture(scope="module")
def bwf() -> list[MatchResult]:
    return parse_matches(BWF.read_text(encoding="utf-8"), BADMINTON)


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"team_method": "individual", "composite_rd": "rms"},
        {"team_method": "composite_team", "composite_rd": "rms_of_mean"},
        # the seed's score model, where the wrong-way floor binds often, with and without it
        {"outcome_model": "score"},
        {"outcome_model": "score", "wrong_way_floor": False},
        {"margin_boost": 3.0, "margin_clamp": 0.1},
        # the settings tune found, and short windows/periods that make every rule fire often
        {"scale_factor": 227.0, "repetition_alpha": 0.0, "match_win_bonus": 0.01,
         "margin_weight": 1.139, "margin_clamp": 0.401, "initial_rd": 500.0},
        {"lookback_days": 7, "rating_period_days": 1, "diversity_threshold": 0.6,
         "repetition_alpha": 1.0, "tau": 1.2},
    ],
)  # fmt: skip
def test_bwf_batch_equals_one_by_one(bwf: list[MatchResult], overrides: dict) -> None:  # type: ignore[type-arg]
    native, pure = both(Params().with_overrides(**overrides))
    assert native._native_engine().fast == (True, True)
    assert_same_changes(native.rate_all(bwf), pure.rate_all(bwf))
    assert_same_replayers(native, pure)


def test_replay_function_equals_one_by_one(bwf: list[MatchResult]) -> None:
    native = replay(bwf, Params(), BADMINTON)
    pure_replayer = OneByOne(Params(), BADMINTON)
    assert list(native.changes) == pure_replayer.rate_all(native.matches)
    assert dict(native.states) == dict(pure_replayer.states)


def test_native_changes_are_ordinary_player_changes(bwf: list[MatchResult]) -> None:
    change = Replayer(Params(), BADMINTON).rate_all(bwf[:3])[2][0]
    assert type(change) is PlayerChange
    assert change == PlayerChange(*(getattr(change, f.name) for f in dataclasses.fields(change)))
    assert hash(change) == hash(dataclasses.replace(change))
    with pytest.raises(dataclasses.FrozenInstanceError):
        change.rating_after = 1.0  # type: ignore[misc]


# -- hypothesis: random singles histories ------------------------------------------

WINNING_GAMES = [(21, lo) for lo in range(20)] + [(w, w - 2) for w in range(22, 31)] + [(30, 29)]


@st.composite
def badminton_games(draw) -> tuple[tuple[int, int], ...]:  # type: ignore[no-untyped-def]
    pattern = draw(st.sampled_from(["AA", "BB", "ABA", "BAA", "ABB", "BAB"]))
    games = []
    for side in pattern:
        w, lo = draw(st.sampled_from(WINNING_GAMES))
        games.append((w, lo) if side == "A" else (lo, w))
    return tuple(games)


params_st = st.builds(
    Params,
    team_method=st.sampled_from(TEAM_METHODS),
    stat_weights=st.just({"kills": 1.0, "deaths": -0.5}),
    g1_boost=st.booleans(),
    delta_max=st.one_of(st.none(), st.floats(5, 200)),
    composite_rd=st.sampled_from(["mean", "rms_of_mean", "rms"]),
    outcome_model=st.sampled_from(OUTCOME_MODELS),
    margin_boost=st.floats(0, 10),
    wrong_way_floor=st.booleans(),
    tau=st.floats(0.2, 1.5),
    scale_factor=st.floats(100, 800),
    repetition_alpha=st.floats(0, 1),
    diversity_threshold=st.floats(0, 1),
    match_win_bonus=st.floats(0, 0.5),
    margin_weight=st.floats(0, 2),
    margin_clamp=st.floats(0, 1),
    initial_rd=st.floats(50, 500),
    initial_volatility=st.floats(0.01, 0.2),
    lookback_days=st.integers(0, 200),
    rating_period_days=st.integers(1, 60),
    # §3 step 1's season starts (dates around the histories' days, some on a match day)
    season_start_periods=st.one_of(st.integers(0, 60), st.just(1000)),
    season_starts=st.lists(
        st.dates(date(2023, 12, 1), date(2027, 12, 31)), unique=True, max_size=6
    ).map(lambda days: tuple(sorted(days))),
)
states_st = st.builds(
    PlayerState,
    rating=st.floats(2000, 9000),
    rd=st.floats(20, 500),
    volatility=st.floats(0.01, 0.3),
    matches=st.integers(0, 50),
    last_played=st.one_of(st.none(), st.dates(date(2023, 6, 1), date(2024, 3, 1))),
)


@st.composite
def history(
    draw, doubles: bool = False
) -> tuple[Params, dict[str, PlayerState], list[MatchResult]]:  # type: ignore[no-untyped-def]
    """Params, some starting states, and a time-ordered history among a few players.

    Few players and gaps from 0 to 400 days make repeat opponents (repetition weight),
    a closed diversity gate, inactivity and window pruning all common. With `doubles`,
    some matches are 2 v 2 or 3 v 2, some with stats (performance_weighted uses them).
    """
    params = draw(params_st)
    names = [f"P{i}" for i in range(draw(st.integers(2, 7)))]
    initial = {n: draw(states_st) for n in names if draw(st.booleans())}
    matches = []
    day = DAY
    next_id: int | None = 1
    for _ in range(draw(st.integers(1, 40))):
        day += timedelta(days=draw(st.sampled_from([0, 0, 1, 2, 7, 8, 30, 91, 400])))
        if draw(st.integers(0, 9)) == 0:
            next_id = None if next_id is not None else 1000  # ids may be missing
        elif next_id is not None:
            next_id += 1
        stats = None
        if doubles and len(names) >= 4 and draw(st.integers(0, 3)) == 0:
            size = 5 if len(names) >= 5 and draw(st.booleans()) else 4
            picked = draw(st.permutations(names))[:size]
            side_a, side_b = tuple(picked[:2]), tuple(picked[2:])
            if draw(st.booleans()):
                stats = {n: {"kills": draw(st.integers(0, 30)), "deaths": 3.0} for n in picked}
        else:
            a = draw(st.sampled_from(names))
            b = draw(st.sampled_from([n for n in names if n != a]))
            side_a, side_b = (a,), (b,)
        games = draw(badminton_games())
        matches.append(MatchResult(day, side_a, side_b, games, stats=stats, id=next_id))
    return params, initial, matches


PROFILE = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROFILE
@given(history())
def test_random_singles_histories_batch_equals_one_by_one(case) -> None:  # type: ignore[no-untyped-def]
    params, initial, matches = case
    native, pure = both(params, initial)
    rate_both(native, pure, matches)


@PROFILE
@given(history(doubles=True))
def test_histories_with_team_matches_batch_equals_one_by_one(case) -> None:  # type: ignore[no-untyped-def]
    """Team matches of every method, with and without stats, in the same C pass."""
    params, initial, matches = case
    native, pure = both(params, initial)
    rate_both(native, pure, matches)


@PROFILE
@given(history(doubles=True))
def test_predict_rate_all_equals_predict_then_rate(case) -> None:  # type: ignore[no-untyped-def]
    """§7's predict-then-rate in one batch: the same P (bit for bit: the C side's §6 and
    predict.py's) and changes as one match at a time."""
    params, initial, matches = case
    native, pure = both(params, initial)

    def run(replayer: Replayer) -> tuple[object, tuple[list[float], list] | None]:  # type: ignore[type-arg]
        try:
            return None, replayer.predict_rate_all(matches)
        except Exception as exc:  # noqa: BLE001 - compared below
            return (type(exc), str(exc)), None

    error, got = run(native)
    expected_error, expected = run(pure)
    assert error == expected_error
    if got is not None and expected is not None:
        assert got[0] == expected[0]
        assert_same_changes(got[1], expected[1])
    assert_same_replayers(native, pure)


def test_predict_rate_all_is_predict_then_rate(bwf: list[MatchResult]) -> None:
    native = Replayer(Params(), BADMINTON)
    probs, changes = native.predict_rate_all(bwf)
    one_by_one = OneByOne(Params(), BADMINTON)
    expected = []
    for m in bwf:
        expected.append(one_by_one.predict(m.side_a, m.side_b, m.played_on))
        one_by_one.rate(m)
    assert probs == expected
    assert_same_replayers(native, one_by_one)


@PROFILE
@given(history(doubles=True), st.lists(st.integers(0, 2), min_size=1, max_size=12), st.data())
def test_mixing_rate_rate_all_and_snapshots(case, steps, data) -> None:  # type: ignore[no-untyped-def]
    """Any mix of rate(), rate_all() and snapshot round trips ends where one by one does."""
    params, initial, matches = case
    pure = OneByOne(params, BADMINTON, initial)
    error, expected = _outcome_of(pure, matches)
    assume(error is None)  # errors: test_histories_with_team_matches_batch_equals_one_by_one
    native = Replayer(params, BADMINTON, initial)
    got: list[tuple[PlayerChange, ...]] = []
    i = 0
    for step in steps:
        if i >= len(matches):
            break
        if step == 0:
            got.append(native.rate(matches[i]))
            i += 1
        elif step == 1:
            j = data.draw(st.integers(i, len(matches)))
            got += native.rate_all(matches[i:j])
            i = j
        else:
            native = Replayer.from_snapshot(params, BADMINTON, native.snapshot())
    got += native.rate_all(matches[i:])
    assert_same_changes(got, expected)
    assert_same_replayers(native, pure)


@settings(max_examples=300, deadline=None)
@given(
    st.floats(-3, 3),
    st.floats(0.05, 2.5),
    st.floats(0.01, 0.3),
    st.floats(-3, 3),
    st.floats(0.05, 2.5),
    st.floats(0, 1),
    st.floats(0.05, 3),
    st.floats(0.2, 1.5),
    st.booleans(),
)
def test_update_one_follows_the_reference(mu, phi, sigma, mu_o, phi_o, s, w, tau, gate) -> None:  # type: ignore[no-untyped-def]
    """The kernel's §3 steps 3-8 against the plain model's formulas (scale_factor 400)."""
    slope = expected_slope(400.0)
    got = glicko2.update_one(mu, phi, sigma, mu_o, phi_o, s, w, tau, slope, gate)
    spec = reference.Settings(tau=tau)
    e = reference.expected(mu, mu_o, phi_o, spec)
    g = reference.g(phi_o)
    v = 1 / (w * g**2 * e * (1 - e))
    total = w * g * (s - e)
    sigma_new = reference.new_sigma(v * total, phi, v, sigma, tau)
    phi_star = math.sqrt(phi**2 + sigma_new**2)
    phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v) if gate else max(phi, phi_star)
    expected = (mu + phi_new**2 * total, phi_new, sigma_new, e)
    assert got == pytest.approx(expected, rel=1e-6, abs=1e-9)
    # One opponent through `update` is the same arithmetic, bit for bit.
    assert glicko2.update(mu, phi, sigma, [(mu_o, phi_o, s, w)], tau, slope, gate) == got[:3]


# -- errors: the same exception, the same state left behind --------------------------


@pytest.mark.parametrize(
    "bad",
    [
        singles(DAY, "P1", "P2"),  # dated before the last rated match
        singles(DAY + timedelta(days=20), "P1", "P2", match_id=3),  # same day, smaller id
        singles(DAY + timedelta(days=30), "P1", "P1"),  # against oneself
        singles(DAY + timedelta(days=30), "P1", "P2", ((21, 20), (21, 3))),  # invalid game
        singles(DAY + timedelta(days=30), "P1", "P2", ((21, 3),)),  # not finished
        MatchResult(DAY + timedelta(days=30), ("P1", "P2"), ("P2",), ((21, 3), (21, 3))),  # twice
    ],
)
def test_bad_match_raises_the_same_error_and_keeps_the_state(bad: MatchResult) -> None:
    good = [
        singles(DAY + timedelta(days=i), f"P{i % 3}", f"P{(i + 1) % 3}", match_id=i)
        for i in range(21)
    ]
    after = [singles(DAY + timedelta(days=40), "P1", "P3")]
    native, pure = both(Params(lookback_days=10))
    native.rate_all(good[:5])
    pure.rate_all(good[:5])
    error, _ = _outcome_of(native, [*good[5:], bad, *after])
    assert error is not None
    assert _outcome_of(pure, [*good[5:], bad, *after])[0] == error
    assert_same_replayers(native, pure)  # the matches before the bad one are rated
    assert_same_changes(native.rate_all(after), pure.rate_all(after))


def test_an_opponent_out_of_reach_rates_the_same_in_c() -> None:
    """The slow case of the volatility iteration (101 steps) gives the same bits in C."""
    params = Params(scale_factor=100.0, tau=0.25, match_win_bonus=0.5, margin_weight=0.0)
    initial = {
        "P0": PlayerState(6259.0, 20.0, 0.25),
        "P1": PlayerState(2000.0, 20.0, 0.25),
    }
    native, pure = both(params, initial)
    match = singles(DAY, "P0", "P1", ((21, 0), (21, 0)), match_id=1)
    assert_same_changes(native.rate_all([match]), pure.rate_all([match]))
    assert_same_replayers(native, pure)


def test_iteration_cap_surfaces_as_engine_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The update raises EngineError at the match, with nothing of it applied."""
    matches = [singles(DAY + timedelta(days=i), "Ann", f"Opp{i % 4}") for i in range(10)]
    native, pure = both(Params(lookback_days=5))
    native.rate_all(matches[:6])
    pure.rate_all(matches[:6])
    before = native.snapshot()
    monkeypatch.setattr(glicko2, "MAX_VOLATILITY_ITERATIONS", 0)
    with pytest.raises(EngineError, match="did not converge in 0 steps") as raised:
        native.rate_all(matches[6:])
    with pytest.raises(EngineError) as raised_pure:
        pure.rate_all(matches[6:])
    assert str(raised.value) == str(raised_pure.value)
    assert native.snapshot() == before  # the window was put back, nothing applied
    monkeypatch.undo()
    assert_same_changes(native.rate_all(matches[6:]), pure.rate_all(matches[6:]))
    assert_same_replayers(native, pure)


def test_an_iterator_that_fails_midway_leaves_what_came_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replay_module, "NATIVE_CHUNK", 4)
    matches = [singles(DAY + timedelta(days=i), f"P{i % 5}", f"P{(i + 2) % 5}") for i in range(11)]

    def stream() -> Iterator[MatchResult]:
        yield from matches
        raise RuntimeError("the source broke")

    native, pure = both(Params())
    with pytest.raises(RuntimeError, match="broke"):
        native.rate_all(stream())
    with pytest.raises(RuntimeError, match="broke"):
        pure.rate_all(stream())
    assert_same_replayers(native, pure)
    fresh = Replayer(Params(), BADMINTON)
    assert_same_changes(
        fresh.rate_all(iter(matches)), OneByOne(Params(), BADMINTON).rate_all(matches)
    )


def test_lists_and_other_unusual_inputs_are_rated_in_plain_form() -> None:
    matches = [
        MatchResult(DAY, ("Ann",), ("Bob",), [[21, 15], [21, 17]]),  # type: ignore[arg-type]
        MatchResult(DAY, ["Ann"], ["Cat"], ((21, 15), (21, 17))),  # type: ignore[arg-type]
        singles(DAY + timedelta(days=1), "Ann", "Bob"),
    ]
    native, pure = both(Params())
    assert_same_changes(native.rate_all(matches), pure.rate_all(matches))
    assert_same_replayers(native, pure)


def test_snapshot_round_trip_through_native(bwf: list[MatchResult]) -> None:
    whole = OneByOne(Params(), BADMINTON)
    expected = whole.rate_all(bwf)
    first = Replayer(Params(), BADMINTON)
    got = first.rate_all(bwf[:1500])
    snapshot = first.snapshot()
    assert isinstance(snapshot, ReplaySnapshot)
    restored = Replayer.from_snapshot(Params(), BADMINTON, snapshot)
    got += restored.rate_all(bwf[1500:])
    assert_same_changes(got, expected)
    assert_same_replayers(restored, whole)
