"""The Replayer: §3 order, repetition (step 4), diversity (step 7), snapshots and replay()."""

from __future__ import annotations

import dataclasses
import functools
import pickle
import random
from datetime import date, timedelta
from types import MappingProxyType

import pytest

from ratings.engine import glicko2
from ratings.engine.formats import get_format
from ratings.engine.outcome import match_outcome
from ratings.engine.replay import (
    Replayer,
    ReplaySnapshot,
    replay,
    validate_params,
)
from ratings.engine.types import (
    TEAM_METHODS,
    EngineError,
    MatchResult,
    Params,
    PlayerChange,
    PlayerState,
)

# RATINGS.md's worked examples (§3, §5) assume §2's scale_factor 400 and margin_clamp 0.25;
# the engine's defaults are measured (docs/RATINGS_EVALUATION.md "Defaults").
SpecParams = functools.partial(Params, scale_factor=400.0, margin_clamp=0.25)

BADMINTON = get_format("badminton_21")
ONE_GAME = get_format("generic", best_of=1, points_per_game=21)
DAY = date(2024, 3, 1)


def singles(
    day: date, a: str, b: str, games=((21, 15), (21, 17)), match_id: int | None = None
) -> MatchResult:
    return MatchResult(day, (a,), (b,), games, id=match_id)


# -- step 4: repetition ------------------------------------------------------------


def test_repetition_weights_1_0_83_0_71_0_56() -> None:
    """k earlier matches against the same opponent in the window: weight 1 / (1 + 0.2 k)."""
    replayer = Replayer(SpecParams(), BADMINTON)
    weights = [
        replayer.rate(singles(DAY + timedelta(days=i), "Ann", "Bob"))[0].repetition_weight
        for i in range(5)
    ]
    assert weights == pytest.approx([1.0, 1 / 1.2, 1 / 1.4, 1 / 1.6, 1 / 1.8])
    assert [round(w, 2) for w in weights[:3]] == [1.0, 0.83, 0.71]
    assert round(weights[4], 2) == 0.56  # k = 4: the fifth match


def test_repetition_counts_only_this_opponent() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    replayer.rate(singles(DAY, "Ann", "Bob"))
    replayer.rate(singles(DAY, "Ann", "Cat"))
    ann, bob = replayer.rate(singles(DAY, "Bob", "Ann"))
    assert ann.repetition_weight == bob.repetition_weight == pytest.approx(1 / 1.2)
    ann, dan = replayer.rate(singles(DAY, "Ann", "Dan"))
    assert ann.repetition_weight == 1.0


@pytest.mark.parametrize(("gap", "counted"), [(89, True), (90, True), (91, False)])
def test_window_boundary(gap: int, counted: bool) -> None:
    """A match exactly lookback_days (90) before still counts; one day more does not."""
    replayer = Replayer(SpecParams(), BADMINTON)
    replayer.rate(singles(DAY, "Ann", "Bob"))
    ann, _ = replayer.rate(singles(DAY + timedelta(days=gap), "Ann", "Bob"))
    assert ann.repetition_weight == pytest.approx(1 / 1.2 if counted else 1.0)
    assert ann.diversity_ratio == pytest.approx(0.5 if counted else 1.0)


def test_window_slides_forward() -> None:
    """lookback 10: on day 16 the matches of days 8 and 12 count, those of days 0 and 4 not."""
    replayer = Replayer(SpecParams(lookback_days=10), BADMINTON)
    for day in (0, 4, 8, 12):
        replayer.rate(singles(DAY + timedelta(days=day), "Ann", "Bob"))
    ann, _ = replayer.rate(singles(DAY + timedelta(days=16), "Ann", "Bob"))
    assert ann.repetition_weight == pytest.approx(1 / (1 + 0.2 * 2))
    assert ann.diversity_ratio == pytest.approx(1 / 3)


def test_doubles_repetition_is_per_opponent_and_averaged() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    replayer.rate(MatchResult(DAY, ("A", "B"), ("C", "D"), ((21, 10), (21, 10))))
    changes = replayer.rate(MatchResult(DAY, ("A", "B"), ("C", "E"), ((21, 10), (21, 10))))
    a = changes[0]
    assert a.repetition_weight == pytest.approx((1 / 1.2 + 1.0) / 2)
    e = changes[3]
    assert e.repetition_weight == 1.0


# -- step 7: diversity -------------------------------------------------------------


