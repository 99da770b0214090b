"""RATINGS.md §3 step 2: the outcome from the score."""

from __future__ import annotations

import functools

import pytest

from ratings.engine.outcome import match_outcome
from ratings.engine.types import EngineError, Params

# RATINGS.md's worked examples (§3, §5) assume §2's scale_factor 400 and margin_clamp 0.25;
# the engine's defaults are measured (docs/RATINGS_EVALUATION.md "Defaults").
SpecParams = functools.partial(Params, scale_factor=400.0, margin_clamp=0.25)

SCORE = SpecParams(outcome_model="score")


def test_21_15_is_clamped_to_0_9625() -> None:
    o = match_outcome(((21, 15),), 21, SCORE)
    assert o.winner == "a"
    assert o.margin_ratio == pytest.approx(0.25)  # 6 / 21 = 0.2857, clamped
    assert o.s_winner == pytest.approx(0.9625)
    assert o.s_loser == pytest.approx(0.0375)
    assert o.s_a == pytest.approx(0.9625) and o.s_b == pytest.approx(0.0375)


def test_close_three_game_match() -> None:
    """A game the winner lost counts negative: (2 - 2 + 2) / 3 / 21."""
    o = match_outcome(((21, 19), (19, 21), (21, 19)), 21, SCORE)
    ratio = (2 - 2 + 2) / 3 / 21
    assert o.margin_ratio == pytest.approx(ratio)
    assert o.s_winner == pytest.approx(0.5 + 0.4 + 0.25 * ratio)


def test_winner_on_side_b() -> None:
    o = match_outcome(((15, 21), (18, 21)), 21, SCORE)
    assert o.winner == "b"
    assert o.margin_ratio == pytest.approx(4.5 / 21)
    assert o.s_b == pytest.approx(0.9 + 0.25 * 4.5 / 21)
    assert o.s_a == pytest.approx(1 - o.s_b)


def test_winner_with_fewer_points_has_a_negative_margin_clamped() -> None:
    o = match_outcome(((21, 19), (0, 21), (21, 19)), 21, SCORE)
    assert o.winner == "a"
    assert o.margin_ratio == pytest.approx(-0.25)  # (2 - 21 + 2) / 3 / 21 = -0.27
    assert o.s_winner == pytest.approx(0.8375)


def test_points_per_game_sets_the_scale() -> None:
    assert match_outcome(((11, 9),), 11).margin_ratio == pytest.approx(2 / 11)
    assert match_outcome(((16, 14),), 16).margin_ratio == pytest.approx(2 / 16)


def test_outcome_clamped_to_0_1() -> None:
    params = SpecParams(
        outcome_model="score", match_win_bonus=0.5, margin_weight=1.0, margin_clamp=1.0
    )
    assert match_outcome(((21, 0),), 21, params).s_winner == 1.0


def test_no_winner_raises() -> None:
    with pytest.raises(EngineError):
        match_outcome(((21, 15), (15, 21)), 21)
    with pytest.raises(EngineError):
        match_outcome((), 21)


# -- margin_information (the default) -------------------------------------------------


def test_margin_information_21_15_gives_m_2() -> None:
    """RATINGS.md §3 step 2's example: 21-15 -> ratio 0.2857, clamped 0.25, m = 2."""
    o = match_outcome(((21, 15),), 21, SpecParams())
    assert o.winner == "a" and o.a_won
    assert o.s_winner == 1.0 and o.s_a == 1.0 and o.s_b == 0.0
    assert o.margin_ratio == pytest.approx(0.25)
    assert o.multiplier == pytest.approx(2.0)


def test_margin_information_22_20_gives_m_1_38() -> None:
    o = match_outcome(((20, 22),), 21, SpecParams())
    assert o.winner == "b" and not o.a_won
    assert o.s_b == 1.0 and o.s_a == 0.0
    assert o.margin_ratio == pytest.approx(2 / 21)
    assert o.multiplier == pytest.approx(1 + (2 / 21) / 0.25)  # 1.38
    assert round(o.multiplier, 2) == 1.38


def test_margin_information_negative_margin_counts_zero() -> None:
    """A winner who scored fewer points overall: the mean margin counts 0, m = 1."""
    o = match_outcome(((21, 19), (0, 21), (21, 19)), 21)
    assert o.winner == "a" and o.s_winner == 1.0
    assert o.margin_ratio == 0.0 and o.multiplier == 1.0


@pytest.mark.parametrize("boost", [0.0, 0.5, 1.0, 3.0])
def test_margin_boost_scales_m(boost: float) -> None:
    params = SpecParams(margin_boost=boost)
    assert match_outcome(((21, 0),), 21, params).multiplier == pytest.approx(1 + boost)
    assert match_outcome(((21, 19),), 21, params).multiplier == pytest.approx(
        1 + boost * (2 / 21) / 0.25
    )


def test_margin_clamp_zero_ignores_the_margin() -> None:
    o = match_outcome(((21, 0),), 21, SpecParams(margin_clamp=0.0))
    assert o.multiplier == 1.0 and o.s_winner == 1.0


def test_score_model_has_no_multiplier() -> None:
    assert match_outcome(((21, 0),), 21, SCORE).multiplier == 1.0


def test_winner_is_decided_by_games_not_by_s() -> None:
    """Under `score` with no bonus a winner who lost on points gets s below 0.5, still the winner."""
    params = SpecParams(outcome_model="score", match_win_bonus=0.0)
    o = match_outcome(((21, 19), (0, 21), (21, 19)), 21, params)
    assert o.s_winner < 0.5 and o.winner == "a" and o.a_won


def test_unknown_outcome_model_raises() -> None:
    with pytest.raises(EngineError, match="outcome_model"):
        match_outcome(((21, 15),), 21, SpecParams(outcome_model="elo"))
