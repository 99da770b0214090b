"""Team methods (RATINGS.md §5): how partners and opponents count in one match.

`rate_sides` takes each player's state at the start of the match (RD already grown
for inactivity, repetition weights and the diversity gate already counted by the
replayer) and the match's `Outcome`, and returns each player's new, bounded state.
Singles go through the same functions: with one player a side, every method but
glicko1_team reduces to the plain single-opponent update of §3.

The update itself, every method, §3 step 9's bounds and the wrong-way floor, is the C
kernel's (`_native.c` rate_side): the one implementation that the replay and every
other path run. This module hands it the players and the ladder's rules
(`native_rules`), and keeps what is not the update: performance weights from match
stats (§5 performance_weighted) and the Glicko-1 team helpers that predictions share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import sqrt
from typing import Any, NamedTuple

from ratings.engine import (
    _native,
    glicko2,
)
from ratings.engine.outcome import Outcome
from ratings.engine.scales import clamp, expected_slope
from ratings.engine.types import COMPOSITE_RD_CHOICES, TEAM_METHODS, EngineError, Params

# performance_weighted: keeps the z-score finite when every player on a side scored the same.
PERFORMANCE_EPSILON = 1e-6
# The boost of the Pokémon 2v2 seed (glicko1_team, match quality): b(RD) = 0.5 (350 - RD),
# no boost at 350 (Glicko-1's RD for an unrated player). The kernel's glicko1_team uses the same.
G1_BOOST_SLOPE = 0.5
G1_BOOST_ZERO_RD = 350.0


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


def native_rules(params: Params) -> tuple[Any, ...]:
    """A ladder's rules as the C kernel takes them (`_native.c` parse_rules)."""
    if params.team_method not in TEAM_METHODS:
        raise EngineError(
            f"unknown team method {params.team_method!r}; choose one of {', '.join(TEAM_METHODS)}"
        )
    if params.composite_rd not in COMPOSITE_RD_CHOICES:
        raise EngineError(
            f"unknown composite_rd {params.composite_rd!r}; "
            f"choose one of {', '.join(COMPOSITE_RD_CHOICES)}"
        )
    return (
        glicko2.maths(params.tau, expected_slope(params.scale_factor)),
        params.rating_center,
        params.rating_min,
        params.rating_max,
        params.rd_max,
        params.wrong_way_floor,
        TEAM_METHODS.index(params.team_method),
        COMPOSITE_RD_CHOICES.index(params.composite_rd),
        params.delta_max,
        params.g1_scale,
        params.g1_rd_max,
        params.g1_boost,
    )


def rate_sides(
    side_a: Sequence[Contestant],
    side_b: Sequence[Contestant],
    outcome: Outcome,
    params: Params,
) -> tuple[tuple[Result, ...], tuple[Result, ...]]:
    """Every player's new state after one match with `outcome` (§3 step 2)."""
    if not side_a or not side_b:
        raise EngineError("each side needs at least one player")
    rules = native_rules(params)
    weighted = params.team_method == "performance_weighted"
    sides = []
    for side in (side_a, side_b):
        perf = performance_weights([p.stats for p in side], params) if weighted else None
        sides.append(
            [
                (p.rating, p.rd, p.volatility, p.weights, p.gate_open, 1.0 if perf is None else w)
                for p, w in zip(side, perf or (1.0,) * len(side), strict=True)
            ]
        )
    results_a, results_b = _native.rate_sides(
        rules, sides[0], sides[1], outcome.s_a, outcome.s_b, outcome.multiplier, outcome.a_won
    )
    return tuple(Result(*r) for r in results_a), tuple(Result(*r) for r in results_b)
