"""RATINGS.md §4: the starting state from a self-assessment."""

from __future__ import annotations

import pytest

from ratings.engine.initial import CERTAINTY, LEVELS, default_state, initial_state
from ratings.engine.types import EngineError, Params, PlayerState


def test_levels_2_to_6_in_half_steps_with_descriptions() -> None:
    assert [level for level, _ in LEVELS] == [2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0]
    assert all(len(text) > 10 for _, text in LEVELS)


def test_certainty_choices() -> None:
    assert CERTAINTY == (
        ("rated", "I have a rating from league or tournament play", 150),
        ("regular", "I play regularly", 200),
        ("unsure", "New or not sure", 250),
    )


@pytest.mark.parametrize(
    ("level", "rating"), [(4.5, 4500.0), (2.0, 2000.0), (6.0, 6000.0), ("3.5", 3500.0)]
)
def test_level_sets_rating(level, rating: float) -> None:
    state = initial_state(Params(), level=level, certainty="rated")
    assert state == PlayerState(rating=rating, rd=150.0, volatility=0.06)


@pytest.mark.parametrize(
    ("certainty", "rd"), [("rated", 150.0), ("regular", 200.0), ("unsure", 250.0)]
)
def test_certainty_sets_rd(certainty: str, rd: float) -> None:
    assert initial_state(Params(), level=4.0, certainty=certainty).rd == rd


def test_no_answer_uses_ladder_defaults() -> None:
    params = Params(initial_rating=4000.0, initial_rd=300.0, initial_volatility=0.07)
    assert initial_state(params) == PlayerState(4000.0, 300.0, 0.07)
    assert default_state(params) == PlayerState(4000.0, 300.0, 0.07)


def test_level_without_certainty_uses_ladder_rd() -> None:
    assert initial_state(Params(initial_rd=220.0), level=5.0) == PlayerState(5000.0, 220.0, 0.06)


def test_certainty_without_level_uses_ladder_rating() -> None:
    assert initial_state(Params(), certainty="regular") == PlayerState(4500.0, 200.0, 0.06)


def test_glicko1_team_default_rd() -> None:
    params = Params(team_method="glicko1_team")
    assert initial_state(params).rd == 130.0
    assert initial_state(params, level=4.5, certainty="unsure").rd == 250.0


@pytest.mark.parametrize("level", [1.5, 6.5, 4.25, "high", True, "nan"])
def test_invalid_level(level) -> None:
    with pytest.raises(EngineError, match="level"):
        initial_state(Params(), level=level)


def test_invalid_certainty() -> None:
    with pytest.raises(EngineError, match="unknown certainty"):
        initial_state(Params(), level=4.5, certainty="very")
