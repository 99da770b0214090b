"""Team methods (RATINGS.md §5): how partners and opponents count in one match.

`rate_sides` takes each player's state at the start of the match (RD already grown
for inactivity, repetition weights and the diversity gate already counted by the
replayer) and the match's `Outcome`, and returns each player's new, bounded state.
Singles go through the same functions: with one player a side, every method but
glicko1_team reduces to the plain single-opponent update of §3.

The information multiplier `m` (§3 step 2) multiplies the repetition weight wherever
the weight appears; glicko1_team, which has no weight, takes `m` as §5 states. Every
method ends in `_bounded`: §3 step 9's bounds and the wrong-way floor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import exp, log, pi, sqrt
from typing import NamedTuple

from ratings.engine import glicko2
from ratings.engine.outcome import Outcome
from ratings.engine.scales import GLICKO2_SCALE, clamp, expected_slope
from ratings.engine.types import COMPOSITE_RD_CHOICES, TEAM_METHODS, EngineError, Params

# performance_weighted: keeps the z-score finite when every player on a side scored the same.
PERFORMANCE_EPSILON = 1e-6
# glicko1_team works in rating points with Glicko-1's q and the boost of the Pokémon 2v2 seed:
# b(RD) = 0.5 (350 - RD), no boost at 350 (Glicko-1's RD for an unrated player).
G1_Q = log(10.0) / 400.0
G1_BOOST_SLOPE = 0.5
G1_BOOST_ZERO_RD = 350.0
G1_THREE_Q2_OVER_PI2 = 3.0 * G1_Q * G1_Q / (pi * pi)


class Contestant(NamedTuple):
    """One player at the start of a match, as the replayer hands them to a team method."""

    name: str
    rating: float
    rd: float  # after inactivity inflation (§3 step 1)
    volatility: float
    weights: tuple[float, ...]  # repetition weight against each opponent, in the other side's order
    gate_open: bool  # §3 step 7: enough distinct opponents for RD to shrink
    stats: Mapping[str, float] | None = None


class Result(NamedTuple):
    """One player's new state (bounded, §1) and what produced it."""

    rating: float
    rd: float
    volatility: float
    expected: float
    repetition_weight: float
    performance_weight: float
    floor_applied: bool


def composite_phi(phis: Sequence[float], how: str) -> float:
    """A side's RD on the Glicko-2 scale: `mean`, `rms_of_mean` (sqrt(sum phi^2) / n) or `rms`."""
    n = len(phis)
    if how == "mean":
        return sum(phis) / n
    squares = sum(p * p for p in phis)
    if how == "rms_of_mean":
        return sqrt(squares) / n
    if how == "rms":
        return sqrt(squares / n)
    raise EngineError(
        f"unknown composite_rd {how!r}; choose one of {', '.join(COMPOSITE_RD_CHOICES)}"
    )


def performance_weights(
    stats: Sequence[Mapping[str, float] | None], params: Params
) -> tuple[float, ...]:
    """Per-player weights of one side (§5 performance_weighted), mean 1.

    `p = sum(stat_weight * value)`, `z = (p - mean) / sqrt(pop_variance + 1e-6)`,
    `w = clamp(1 + alpha z, w_min, w_max)`, normalised to the side's mean. A side where
    any player has no stats gets weight 1 for everyone: performances cannot be compared.
    """
    n = len(stats)
    complete = [s for s in stats if s is not None]
    if n == 0 or len(complete) < n:
        return (1.0,) * n
    weights_of_stat = params.stat_weights
    scores = [
        sum((weights_of_stat.get(stat, 0.0) * value for stat, value in s.items()), 0.0)
        for s in complete
    ]
    mean = sum(scores) / n
    spread = sqrt(sum((p - mean) ** 2 for p in scores) / n + PERFORMANCE_EPSILON)
    raw = [
        clamp(
            1.0 + params.perf_alpha * (p - mean) / spread,
            params.perf_weight_min,
            params.perf_weight_max,
        )
        for p in scores
    ]
    total = sum(raw)
    return tuple(w * n / total for w in raw)


def g1_boost(rd: float) -> float:
    """The certainty boost of the Pokémon 2v2 seed: `b(RD) = 0.5 (350 - RD)`."""
    return G1_BOOST_SLOPE * (G1_BOOST_ZERO_RD - rd)


def rms(values: Sequence[float]) -> float:
    """Root mean square: a team's RD in the Glicko-1 seed and in §6."""
    return sqrt(sum(x * x for x in values) / len(values))


class _Side(NamedTuple):
    """What a team method needs of the result, from one side's view."""

    s: float  # the side's outcome
    m: float  # the match's information multiplier
    won: bool


