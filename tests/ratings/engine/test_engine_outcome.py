"""RATINGS.md §3 step 2: the outcome from the score."""

from __future__ import annotations

import pytest

from ratings.engine.outcome import match_outcome
from ratings.engine.types import EngineError, Params


def test_21_15_is_clamped_to_0_9625() -> None:
    o = match_outcome(((21, 15),), 21)
    assert o.winner == "a"
    assert o.margin_ratio == pytest.approx(0.25)  # 6 / 21 = 0.2857, clamped
    assert o.s_winner == pytest.approx(0.9625)
    assert o.s_loser == pytest.approx(0.0375)
    assert o.s_a == pytest.approx(0.9625) and o.s_b == pytest.approx(0.0375)


def test_close_three_game_match() -> None:
    """A game the winner lost counts negative: (2 - 2 + 2) / 3 / 21."""
    o = match_outcome(((21, 19), (19, 21), (21, 19)), 21)
    ratio = (2 - 2 + 2) / 3 / 21
    assert o.margin_ratio == pytest.approx(ratio)
    assert o.s_winner == pytest.approx(0.5 + 0.4 + 0.25 * ratio)


def test_winner_on_side_b() -> None:
    o = match_outcome(((15, 21), (18, 21)), 21)
    assert o.winner == "b"
    assert o.margin_ratio == pytest.approx(4.5 / 21)
    assert o.s_b == pytest.approx(0.9 + 0.25 * 4.5 / 21)
    assert o.s_a == pytest.approx(1 - o.s_b)


def test_winner_with_fewer_points_has_a_negative_margin_clamped() -> None:
    o = match_outcome(((21, 19), (0, 21), (21, 19)), 21)
    assert o.winner == "a"
    assert o.margin_ratio == pytest.approx(-0.25)  # (2 - 21 + 2) / 3 / 21 = -0.27
    assert o.s_winner == pytest.approx(0.8375)


def test_points_per_game_sets_the_scale() -> None:
    assert match_outcome(((11, 9),), 11).margin_ratio == pytest.approx(2 / 11)
    assert match_outcome(((16, 14),), 16).margin_ratio == pytest.approx(2 / 16)


def test_outcome_clamped_to_0_1() -> None:
    params = Params(match_win_bonus=0.5, margin_weight=1.0, margin_clamp=1.0)
    assert match_outcome(((21, 0),), 21, params).s_winner == 1.0


def test_no_winner_raises() -> None:
    with pytest.raises(EngineError):
        match_outcome(((21, 15), (15, 21)), 21)
    with pytest.raises(EngineError):
        match_outcome((), 21)
