"""One player's margin-aware Glicko-2 update (RATINGS.md §3), on the Glicko-2 scale.

Steps 3-8 are computed by the C kernel (`_native.c`), the one implementation of the
rating update that every path calls: these functions hand it plain floats and the
constants below. Rating points <-> Glicko-2 scale conversions live in `scales`; steps 4
and 7 (counting repeat opponents and distinct opponents) in the replay, which hands the
weight and the gate in. A readable model of the same rules, used only to check the
kernel, is tests/ratings/engine/reference.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import exp, pi, sqrt

from ratings.engine import _native
from ratings.engine.scales import GLICKO2_SCALE

# Glickman (2012) step 5: convergence tolerance of the volatility iteration.
VOLATILITY_EPSILON = 1e-6
# The Illinois iteration converges superlinearly: a few to a dozen steps in practice. One
# case is slow: an opponent so far apart that E (1 - E) underflows makes v astronomically
# large, f(ln sigma^2) is ~1e-44, the root sits within one ulp of ln sigma^2, and only the
# Illinois halving of f_A (once per step) moves C off it: 101 steps for 6259 against 2000
# at scale factor 100, never more than ~2,100 for doubles (1e308 down to 5e-324). Past
# this many something is badly wrong (broken parameters): stop loudly.
MAX_VOLATILITY_ITERATIONS = 10_000
# Glickman step 5.2 walks down from ln(sigma^2) in steps of tau until f >= 0. The second
# term of f(a - k tau) is k / tau and the first is bounded, so a few steps always suffice
# for finite inputs; more means NaN or infinity got in.
MAX_BRACKET_STEPS = 100
THREE_OVER_PI_SQUARED = 3.0 / (pi * pi)


def g(phi: float) -> float:
    """Glicko-2 `g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)`: how much an uncertain opponent counts."""
    return 1.0 / sqrt(1.0 + THREE_OVER_PI_SQUARED * phi * phi)


def expected(mu: float, mu_opp: float, g_opp: float, slope: float = 1.0) -> float:
    """`E = 1 / (1 + 10^(-g (mu - mu_opp) 173.7178 / scale_factor))` with `slope` from scales."""
    return 1.0 / (1.0 + exp(-g_opp * (mu - mu_opp) * slope))


def inflate(phi: float, sigma: float, periods: int, phi_max: float) -> float:
    """Step 1: RD grown by `periods` whole rating periods without a match, capped at `phi_max`
    (the kernel's, which the replay runs too)."""
    return float(_native.inflate(phi, sigma, periods, phi_max))


def maths(tau: float, slope: float = 1.0) -> tuple[float, float, float, float, float, int, int]:
    """The arithmetic's constants as the C kernel takes them (`_native.c` parse_maths)."""
    return (
        GLICKO2_SCALE,
        tau,
        slope,
        THREE_OVER_PI_SQUARED,
        VOLATILITY_EPSILON,
        MAX_VOLATILITY_ITERATIONS,
        MAX_BRACKET_STEPS,
    )


def new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 6: sigma' by Glickman's (2012) Illinois iteration (step 5 of his paper).

    Solves Glickman's `f(x) = 0` to `VOLATILITY_EPSILON`; raises EngineError past the
    iteration caps.
    """
    return float(_native.new_volatility(delta, phi, v, sigma, maths(tau)))


def finish(
    mu: float,
    phi: float,
    sigma: float,
    v: float,
    improvement: float,
    tau: float,
    gate_open: bool,
) -> tuple[float, float, float]:
    """Steps 6-8 from `v` and `improvement = sum(weight_j g_j (s_j - E_j))`: (mu', phi', sigma').

    With the gate closed (too few distinct opponents) RD cannot shrink: `phi' = max(phi, phi*)`.
    """
    result: tuple[float, float, float] = _native.finish(
        mu, phi, sigma, v, improvement, gate_open, maths(tau)
    )
    return result


def update(
    mu: float,
    phi: float,
    sigma: float,
    results: Sequence[tuple[float, float, float, float]],
    tau: float,
    slope: float = 1.0,
    gate_open: bool = True,
) -> tuple[float, float, float]:
    """Steps 3-8 against several opponents in one rating period: (mu', phi', sigma').

    `results` holds `(mu_j, phi_j, s_j, weight_j)` per opponent. Inactivity (step 1) must
    already be applied to `phi`; bounds (step 9) are applied by the caller.
    """
    result: tuple[float, float, float] = _native.update(
        mu, phi, sigma, results, gate_open, maths(tau, slope)
    )
    return result


def update_one(
    mu: float,
    phi: float,
    sigma: float,
    mu_opp: float,
    phi_opp: float,
    score: float,
    weight: float,
    tau: float,
    slope: float,
    gate_open: bool,
) -> tuple[float, float, float, float]:
    """`update` against a single (possibly composite) opponent: (mu', phi', sigma', E)."""
    result: tuple[float, float, float, float] = _native.update_one(
        mu, phi, sigma, mu_opp, phi_opp, score, weight, gate_open, maths(tau, slope)
    )
    return result