def test_gate_closes_below_one_fifth_and_rd_stops_shrinking() -> None:
    """Singles against one opponent: ratio 1/n; the 6th match (1/6 < 0.2) keeps RD from shrinking."""
    replayer = Replayer(SpecParams(), BADMINTON)
    rows = [
        replayer.rate(singles(DAY, "Ann", "Bob", games=((21, 19), (21, 19))))[0] for _ in range(8)
    ]
    assert [r.diversity_ratio for r in rows] == pytest.approx([1 / n for n in range(1, 9)])
    assert [r.gate_open for r in rows] == [True] * 5 + [False] * 3
    for r in rows[:5]:
        assert r.rd_after < r.rd_before
    for r in rows[5:]:
        assert r.rd_after >= r.rd_before


def test_new_opponents_reopen_the_gate() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    for _ in range(6):
        last = replayer.rate(singles(DAY, "Ann", "Bob"))[0]
    assert not last.gate_open
    ann = replayer.rate(singles(DAY, "Ann", "Cat"))[0]  # 2 distinct / 7 slots = 0.29
    assert ann.diversity_ratio == pytest.approx(2 / 7)
    assert ann.gate_open and ann.rd_after < ann.rd_before


def test_doubles_diversity_counts_two_slots_per_match() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    ratios = [
        replayer.rate(MatchResult(DAY, ("A", "B"), ("C", "D"), ((21, 10), (21, 10))))[
            0
        ].diversity_ratio
        for _ in range(6)
    ]
    assert ratios == pytest.approx([2 / 2, 2 / 4, 2 / 6, 2 / 8, 2 / 10, 2 / 12])
    changes = replayer.rate(MatchResult(DAY, ("A", "C"), ("B", "E"), ((21, 10), (21, 10))))
    # A has met C, D (6 times each) and now B, E: 4 distinct over 14 slots.
    assert changes[0].diversity_ratio == pytest.approx(4 / 14)


# -- order and validation ----------------------------------------------------------


def test_match_before_last_rated_is_refused() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    replayer.rate(singles(DAY, "Ann", "Bob"))
    with pytest.raises(EngineError, match="dated before the last rated match"):
        replayer.rate(singles(DAY - timedelta(days=1), "Ann", "Cat"))
    replayer.rate(singles(DAY, "Ann", "Cat"))  # the same day is fine


def test_same_day_ids_must_increase() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    replayer.rate(singles(DAY, "Ann", "Bob", match_id=5))
    with pytest.raises(EngineError, match="same day"):
        replayer.rate(singles(DAY, "Ann", "Cat", match_id=5))
    with pytest.raises(EngineError, match="same day"):
        replayer.rate(singles(DAY, "Ann", "Cat", match_id=4))
    replayer.rate(singles(DAY, "Ann", "Cat", match_id=6))
    replayer.rate(singles(DAY + timedelta(days=1), "Ann", "Cat", match_id=1))


def test_invalid_matches_are_refused_without_changing_anything() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    replayer.rate(singles(DAY, "Ann", "Bob"))
    before = dict(replayer.states)
    with pytest.raises(EngineError, match="not finished"):
        replayer.rate(singles(DAY, "Ann", "Bob", games=((21, 15),)))
    with pytest.raises(EngineError, match="themselves"):
        replayer.rate(singles(DAY, "Ann", "Ann"))
    with pytest.raises(EngineError, match="twice"):
        replayer.rate(MatchResult(DAY, ("Ann", "Bob"), ("Ann", "Cat"), ((21, 15), (21, 15))))
    with pytest.raises(EngineError, match="at least one player"):
        replayer.rate(MatchResult(DAY, (), ("Cat",), ((21, 15), (21, 15))))
    assert dict(replayer.states) == before


def test_failed_update_restores_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """An update that cannot finish leaves the replayer as it was (the window included)."""
    replayer = Replayer(SpecParams(lookback_days=5), BADMINTON)
    replayer.rate(singles(DAY, "Ann", "Bob"))
    snapshot = replayer.snapshot()
    monkeypatch.setattr(glicko2, "MAX_VOLATILITY_ITERATIONS", 0)
    with pytest.raises(EngineError, match="did not converge"):
        replayer.rate(singles(DAY + timedelta(days=30), "Ann", "Bob"))
    monkeypatch.undo()
    assert replayer.snapshot() == snapshot
    ann, _ = replayer.rate(singles(DAY + timedelta(days=3), "Ann", "Bob"))
    assert ann.repetition_weight == pytest.approx(1 / 1.2)


def test_lists_for_games_are_accepted() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    match = MatchResult(DAY, ("Ann",), ("Bob",), [[21, 15], [21, 17]])  # type: ignore[arg-type]
    ann, bob = replayer.rate(match)
    assert ann.outcome == 1.0 and ann.won and not bob.won
    assert ann.margin_multiplier == pytest.approx(1 + (5 / 21) / 0.25)


