"""Predictions (RATINGS.md §6): win probability of one side over another, and match quality.

No calibration step: `P` is the §6 formula as written. Measured on
bwf_mens_singles_2018_2021.csv (default parameters, each match predicted online
before it is rated, log-loss over the last half): raw `P` scores 0.6107. A
one-parameter calibration `P' = logistic(c * logit(P))` with `c` fitted on the first
half (c = 0.75) scores 0.6186 on the last half, i.e. worse; even the best `c` chosen on
the last half itself (1.2) only reaches 0.6092. Not worth a parameter.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from functools import lru_cache

from ratings.engine import _native
from ratings.engine.glicko2 import inflate, maths
from ratings.engine.scales import GLICKO2_SCALE, expected_slope, rd_ceiling
from ratings.engine.teams import g1_boost, rms
from ratings.engine.types import EngineError, Params, PlayerState

# Q of the Pokémon 2v2 seed: rating gaps and uncertainty both measured in units of 400 points.
QUALITY_SCALE = 400.0


# Ordinals differ by less than this, so a longer rating period is the same as this one.
_PERIOD_CAP = 1 << 40


def inactivity_periods(last_played: date | None, on: date | None, params: Params) -> int:
    """The rating periods an RD grows by from `last_played` to `on` (§3 step 1): whole periods
    of `rating_period_days`, plus `season_start_periods` for each season whose first day F
    has last_played < F <= on; 0 for a new player. Counted by the C replay's own rule."""
    if last_played is None or on is None:
        return 0
    return _native.inactivity_periods(
        last_played.toordinal(),
        on.toordinal(),
        min(params.rating_period_days, _PERIOD_CAP),
        ordinals(params.season_starts),
        params.season_start_periods,
    )


@lru_cache(maxsize=256)
def ordinals(days: tuple[date, ...]) -> tuple[int, ...]:
    """Dates as the C side takes them (a ladder's few season starts, asked for on every row)."""
    return tuple(day.toordinal() for day in days)


def inflated_rd(state: PlayerState, on: date | None, params: Params) -> float:
    """The player's RD grown for inactivity up to `on` (not past the RD ceiling)."""
    periods = inactivity_periods(state.last_played, on, params)
    if periods == 0:
        return state.rd
    phi = inflate(
        state.rd / GLICKO2_SCALE,
        state.volatility,
        periods,
        rd_ceiling(params) / GLICKO2_SCALE,
    )
    return GLICKO2_SCALE * phi


def win_probability(
    side_a: Sequence[PlayerState],
    side_b: Sequence[PlayerState],
    params: Params,
    on: date | None = None,
) -> float:
    """P(side A beats side B) on date `on` (None: no inflation).

    `P = 1 / (1 + 10^(-g(sqrt(phi_A^2 + phi_B^2)) (mu_A - mu_B) 173.7178 / scale_factor))`
    with each side's mean mu and RMS phi.
    """
    _check_sides(side_a, side_b)
    players = [*side_a, *side_b]
    return float(
        _native.win_probability(
            [s.rating for s in players],
            [inflated_rd(s, on, params) for s in players],
            len(side_a),
            maths(params.tau, expected_slope(params.scale_factor)),
        )
    )


def match_quality(
    side_a: Sequence[PlayerState],
    side_b: Sequence[PlayerState],
    params: Params,
    on: date | None = None,
) -> float:
    """Q in (0, 1] for matchmaking; 1 is an even match between well-known sides.

    `R_eff = mean rating + b(RD_team)` with the RMS team RD,
    `Q = 1 / (1 + (|R_eff_A - R_eff_B| / 400)^2 + (sqrt(RD_A^2 + RD_B^2) / 400)^2)`.
    """
    _check_sides(side_a, side_b)
    rd_a = rms([inflated_rd(s, on, params) for s in side_a])
    rd_b = rms([inflated_rd(s, on, params) for s in side_b])
    gap = (_mean_rating(side_a) + g1_boost(rd_a)) - (_mean_rating(side_b) + g1_boost(rd_b))
    spread_sq = rd_a * rd_a + rd_b * rd_b
    return 1.0 / (1.0 + (gap / QUALITY_SCALE) ** 2 + spread_sq / (QUALITY_SCALE * QUALITY_SCALE))


def _mean_rating(side: Sequence[PlayerState]) -> float:
    # Only differences matter, so the mean is taken in points and scaled once.
    return sum(s.rating for s in side) / len(side)


def _check_sides(side_a: Sequence[PlayerState], side_b: Sequence[PlayerState]) -> None:
    if not side_a or not side_b:
        raise EngineError("each side needs at least one player")
