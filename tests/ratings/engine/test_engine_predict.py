"""RATINGS.md §6: win probability and match quality."""

from __future__ import annotations

import functools
import math
from datetime import date

import pytest

from ratings.engine.predict import inactivity_periods, inflated_rd, match_quality, win_probability
from ratings.engine.types import EngineError, Params, PlayerState

# RATINGS.md's worked examples (§3, §5) assume §2's scale_factor 400 and margin_clamp 0.25;
# the engine's defaults are measured (docs/RATINGS_EVALUATION.md "Defaults").
SpecParams = functools.partial(Params, scale_factor=400.0, margin_clamp=0.25)

S = 173.7178
PARAMS = SpecParams()
DAY = date(2024, 6, 1)


def st(
    rating: float, rd: float = 100.0, last: date | None = None, vol: float = 0.06
) -> PlayerState:
    return PlayerState(rating, rd, vol, matches=1 if last else 0, last_played=last)


def test_equal_sides_are_even() -> None:
    assert win_probability([st(4500)], [st(4500)], PARAMS) == pytest.approx(0.5)
    assert win_probability([st(4600), st(4400)], [st(4500), st(4500)], PARAMS) == pytest.approx(0.5)


def test_formula_by_hand() -> None:
    """Doubles: mean mu, RMS phi per side, g of the combined phi."""
    a, b = [st(4800, 100), st(4600, 200)], [st(4500, 150), st(4300, 50)]
    mu_a, mu_b = (4700 - 4500) / S, (4400 - 4500) / S
    phi_a = math.sqrt((100**2 + 200**2) / 2) / S
    phi_b = math.sqrt((150**2 + 50**2) / 2) / S
    g = 1 / math.sqrt(1 + 3 * (phi_a**2 + phi_b**2) / math.pi**2)
    expected = 1 / (1 + 10 ** (-g * (mu_a - mu_b) * S / 400))
    assert win_probability(a, b, PARAMS) == pytest.approx(expected)
    assert win_probability(a, b, SpecParams(scale_factor=200)) == pytest.approx(
        1 / (1 + 10 ** (-g * (mu_a - mu_b) * S / 200))
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [([st(5000)], [st(4200, 300)]), ([st(4100, 50), st(6000, 250)], [st(4700), st(4800, 120)])],
)
def test_symmetry(a, b) -> None:
    assert win_probability(a, b, PARAMS) + win_probability(b, a, PARAMS) == pytest.approx(1.0)
    assert match_quality(a, b, PARAMS) == pytest.approx(match_quality(b, a, PARAMS))


def test_stronger_side_favoured() -> None:
    assert win_probability([st(5000)], [st(4500)], PARAMS) > 0.5
    assert win_probability([st(4000)], [st(4500)], PARAMS) < 0.5


def test_inflation_up_to_the_prediction_date() -> None:
    """Each RD grows for the whole periods up to `on`; more uncertainty pulls P toward 0.5."""
    a = [st(5000, 60, last=date(2024, 1, 1))]
    b = [st(4500, 60, last=date(2024, 1, 1))]
    soon = win_probability(a, b, PARAMS, on=date(2024, 1, 3))
    later = win_probability(a, b, PARAMS, on=date(2025, 1, 1))
    assert soon == win_probability(a, b, PARAMS)  # under one period: no growth
    assert 0.5 < later < soon
    periods = inactivity_periods(date(2024, 1, 1), date(2025, 1, 1), PARAMS)
    assert periods == 366 // 7
    assert inflated_rd(a[0], date(2025, 1, 1), PARAMS) == pytest.approx(
        S * math.sqrt((60 / S) ** 2 + periods * 0.06**2)
    )
    assert inflated_rd(a[0], date(2124, 1, 1), PARAMS) == pytest.approx(500.0)
    assert inflated_rd(st(4500, 60), date(2124, 1, 1), PARAMS) == 60.0  # never played
    assert inflated_rd(a[0], date(2023, 1, 1), PARAMS) == 60.0  # a date before: no change


def test_quality_by_hand() -> None:
    a, b = [st(4600, 80), st(4400, 60)], [st(4550, 100), st(4500, 100)]
    rd_a, rd_b = math.sqrt((80**2 + 60**2) / 2), 100.0
    r_a = 4500 + 0.5 * (350 - rd_a)
    r_b = 4525 + 0.5 * (350 - rd_b)
    expected = 1 / (1 + (abs(r_a - r_b) / 400) ** 2 + (rd_a**2 + rd_b**2) / 400**2)
    assert match_quality(a, b, PARAMS) == pytest.approx(expected)


def test_quality_range() -> None:
    near_ideal = match_quality([st(4500, 30), st(4500, 30)], [st(4500, 30), st(4500, 30)], PARAMS)
    assert 0.98 < near_ideal <= 1.0
    lopsided = match_quality([st(9000, 500)], [st(2000, 500)], PARAMS)
    assert 0 < lopsided < 0.01
    assert match_quality([st(4500, 0.0)], [st(4500, 0.0)], PARAMS) == 1.0


def test_quality_prefers_close_and_certain() -> None:
    even = match_quality([st(4500, 60)], [st(4520, 60)], PARAMS)
    uneven = match_quality([st(4500, 60)], [st(4900, 60)], PARAMS)
    unsure = match_quality([st(4500, 250)], [st(4520, 250)], PARAMS)
    assert even > uneven and even > unsure


def test_empty_side() -> None:
    with pytest.raises(EngineError):
        win_probability([], [st(4500)], PARAMS)
    with pytest.raises(EngineError):
        match_quality([st(4500)], [], PARAMS)
