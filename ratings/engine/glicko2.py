"""One player's margin-aware Glicko-2 update (RATINGS.md §3), on the Glicko-2 scale.

Everything here takes and returns plain floats (mu, phi, sigma): it is the hot loop
of every replay, so it builds no objects beyond the returned tuple. Rating points <->
Glicko-2 scale conversions live in `scales`; steps 4 and 7 (counting repeat opponents
and distinct opponents) in `replay`, which hands the weight and the gate in here.

`_native.c` repeats `update_one` and `new_volatility` in C for `Replayer.rate_all` (same
operations in the same order: the same results bit for bit); a change here must be made
there too, and tests/ratings/engine/test_engine_native.py checks that they agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import exp, log, pi, sqrt

from ratings.engine.types import EngineError

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
    """Step 1: RD grown by `periods` whole rating periods without a match, capped at `phi_max`."""
    if periods <= 0:
        return phi
    grown = sqrt(phi * phi + periods * sigma * sigma)
    return grown if grown < phi_max else phi_max


def volatility_objective(
    x: float, delta: float, phi: float, v: float, sigma: float, tau: float
) -> float:
    """Glickman's `f(x)`, whose root `A` gives `sigma' = exp(A / 2)` (the readable form of step 6)."""
    ex = exp(x)
    den = phi * phi + v + ex
    return ex * (delta * delta - phi * phi - v - ex) / (2.0 * den * den) - (
        x - log(sigma * sigma)
    ) / (tau * tau)


def new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 6: sigma' by Glickman's (2012) Illinois iteration (step 5 of his paper).

    Solves `volatility_objective(x) = 0` to `VOLATILITY_EPSILON` and raises EngineError past
    the iteration caps. For speed `f` is written out inline: a function call per
    evaluation would cost a third of the update.
    """
    a = log(sigma * sigma)
    p2v = phi * phi + v
    rest = delta * delta - p2v  # Delta^2 - phi^2 - v
    inv_tau2 = 1.0 / (tau * tau)
    # f(a): the (x - a) term vanishes and e^a = sigma^2.
    ex = sigma * sigma
    den = p2v + ex
    f_a = ex * (rest - ex) / (2.0 * den * den)
    big_a = a
    if rest > 0.0:
        big_b = log(rest)
        # e^B = Delta^2 - phi^2 - v: the first term of f(B) is exactly zero.
        f_b = -(big_b - a) * inv_tau2
    else:
        k = 0
        while True:
            k += 1
            if k > MAX_BRACKET_STEPS:
                raise EngineError(
                    f"volatility bracket not found after {MAX_BRACKET_STEPS} steps "
                    f"(Delta={delta!r}, phi={phi!r}, v={v!r}, sigma={sigma!r}, tau={tau!r})"
                )
            big_b = a - k * tau
            ex = exp(big_b)
            den = p2v + ex
            f_b = ex * (rest - ex) / (2.0 * den * den) + k * tau * inv_tau2
            if f_b >= 0.0:
                break
    iterations = 0
    cap = MAX_VOLATILITY_ITERATIONS
    while abs(big_b - big_a) > VOLATILITY_EPSILON:
        iterations += 1
        if iterations > cap:
            raise EngineError(
                f"volatility iteration did not converge in {cap} steps "
                f"(Delta={delta!r}, phi={phi!r}, v={v!r}, sigma={sigma!r}, tau={tau!r})"
            )
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        ex = exp(big_c)
        den = p2v + ex
        f_c = ex * (rest - ex) / (2.0 * den * den) - (big_c - a) * inv_tau2
        if f_c * f_b <= 0.0:
            big_a = big_b
            f_a = f_b
        else:
            f_a = f_a / 2.0
        big_b = big_c
        f_b = f_c
    return exp(big_a / 2.0)


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
    sigma_new = new_volatility(v * improvement, phi, v, sigma, tau)
    phi_star_sq = phi * phi + sigma_new * sigma_new
    if gate_open:
        phi_new = 1.0 / sqrt(1.0 / phi_star_sq + 1.0 / v)
    else:
        phi_star = sqrt(phi_star_sq)
        phi_new = phi if phi > phi_star else phi_star
    return mu + phi_new * phi_new * improvement, phi_new, sigma_new


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
    if not results:
        raise EngineError("an update needs at least one opponent")
    information = 0.0
    improvement = 0.0
    for mu_j, phi_j, s_j, w_j in results:
        g_j = 1.0 / sqrt(1.0 + THREE_OVER_PI_SQUARED * phi_j * phi_j)
        z = exp(-g_j * (mu - mu_j) * slope)
        e_j = 1.0 / (1.0 + z)
        # E (1 - E) written as z / (1 + z)^2 keeps its precision when E is within 1e-16 of 1.
        information += w_j * g_j * g_j * z * e_j * e_j
        improvement += w_j * g_j * (s_j - e_j)
    return finish(mu, phi, sigma, 1.0 / information, improvement, tau, gate_open)


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
    """`update` against a single (possibly composite) opponent: (mu', phi', sigma', E).

    The same arithmetic as `update` with one result, without building the sequence.
    """
    g_o = 1.0 / sqrt(1.0 + THREE_OVER_PI_SQUARED * phi_opp * phi_opp)
    z = exp(-g_o * (mu - mu_opp) * slope)
    e = 1.0 / (1.0 + z)
    v = 1.0 / (weight * g_o * g_o * z * e * e)
    improvement = weight * g_o * (score - e)
    # Steps 6-8 as in `finish`, written out: this is the hot path of every singles replay.
    sigma_new = new_volatility(v * improvement, phi, v, sigma, tau)
    phi_star_sq = phi * phi + sigma_new * sigma_new
    if gate_open:
        phi_new = 1.0 / sqrt(1.0 / phi_star_sq + 1.0 / v)
    else:
        phi_star = sqrt(phi_star_sq)
        phi_new = phi if phi > phi_star else phi_star
    return mu + phi_new * phi_new * improvement, phi_new, sigma_new, e