def test_validate_params() -> None:
    validate_params(SpecParams())
    for bad in (
        {"tau": 0.0},
        {"scale_factor": 10.0},
        {"rating_min": 9000.0},
        {"team_method": "elo"},
        {"composite_rd": "max"},
        {"lookback_days": -1},
        {"rating_period_days": 0},
        {"delta_max": 0.0},
        {"tau": float("nan")},
        {"stat_weights": {"kills": "many"}},
        {"perf_weight_min": 1.2},
        {"initial_rd": 600.0},
    ):
        with pytest.raises(EngineError):
            validate_params(SpecParams().with_overrides(**bad))
    with pytest.raises(EngineError):
        Replayer(SpecParams(tau=-1.0), BADMINTON)


# -- states, predictions -----------------------------------------------------------


def test_states_and_initial_states() -> None:
    initial = {"Ann": PlayerState(5000.0, 150.0, 0.05)}
    replayer = Replayer(SpecParams(), BADMINTON, initial)
    assert replayer.state("Ann") == initial["Ann"]
    assert replayer.state("Zed") == PlayerState(4500.0, 250.0, 0.06)
    assert dict(replayer.states) == {}
    ann, bob = replayer.rate(singles(DAY, "Ann", "Bob"))
    assert ann.rating_before == 5000.0 and ann.rd_before == 150.0
    assert set(replayer.states) == {"Ann", "Bob"}
    state = replayer.state("Ann")
    assert (state.rating, state.rd, state.volatility) == (
        ann.rating_after,
        ann.rd_after,
        ann.volatility_after,
    )
    assert state.matches == 1 and state.last_played == DAY


def test_predict_and_quality_use_current_states() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    assert replayer.predict(("Ann",), ("Bob",), DAY) == pytest.approx(0.5)
    replayer.rate(singles(DAY, "Ann", "Bob"))
    p = replayer.predict(("Ann",), ("Bob",), DAY)
    assert p > 0.5
    assert replayer.predict(("Bob",), ("Ann",), DAY) == pytest.approx(1 - p)
    # A year later both RDs have grown: the prediction is less sure.
    assert 0.5 < replayer.predict(("Ann",), ("Bob",), DAY + timedelta(days=365)) < p
    q = replayer.quality(("Ann",), ("Bob",), DAY)
    assert 0 < q <= 1


# -- pieces and whole --------------------------------------------------------------


def _history(n: int, seed: int, team_size: int = 1) -> list[MatchResult]:
    rng = random.Random(seed)
    people = [f"P{i}" for i in range(8)]
    scores = [
        ((21, 15), (21, 17)),
        ((19, 21), (21, 12), (21, 19)),
        ((12, 21), (22, 24)),
        ((30, 29), (21, 3)),
    ]
    day = DAY
    matches = []
    for i in range(n):
        day += timedelta(days=rng.choice((0, 0, 1, 3, 9, 40)))
        picked = rng.sample(people, 2 * team_size)
        matches.append(
            MatchResult(
                day,
                tuple(picked[:team_size]),
                tuple(picked[team_size:]),
                rng.choice(scores),
                id=i + 1,
            )
        )
    return matches


@pytest.mark.parametrize("method", TEAM_METHODS)
@pytest.mark.parametrize("team_size", [1, 2])
def test_pieces_equal_whole(method: str, team_size: int) -> None:
    weights = {"kills": 1.0} if method == "performance_weighted" else {}
    params = SpecParams(team_method=method, lookback_days=30, stat_weights=weights)
    matches = _history(80, seed=team_size, team_size=team_size)
    whole = Replayer(params, BADMINTON)
    whole_changes = whole.rate_all(matches)

    continued = Replayer(params, BADMINTON)
    first = continued.rate_all(matches[:30])
    restored = Replayer.from_snapshot(params, BADMINTON, continued.snapshot())
    second = restored.rate_all(matches[30:55])
    third = restored.rate_all(matches[55:])
    assert first + second + third == whole_changes
    assert dict(restored.states) == dict(whole.states)
    assert restored.snapshot() == whole.snapshot()