def rate_sides(
    side_a: Sequence[Contestant],
    side_b: Sequence[Contestant],
    outcome: Outcome,
    params: Params,
) -> tuple[tuple[Result, ...], tuple[Result, ...]]:
    """Every player's new state after one match with `outcome` (§3 step 2)."""
    if not side_a or not side_b:
        raise EngineError("each side needs at least one player")
    method = params.team_method
    rate = _METHODS.get(method)
    if rate is None:
        raise EngineError(
            f"unknown team method {method!r}; choose one of {', '.join(TEAM_METHODS)}"
        )
    m, a_won = outcome.multiplier, outcome.a_won
    return (
        rate(side_a, side_b, _Side(outcome.s_a, m, a_won), params),
        rate(side_b, side_a, _Side(outcome.s_b, m, not a_won), params),
    )


def _bounded(
    params: Params, rating: float, before: float, rd: float, won: bool
) -> tuple[float, float, bool]:
    """§3 step 9: rating clamped, RD capped, then the wrong-way floor: (rating, rd, floored).

    A winner's rating never ends below `before`, a loser's never above it.
    """
    rating = clamp(rating, params.rating_min, params.rating_max)
    floored = False
    if params.wrong_way_floor and (rating < before if won else rating > before):
        rating, floored = before, True
    return rating, (rd if rd < params.rd_max else params.rd_max), floored


def _moved(params: Params, rating: float, mu_new: float) -> float:
    """The new rating in points as the old one plus the change, `R + 173.7178 (mu' - mu)`.

    Not `173.7178 mu' + centre`: that round trip can land an ulp below `R` when `mu'`
    equals `mu`, and a winner whose update did not move them would seem to lose rating.
    Written as a change, a step the right way never ends the wrong side of `R`.
    """
    return rating + GLICKO2_SCALE * (mu_new - _mu(params, rating))


def _mu(params: Params, rating: float) -> float:
    return (rating - params.rating_center) / GLICKO2_SCALE


def _composite_updates(
    side: Sequence[Contestant], opponents: Sequence[Contestant], r: _Side, params: Params, how: str
) -> list[tuple[float, float, float, float, float]]:
    """Unbounded (mu', phi', sigma', E, weight) of each player against the composite opponent."""
    mu_c = sum(_mu(params, o.rating) for o in opponents) / len(opponents)
    phi_c = composite_phi([o.rd / GLICKO2_SCALE for o in opponents], how)
    slope = expected_slope(params.scale_factor)
    updates = []
    for p in side:
        weight = sum(p.weights) / len(p.weights)
        mu, phi, sigma, e = glicko2.update_one(
            _mu(params, p.rating),
            p.rd / GLICKO2_SCALE,
            p.volatility,
            mu_c,
            phi_c,
            r.s,
            weight * r.m,
            params.tau,
            slope,
            p.gate_open,
        )
        updates.append((mu, phi, sigma, e, weight))
    return updates


def _composite_opponent(
    side: Sequence[Contestant], opponents: Sequence[Contestant], r: _Side, params: Params
) -> tuple[Result, ...]:
    """Each player against one composite opponent (thesis algorithm 2)."""
    results = []
    for p, (mu, phi, sigma, e, weight) in zip(
        side, _composite_updates(side, opponents, r, params, params.composite_rd), strict=True
    ):
        rating, rd, floored = _bounded(
            params, _moved(params, p.rating, mu), p.rating, GLICKO2_SCALE * phi, r.won
        )
        results.append(Result(rating, rd, sigma, e, weight, 1.0, floored))
    return tuple(results)


def _individual(
    side: Sequence[Contestant], opponents: Sequence[Contestant], r: _Side, params: Params
) -> tuple[Result, ...]:
    """Each opponent a separate result in the same rating period (thesis algorithm 1)."""
    slope = expected_slope(params.scale_factor)
    opp = [(_mu(params, o.rating), o.rd / GLICKO2_SCALE) for o in opponents]
    results = []
    for p in side:
        mu_p = _mu(params, p.rating)
        mu, phi, sigma = glicko2.update(
            mu_p,
            p.rd / GLICKO2_SCALE,
            p.volatility,
            [(mu_o, phi_o, r.s, w * r.m) for (mu_o, phi_o), w in zip(opp, p.weights, strict=True)],
            params.tau,
            slope,
            p.gate_open,
        )
        e = sum(glicko2.expected(mu_p, m, glicko2.g(f), slope) for m, f in opp) / len(opp)
        rating, rd, floored = _bounded(
            params, _moved(params, p.rating, mu), p.rating, GLICKO2_SCALE * phi, r.won
        )
        weight = sum(p.weights) / len(p.weights)
        results.append(Result(rating, rd, sigma, e, weight, 1.0, floored))
    return tuple(results)


