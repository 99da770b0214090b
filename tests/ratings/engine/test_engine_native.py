"""The C replay (ratings/engine/_native.c, used by `Replayer.rate_all`) equals pure Python.

Every comparison is exact (`==` on PlayerChange compares the floats bit for bit) and,
for a readable failure, field by field within 1e-9 first. The pure side is the same
Replayer with `use_native = False`.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ratings.engine import glicko2
from ratings.engine import replay as replay_module
from ratings.engine.formats import get_format
from ratings.engine.replay import NATIVE, Replayer, ReplaySnapshot, replay
from ratings.engine.types import (
    OUTCOME_MODELS,
    EngineError,
    Match,
    Params,
    PlayerChange,
    PlayerState,
)
from ratings.lab import tune
from ratings.lab.evaluate import time_order
from ratings.lab.importfmt import parse_matches

ROOT = Path(__file__).resolve().parents[3]
BWF = ROOT / "tests" / "data" / "bwf_mens_singles_2018_2021.csv"
BADMINTON = get_format("badminton_21")
DAY = date(2024, 1, 1)
FAST_METHODS = ("composite_opponent", "individual", "composite_team")

needs_native = pytest.mark.skipif(
    NATIVE is None, reason="ratings.engine._native is not built (pip install -e .)"
)


def test_native_module_is_built() -> None:
    """`pip install -e .` builds the C module; in CI a missing one fails instead of skipping."""
    if os.environ.get("LADDER_ENGINE_NATIVE", "1") == "0":
        pytest.skip("LADDER_ENGINE_NATIVE=0: pure Python on purpose")
    if NATIVE is None:
        try:
            module = importlib.import_module("ratings.engine._native")
        except ImportError as exc:
            problem = f"cannot import ratings.engine._native ({exc}); run pip install -e ."
        else:
            problem = (
                f"ratings.engine._native speaks API {getattr(module, 'API_VERSION', None)}, "
                f"replay.py {replay_module.NATIVE_API_VERSION}: a stale build, run pip install -e ."
            )
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(problem)
        pytest.skip(problem)
    assert NATIVE.API_VERSION == replay_module.NATIVE_API_VERSION


def _pure(replayer: Replayer) -> Replayer:
    replayer.use_native = False
    return replayer


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


def _outcome_of(replayer: Replayer, matches: list[Match]) -> tuple[object, list]:  # type: ignore[type-arg]
    """(None, changes), or ((exception type, message), []) when rate_all raised."""
    try:
        return None, replayer.rate_all(matches)
    except Exception as exc:  # noqa: BLE001 - compared by the callers
        return (type(exc), str(exc)), []


def rate_both(native: Replayer, pure: Replayer, matches: list[Match]) -> None:
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
    return Replayer(params, BADMINTON, initial), _pure(Replayer(params, BADMINTON, initial))


def singles(day: date, a: str, b: str, games=((21, 15), (21, 17)), match_id=None) -> Match:  # type: ignore[no-untyped-def]
    return Match(day, (a,), (b,), games, id=match_id)


# -- the BWF file ----------------------------------------------------------------


@pytest.fixture(scope="module")
def bwf() -> list[Match]:
    return parse_matches(BWF.read_text(encoding="utf-8"), BADMINTON)


@needs_native
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
def test_bwf_native_equals_pure(bwf: list[Match], overrides: dict) -> None:  # type: ignore[type-arg]
    native, pure = both(Params().with_overrides(**overrides))
    assert native._native_engine().fast == (True, True)
    assert_same_changes(native.rate_all(bwf), pure.rate_all(bwf))
    assert_same_replayers(native, pure)


@needs_native
def test_replay_function_uses_native_and_equals_pure(bwf: list[Match]) -> None:
    native = replay(bwf, Params(), BADMINTON)
    pure_replayer = _pure(Replayer(Params(), BADMINTON))
    assert list(native.changes) == pure_replayer.rate_all(native.matches)
    assert dict(native.states) == dict(pure_replayer.states)


@needs_native
def test_native_changes_are_ordinary_player_changes(bwf: list[Match]) -> None:
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
    team_method=st.sampled_from(FAST_METHODS),
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
def history(draw, doubles: bool = False) -> tuple[Params, dict[str, PlayerState], list[Match]]:  # type: ignore[no-untyped-def]
    """Params, some starting states, and a time-ordered history among a few players.

    Few players and gaps from 0 to 400 days make repeat opponents (repetition weight),
    a closed diversity gate, inactivity and window pruning all common. With `doubles`,
    some matches are 2 v 2 (they go through the pure-Python path in between).
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
        if doubles and len(names) >= 4 and draw(st.integers(0, 3)) == 0:
            picked = draw(st.permutations(names))[:4]
            side_a, side_b = tuple(picked[:2]), tuple(picked[2:])
        else:
            a = draw(st.sampled_from(names))
            b = draw(st.sampled_from([n for n in names if n != a]))
            side_a, side_b = (a,), (b,)
        matches.append(Match(day, side_a, side_b, draw(badminton_games()), id=next_id))
    return params, initial, matches


