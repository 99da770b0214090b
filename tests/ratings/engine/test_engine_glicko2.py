"""RATINGS.md §3: one player's update, steps 1-9 (glicko2.py and the replayer around it)."""

from __future__ import annotations

import functools
import math
from datetime import date

import pytest

from ratings.engine import glicko2
from ratings.engine.formats import get_format
from ratings.engine.replay import Replayer
from ratings.engine.scales import GLICKO2_SCALE as S
from ratings.engine.types import EngineError, MatchResult, Params
from tests.ratings.engine import reference

# RATINGS.md's worked examples (§3, §5) assume §2's scale_factor 400 and margin_clamp 0.25;
# the engine's defaults are measured (docs/RATINGS_EVALUATION.md "Defaults").
SpecParams = functools.partial(Params, scale_factor=400.0, margin_clamp=0.25)

ONE_GAME_TO_21 = get_format("generic", best_of=1, points_per_game=21)


def test_glickmans_worked_example() -> None:
    """Glickman (2012): 1500/200/0.06 vs 1400/30 (win), 1550/100 (loss), 1700/300 (loss)."""
    center = 1500.0
    results = [
        ((1400 - center) / S, 30 / S, 1.0, 1.0),
        ((1550 - center) / S, 100 / S, 0.0, 1.0),
        ((1700 - center) / S, 300 / S, 0.0, 1.0),
    ]
    mu, phi, sigma = glicko2.update(0.0, 200 / S, 0.06, results, tau=0.5, slope=1.0, gate_open=True)
    assert S * mu + center == pytest.approx(1464.05, abs=0.01)
    assert S * phi == pytest.approx(151.52, abs=0.01)
    assert sigma == pytest.approx(0.05999, abs=0.00001)


def test_glickmans_intermediate_quantities() -> None:
    """Steps 3-5 of the example: g, E, v and Delta as Glickman prints them."""
    assert glicko2.g(30 / S) == pytest.approx(0.9955, abs=1e-4)
    assert glicko2.g(100 / S) == pytest.approx(0.9531, abs=1e-4)
    assert glicko2.g(300 / S) == pytest.approx(0.7242, abs=1e-4)
    assert glicko2.expected(0.0, -0.5756, glicko2.g(30 / S)) == pytest.approx(0.639, abs=1e-3)
    assert glicko2.expected(0.0, 0.2878, glicko2.g(100 / S)) == pytest.approx(0.432, abs=1e-3)
    assert glicko2.expected(0.0, 1.1513, glicko2.g(300 / S)) == pytest.approx(0.303, abs=1e-3)
    # v = 1.7785, Delta = -0.4834; the volatility iteration then gives 0.05999.
    sigma = glicko2.new_volatility(-0.4834, 1.1513, 1.7785, 0.06, 0.5)
    assert sigma == pytest.approx(0.05999, abs=1e-5)
    a = math.log(sigma * sigma)
    assert reference.volatility_objective(a, -0.4834, 1.1513, 1.7785, 0.06, 0.5) == pytest.approx(
        0.0, abs=1e-5
    )


def test_two_new_players_21_15() -> None:
    """§3 check: two new players at 4500/250/0.06, one game 21-15, `score` model: about 4599 and 4401."""
    replayer = Replayer(SpecParams(outcome_model="score"), ONE_GAME_TO_21)
    winner, loser = replayer.rate(MatchResult(date(2024, 1, 1), ("Ann",), ("Bob",), ((21, 15),)))
    assert winner.outcome == pytest.approx(0.9625)
    assert loser.outcome == pytest.approx(0.0375)
    assert winner.expected == pytest.approx(0.5)
    assert winner.rating_after == pytest.approx(4599.05, abs=0.01)
    assert loser.rating_after == pytest.approx(4400.95, abs=0.01)
    assert winner.rd_after == pytest.approx(217.93, abs=0.01)
    # Symmetric scale: the two changes mirror each other around the centre (no +4000 typo).
    assert winner.rating_after - 4500 == pytest.approx(4500 - loser.rating_after, abs=1e-9)


def _first_match(params: Params, games: tuple[tuple[int, int], ...]) -> tuple[float, float]:
    winner, loser = Replayer(params, ONE_GAME_TO_21).rate(
        MatchResult(date(2024, 1, 1), ("Ann",), ("Bob",), games)
    )
    assert winner.won and not loser.won
    return winner.change, loser.change