def test_snapshot_is_immutable_and_self_contained() -> None:
    initial = {"P0": PlayerState(5000.0, 100.0, 0.06), "Unseen": PlayerState(3000.0, 100.0, 0.06)}
    replayer = Replayer(SpecParams(), BADMINTON, initial)
    replayer.rate_all(_history(10, seed=3))
    snap = replayer.snapshot()
    assert isinstance(snap, ReplaySnapshot)
    assert "Unseen" in snap.initial and "Unseen" not in snap.states
    with pytest.raises(TypeError):
        snap.states["X"] = PlayerState(1.0, 1.0, 1.0)  # type: ignore[index]
    restored = Replayer.from_snapshot(SpecParams(), BADMINTON, snap)
    assert restored.state("Unseen") == initial["Unseen"]
    with pytest.raises(EngineError):
        restored.rate(singles(snap.last[0] - timedelta(days=1), "P1", "P2"))  # type: ignore[index]


def test_snapshot_and_result_pickle() -> None:
    replayer = Replayer(SpecParams(), BADMINTON)
    replayer.rate_all(_history(10, seed=6))
    snap = replayer.snapshot()
    assert pickle.loads(pickle.dumps(snap)) == snap
    result = replay(_history(10, seed=6), SpecParams(), BADMINTON)
    again = pickle.loads(pickle.dumps(result))
    assert again == result and isinstance(again.states, MappingProxyType)


def test_replay_function_sorts_by_date_then_id() -> None:
    matches = _history(20, seed=4)
    shuffled = list(reversed(matches))
    result = replay(shuffled, SpecParams(), BADMINTON)
    assert result.matches == tuple(matches)
    in_order = Replayer(SpecParams(), BADMINTON)
    assert list(result.changes) == in_order.rate_all(matches)
    assert dict(result.states) == dict(in_order.states)


@pytest.mark.parametrize("method", ["individual", "composite_team"])
@pytest.mark.parametrize("outcome_model", ["margin_information", "score"])
def test_singles_are_the_same_update_under_three_methods(method: str, outcome_model: str) -> None:
    """With one player a side these methods are §3's plain update, bit for bit: the premise
    of the kernel's singles being §3's update whatever the method."""
    base = SpecParams(composite_rd="rms", outcome_model=outcome_model)
    matches = _history(60, seed=5)
    reference = Replayer(base, BADMINTON)
    other = Replayer(base.with_overrides(team_method=method), BADMINTON)
    assert reference.rate_all(matches) == other.rate_all(matches)


def test_player_changes_are_ordinary_frozen_player_changes() -> None:
    """The C side fills PlayerChange's slots directly: the result is the same object."""
    (ann, bob) = Replayer(SpecParams(), BADMINTON).rate(
        MatchResult(date(2024, 1, 1), ("Ann",), ("Bob",), ((21, 15), (21, 17)))
    )
    assert type(ann) is PlayerChange
    assert ann == PlayerChange(*(getattr(ann, f.name) for f in dataclasses.fields(PlayerChange)))
    assert ann.change == ann.rating_after - ann.rating_before
    with pytest.raises(dataclasses.FrozenInstanceError):
        ann.rating_after = 1.0  # type: ignore[misc]


# -- points at stake (RATINGS.md §6) -------------------------------------------------


def test_stakes_are_what_rating_the_match_would_do_and_store_nothing() -> None:
    matches = _history(40, seed=7)
    replayer = Replayer(SpecParams(), BADMINTON)
    replayer.rate_all(matches)
    before = replayer.snapshot()
    on = matches[-1].played_on + timedelta(days=3)
    stakes = replayer.stakes(("P0",), ("P1",), on)
    assert replayer.snapshot() == before  # nothing stored
    assert set(stakes) == {"a_narrow", "a_clear", "b_narrow", "b_clear"}
    for label, games in (
        ("a_narrow", ((21, 19), (21, 19))),
        ("a_clear", ((21, 15), (21, 15))),
        ("b_narrow", ((19, 21), (19, 21))),
        ("b_clear", ((15, 21), (15, 21))),
    ):
        copy = Replayer.from_snapshot(SpecParams(), BADMINTON, before)
        assert stakes[label] == copy.rate(MatchResult(on, ("P0",), ("P1",), games)), label
    p0 = {label: changes[0].change for label, changes in stakes.items()}
    assert p0["a_clear"] >= p0["a_narrow"] >= 0 >= p0["b_narrow"] >= p0["b_clear"]


def test_stakes_in_other_formats() -> None:
    for fmt, narrow in (
        (get_format("badminton_11"), ((11, 9), (11, 9))),
        (get_format("generic", best_of=5, points_per_game=6), ((6, 5),)),
    ):
        stakes = Replayer(Params(), fmt).stakes(("A", "B"), ("C", "D"), DAY)
        assert [c.margin_multiplier for c in stakes["a_narrow"]] == [
            match_outcome(narrow, fmt.points_per_game).multiplier
        ] * 4
        assert all(c.margin_multiplier == 2.0 for c in stakes["b_clear"])