PROFILE = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@needs_native
@PROFILE
@given(history())
def test_random_singles_histories_native_equals_pure(case) -> None:  # type: ignore[no-untyped-def]
    params, initial, matches = case
    native, pure = both(params, initial)
    rate_both(native, pure, matches)


@needs_native
@PROFILE
@given(history(doubles=True))
def test_histories_with_team_matches_native_equals_pure(case) -> None:  # type: ignore[no-untyped-def]
    """Team matches in between go through `rate`; the C side reloads whoever they changed."""
    params, initial, matches = case
    native, pure = both(params, initial)
    rate_both(native, pure, matches)


@needs_native
@PROFILE
@given(history(doubles=True))
def test_predict_rate_all_native_equals_pure(case) -> None:  # type: ignore[no-untyped-def]
    """§7's predict-then-rate in one batch: the same P (bit for bit) and changes as pure."""
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


@needs_native
def test_predict_rate_all_is_predict_then_rate(bwf: list[Match]) -> None:
    native = Replayer(Params(), BADMINTON)
    probs, changes = native.predict_rate_all(bwf)
    one_by_one = _pure(Replayer(Params(), BADMINTON))
    expected = []
    for m in bwf:
        expected.append(one_by_one.predict(m.side_a, m.side_b, m.played_on))
        one_by_one.rate(m)
    assert probs == expected
    assert_same_replayers(native, one_by_one)


@needs_native
def test_tune_training_score_is_the_same_natively(
    bwf: list[Match], monkeypatch: pytest.MonkeyPatch
) -> None:
    train = tune.train_split(time_order(bwf))
    params = Params(scale_factor=227.0, repetition_alpha=0.0, rating_period_days=3)
    native = tune.train_score(train, params, BADMINTON)
    monkeypatch.setattr(replay_module, "NATIVE", None)
    assert native == tune.train_score(train, params, BADMINTON)


@needs_native
@PROFILE
@given(history(doubles=True), st.lists(st.integers(0, 2), min_size=1, max_size=12), st.data())
def test_mixing_rate_rate_all_and_snapshots(case, steps, data) -> None:  # type: ignore[no-untyped-def]
    """Any mix of rate(), rate_all() and snapshot round trips ends where pure Python does."""
    params, initial, matches = case
    pure = _pure(Replayer(params, BADMINTON, initial))
    error, expected = _outcome_of(pure, matches)
    assume(error is None)  # errors: test_histories_with_team_matches_native_equals_pure
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


@needs_native
@settings(max_examples=300, deadline=None)
@given(
    st.floats(-20, 20),
    st.floats(0.01, 3.5),
    st.floats(0.001, 0.5),
    st.floats(-20, 20),
    st.floats(0.01, 3.5),
    st.floats(0, 1),
    st.floats(0.05, 1),
    st.floats(0.05, 2),
    st.floats(0.5, 8),
    st.booleans(),
)
def test_update_one_is_bit_identical(mu, phi, sigma, mu_o, phi_o, s, w, tau, slope, gate) -> None:  # type: ignore[no-untyped-def]
    args = (mu, phi, sigma, mu_o, phi_o, s, w, tau, slope, gate)
    constants = (
        glicko2.THREE_OVER_PI_SQUARED,
        glicko2.VOLATILITY_EPSILON,
        glicko2.MAX_VOLATILITY_ITERATIONS,
        glicko2.MAX_BRACKET_STEPS,
    )
    assert NATIVE is not None
    try:
        expected = glicko2.update_one(*args)
    except (EngineError, ArithmeticError, ValueError):
        assert NATIVE.update_one(*args, *constants) is None
    else:
        assert NATIVE.update_one(*args, *constants) == expected