def test_margin_information_clear_win_moves_more_than_narrow() -> None:
    """§3 check: under margin_information 21-15 moves each player more than 22-20 does, and
    both more than margin_boost = 0 (plain Glicko-2 with a win/loss)."""
    clear_w, clear_l = _first_match(SpecParams(), ((21, 15),))
    narrow_w, narrow_l = _first_match(SpecParams(), ((22, 20),))
    plain_w, plain_l = _first_match(SpecParams(margin_boost=0.0), ((21, 15),))
    assert clear_w > narrow_w > plain_w > 0
    assert clear_l < narrow_l < plain_l < 0
    # Equal players: the moves mirror each other.
    assert clear_w == pytest.approx(-clear_l, abs=1e-9)


def test_margin_information_21_15_by_hand() -> None:
    """§3 steps 2-8 for 21-15 between new players, m = 2, worked out from the formulas."""
    phi = 250 / S
    g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
    e = 0.5
    v = 1 / (2 * g**2 * e * (1 - e))
    delta = v * 2 * g * (1 - e)
    sigma = glicko2.new_volatility(delta, phi, v, 0.06, 0.5)
    phi_new = 1 / math.sqrt(1 / (phi**2 + sigma**2) + 1 / v)
    expected = 4500 + S * phi_new**2 * 2 * g * (1 - e)
    winner, loser = Replayer(SpecParams(), ONE_GAME_TO_21).rate(
        MatchResult(date(2024, 1, 1), ("Ann",), ("Bob",), ((21, 15),))
    )
    assert winner.margin_multiplier == pytest.approx(2.0)
    assert winner.outcome == 1.0 and loser.outcome == 0.0
    assert winner.rating_after == pytest.approx(expected, abs=1e-6)
    assert loser.rating_after == pytest.approx(9000 - expected, abs=1e-6)
    assert winner.rd_after == pytest.approx(S * phi_new, abs=1e-6)
    assert not winner.floor_applied and not loser.floor_applied


def test_scale_factor_400_is_standard_glicko2() -> None:
    """§3 step 3: E with scale_factor 400 equals the standard 1 / (1 + exp(-g dmu))."""
    from ratings.engine.scales import expected_slope

    assert expected_slope(400) == pytest.approx(1.0, abs=1e-7)
    g = glicko2.g(0.5)
    assert glicko2.expected(0.4, 0.0, g, expected_slope(200)) == pytest.approx(
        1 / (1 + 10 ** (-g * 0.4 * S / 200))
    )


# -- step 1: inactivity ------------------------------------------------------------


def test_inflate_whole_periods() -> None:
    phi, sigma = 100 / S, 0.06
    assert glicko2.inflate(phi, sigma, 0, 500 / S) == phi
    assert glicko2.inflate(phi, sigma, 3, 500 / S) == pytest.approx(
        math.sqrt(phi**2 + 3 * sigma**2)
    )
    assert glicko2.inflate(phi, 0.5, 1000, 500 / S) == pytest.approx(500 / S)


def _after_gap(days: int, params: Params | None = None) -> float:
    """RD Ann starts her second match with, `days` after her first."""
    replayer = Replayer(params or SpecParams(), ONE_GAME_TO_21)
    first = date(2024, 1, 1)
    replayer.rate(MatchResult(first, ("Ann",), ("Bob",), ((21, 15),)))
    rd_after_first = replayer.state("Ann").rd
    ann, _ = replayer.rate(
        MatchResult(date.fromordinal(first.toordinal() + days), ("Ann",), ("Cat",), ((21, 15),))
    )
    return ann.rd_before - rd_after_first


def test_inactivity_counts_whole_rating_periods() -> None:
    """§3 step 1: n = floor(days / 7); 6 days: no growth; 7 and 13 days: one period; 14: two."""
    replayer = Replayer(SpecParams(), ONE_GAME_TO_21)
    replayer.rate(MatchResult(date(2024, 1, 1), ("Ann",), ("Bob",), ((21, 15),)))
    s = replayer.state("Ann")
    one = S * math.sqrt((s.rd / S) ** 2 + s.volatility**2) - s.rd
    two = S * math.sqrt((s.rd / S) ** 2 + 2 * s.volatility**2) - s.rd
    assert _after_gap(0) == 0
    assert _after_gap(6) == 0
    assert _after_gap(7) == pytest.approx(one)
    assert _after_gap(13) == pytest.approx(one)
    assert _after_gap(14) == pytest.approx(two)


def test_inactivity_capped_at_rd_max() -> None:
    params = SpecParams(initial_volatility=0.5)
    replayer = Replayer(params, ONE_GAME_TO_21)
    replayer.rate(MatchResult(date(2020, 1, 1), ("Ann",), ("Bob",), ((21, 15),)))
    ann, _ = replayer.rate(MatchResult(date(2024, 1, 1), ("Ann",), ("Cat",), ((21, 15),)))
    assert ann.rd_before == pytest.approx(500.0)