def _composite_team(
    side: Sequence[Contestant], opponents: Sequence[Contestant], r: _Side, params: Params
) -> tuple[Result, ...]:
    """Side composite against opposing composite (thesis algorithm 3, with phi' squared).

    `E`, `v` and `Delta` are computed once per side. The side's repetition weight is the
    mean of its players' weights, so `v` and `Delta` really are the same for every player;
    each player then gets their own volatility, `phi'` (own diversity gate) and
    `mu' = mu_i + phi'^2 * m * weight * g(phi_b) * (s - E)`.
    """
    how = params.composite_rd
    mu_a = sum(_mu(params, p.rating) for p in side) / len(side)
    mu_b = sum(_mu(params, o.rating) for o in opponents) / len(opponents)
    phi_b = composite_phi([o.rd / GLICKO2_SCALE for o in opponents], how)
    weight = sum(sum(p.weights) / len(p.weights) for p in side) / len(side)
    informed = weight * r.m
    g_b = glicko2.g(phi_b)
    z = exp(-g_b * (mu_a - mu_b) * expected_slope(params.scale_factor))
    e = 1.0 / (1.0 + z)
    # E (1 - E) = z E^2, as in glicko2.update.
    v = 1.0 / (informed * g_b * g_b * z * e * e)
    improvement = informed * g_b * (r.s - e)
    results = []
    for p in side:
        mu, phi, sigma = glicko2.finish(
            _mu(params, p.rating),
            p.rd / GLICKO2_SCALE,
            p.volatility,
            v,
            improvement,
            params.tau,
            p.gate_open,
        )
        rating, rd, floored = _bounded(
            params, _moved(params, p.rating, mu), p.rating, GLICKO2_SCALE * phi, r.won
        )
        results.append(Result(rating, rd, sigma, e, weight, 1.0, floored))
    return tuple(results)


def _performance_weighted(
    side: Sequence[Contestant], opponents: Sequence[Contestant], r: _Side, params: Params
) -> tuple[Result, ...]:
    """composite_opponent with `rms_of_mean`, each rating change scaled by performance.

    `mu' = mu + w (mu* - mu)` (team-performance seed §8); RD and volatility are not
    weighted. `delta_max` (in rating points; None = off) then bounds the change.
    """
    updates = _composite_updates(side, opponents, r, params, "rms_of_mean")
    weights = performance_weights([p.stats for p in side], params)
    results = []
    for p, (mu_star, phi, sigma, e, weight), w in zip(side, updates, weights, strict=True):
        mu = _mu(params, p.rating)
        change = GLICKO2_SCALE * w * (mu_star - mu)
        if params.delta_max is not None:
            change = clamp(change, -params.delta_max, params.delta_max)
        rating, rd, floored = _bounded(
            params,
            p.rating + change,
            p.rating,
            GLICKO2_SCALE * phi,
            r.won,
        )
        results.append(Result(rating, rd, sigma, e, weight, w, floored))
    return tuple(results)


def _glicko1_team(
    side: Sequence[Contestant], opponents: Sequence[Contestant], r: _Side, params: Params
) -> tuple[Result, ...]:
    """Glicko-1 in rating points with team RD = RMS and the certainty boost (Pokémon 2v2 seed).

    The match carries `m` times the information (§5): `RD'^2 = 1 / (1/RD^2 + m/d^2)` and
    `Delta R = scale * rdFactor * q * RD'^2 * m * g(RD_opp) (s - E)`.
    """
    rd_own = rms([p.rd for p in side])
    rd_opp = rms([o.rd for o in opponents])
    r_own = sum(p.rating for p in side) / len(side)
    r_opp = sum(o.rating for o in opponents) / len(opponents)
    if params.g1_boost:
        r_own += g1_boost(rd_own)
        r_opp += g1_boost(rd_opp)
    g_opp = 1.0 / sqrt(1.0 + G1_THREE_Q2_OVER_PI2 * rd_opp * rd_opp)
    e = 1.0 / (1.0 + 10.0 ** (-g_opp * (r_own - r_opp) / 400.0))
    inv_d2 = G1_Q * G1_Q * g_opp * g_opp * e * (1.0 - e)
    results = []
    for p in side:
        precision = 1.0 / (p.rd * p.rd) + r.m * inv_d2
        rd_factor = max(1.0 / params.g1_scale, p.rd / params.g1_rd_max)
        change = params.g1_scale * rd_factor * G1_Q / precision * r.m * g_opp * (r.s - e)
        rating, rd, floored = _bounded(
            params, p.rating + change, p.rating, sqrt(1.0 / precision), r.won
        )
        results.append(Result(rating, rd, p.volatility, e, 1.0, 1.0, floored))
    return tuple(results)


_METHODS = {
    "composite_opponent": _composite_opponent,
    "individual": _individual,
    "composite_team": _composite_team,
    "performance_weighted": _performance_weighted,
    "glicko1_team": _glicko1_team,
}