# -- errors: the same exception, the same state left behind --------------------------


@needs_native
@pytest.mark.parametrize(
    "bad",
    [
        singles(DAY, "P1", "P2"),  # dated before the last rated match
        singles(DAY + timedelta(days=20), "P1", "P2", match_id=3),  # same day, smaller id
        singles(DAY + timedelta(days=30), "P1", "P1"),  # against oneself
        singles(DAY + timedelta(days=30), "P1", "P2", ((21, 20), (21, 3))),  # invalid game
        singles(DAY + timedelta(days=30), "P1", "P2", ((21, 3),)),  # not finished
        Match(DAY + timedelta(days=30), ("P1", "P2"), ("P2",), ((21, 3), (21, 3))),  # twice
    ],
)
def test_bad_match_raises_the_same_error_and_keeps_the_state(bad: Match) -> None:
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


@needs_native
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


@needs_native
def test_iteration_cap_surfaces_as_engine_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The C side stops at the match; Python rates it and raises the same EngineError."""
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


@needs_native
def test_an_iterator_that_fails_midway_leaves_what_came_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replay_module, "NATIVE_CHUNK", 4)
    matches = [singles(DAY + timedelta(days=i), f"P{i % 5}", f"P{(i + 2) % 5}") for i in range(11)]

    def stream() -> Iterator[Match]:
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
        fresh.rate_all(iter(matches)), _pure(Replayer(Params(), BADMINTON)).rate_all(matches)
    )


@needs_native
def test_lists_and_other_unusual_inputs_fall_back_to_python() -> None:
    matches = [
        Match(DAY, ("Ann",), ("Bob",), [[21, 15], [21, 17]]),  # type: ignore[arg-type]
        Match(DAY, ["Ann"], ["Cat"], ((21, 15), (21, 17))),  # type: ignore[arg-type]
        singles(DAY + timedelta(days=1), "Ann", "Bob"),
    ]
    native, pure = both(Params())
    assert_same_changes(native.rate_all(matches), pure.rate_all(matches))
    assert_same_replayers(native, pure)


@needs_native
def test_snapshot_round_trip_through_native(bwf: list[Match]) -> None:
    whole = _pure(Replayer(Params(), BADMINTON))
    expected = whole.rate_all(bwf)
    first = Replayer(Params(), BADMINTON)
    got = first.rate_all(bwf[:1500])
    snapshot = first.snapshot()
    assert isinstance(snapshot, ReplaySnapshot)
    restored = Replayer.from_snapshot(Params(), BADMINTON, snapshot)
    got += restored.rate_all(bwf[1500:])
    assert_same_changes(got, expected)
    assert_same_replayers(restored, whole)


# -- the switch ----------------------------------------------------------------------


@pytest.mark.parametrize(("value", "native"), [("0", False), ("off", False), ("1", True)])
def test_environment_switch(value: str, native: bool) -> None:
    code = "from ratings.engine import replay; print(replay.NATIVE is not None)"
    env = {**os.environ, "LADDER_ENGINE_NATIVE": value}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(native and NATIVE is not None)


def test_pure_python_when_switched_off(monkeypatch: pytest.MonkeyPatch, bwf: list[Match]) -> None:
    """Without the module rate_all is the plain loop over rate (and gives the same)."""
    monkeypatch.setattr(replay_module, "NATIVE", None)
    plain = Replayer(Params(), BADMINTON)
    changes = plain.rate_all(bwf[:200])
    assert changes == [r for r in map(Replayer(Params(), BADMINTON).rate, bwf[:200])]
    assert all(math.isfinite(c.rating_after) for pair in changes for c in pair)