def test_new_player_is_not_inflated() -> None:
    """A player's first match starts from their initial RD, however late it is."""
    replayer = Replayer(SpecParams(), ONE_GAME_TO_21)
    replayer.rate(MatchResult(date(2020, 1, 1), ("Ann",), ("Bob",), ((21, 15),)))
    _, cat = replayer.rate(MatchResult(date(2024, 1, 1), ("Ann",), ("Cat",), ((21, 15),)))
    assert cat.rd_before == 250.0


# -- step 6: the volatility iteration -----------------------------------------------


def test_volatility_iteration_cap_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glicko2, "MAX_VOLATILITY_ITERATIONS", 1)
    with pytest.raises(EngineError, match="did not converge in 1 steps"):
        glicko2.new_volatility(-0.4834, 1.1513, 1.7785, 0.06, 0.5)


def test_volatility_nan_input_raises_instead_of_looping() -> None:
    with pytest.raises(EngineError):
        glicko2.new_volatility(float("nan"), 1.0, 1.0, 0.06, 0.5)


def test_volatility_bracket_branch_and_branch_with_big_delta() -> None:
    """Both starting brackets of Glickman's step 5.2 reach a root of f."""
    for delta, phi, v in ((0.1, 1.0, 2.0), (5.0, 0.5, 1.0)):
        sigma = glicko2.new_volatility(delta, phi, v, 0.06, 0.5)
        root = math.log(sigma * sigma)
        assert abs(reference.volatility_objective(root, delta, phi, v, 0.06, 0.5)) < 1e-5
    # A surprising result raises the volatility, an expected one lowers it slightly.
    assert glicko2.new_volatility(5.0, 0.5, 1.0, 0.06, 0.5) > 0.06
    assert glicko2.new_volatility(0.1, 1.0, 2.0, 0.06, 0.5) < 0.06


def test_volatility_converges_against_an_opponent_out_of_reach() -> None:
    """6259 against 2000 at scale factor 100 (found by hypothesis): E (1 - E) underflows, v
    is ~3e42 and the root lies within one ulp of ln sigma^2, so the Illinois halving needs
    101 steps to step off it. The volatility stays where it was; no error."""
    sigma = glicko2.new_volatility(0.0, 0.11512924985234672, 3.207804861836655e42, 0.25, 0.25)
    assert sigma == pytest.approx(0.25, abs=1e-12)


def test_volatility_iteration_is_the_illinois_method() -> None:
    """The iteration converges to f's root to within epsilon in x = ln sigma^2."""
    delta, phi, v, sigma, tau = -0.4834, 1.1513, 1.7785, 0.06, 0.5
    x = math.log(glicko2.new_volatility(delta, phi, v, sigma, tau) ** 2)
    f = reference.volatility_objective
    # f changes sign within epsilon of the returned root.
    assert f(x - 1e-6, delta, phi, v, sigma, tau) * f(x + 1e-6, delta, phi, v, sigma, tau) <= 0


# -- step 7: the diversity gate ----------------------------------------------------


def test_gate_closed_keeps_rd_from_shrinking() -> None:
    phi = 120 / S
    opp = [(0.0, 100 / S, 0.9, 1.0)]
    open_mu, open_phi, _ = glicko2.update(0.0, phi, 0.06, opp, 0.5, 1.0, gate_open=True)
    shut_mu, shut_phi, shut_sigma = glicko2.update(0.0, phi, 0.06, opp, 0.5, 1.0, gate_open=False)
    assert open_phi < phi
    assert shut_phi == pytest.approx(math.sqrt(phi**2 + shut_sigma**2))
    assert shut_phi >= phi
    # Step 8 uses phi': a closed gate makes the rating move more, not less.
    assert shut_mu > open_mu > 0


def test_update_one_equals_update_with_one_result() -> None:
    args = (0.3, 0.9, 0.07)
    many = glicko2.update(*args, [(-0.2, 0.6, 0.8, 0.7)], 0.4, 1.2, True)
    one = glicko2.update_one(*args, -0.2, 0.6, 0.8, 0.7, 0.4, 1.2, True)
    assert one[:3] == many
    assert one[3] == glicko2.expected(0.3, -0.2, glicko2.g(0.6), 1.2)


def test_update_needs_an_opponent() -> None:
    with pytest.raises(EngineError):
        glicko2.update(0.0, 1.0, 0.06, [], 0.5)


def test_extreme_gap_stays_finite() -> None:
    """E within 1e-16 of 1 must not divide by zero (E(1-E) is computed without cancellation)."""
    mu, phi, sigma, e = glicko2.update_one(
        (9000 - 4500) / S, 30 / S, 0.06, (2000 - 4500) / S, 30 / S, 0.9625, 1.0, 0.5, 1.0, True
    )
    assert all(math.isfinite(x) for x in (mu, phi, sigma, e))
    assert e < 1.0 or e == 1.0
