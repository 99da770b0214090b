"""Rating scales (RATINGS.md §1): rating points, the Glicko-2 scale, and the display value."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from ratings.engine.types import Params

# Glickman's constant: 400 / ln(10), the factor between the Glicko and Glicko-2 scales.
GLICKO2_SCALE = 173.7178
LN10 = math.log(10.0)
# The display value is the rating in thousands: 4500 points read as "4.50".
DISPLAY_DIVISOR = 1000
DISPLAY_STEP = Decimal("0.01")


def clamp(value: float, low: float, high: float) -> float:
    """`value` limited to `[low, high]`."""
    return low if value < low else high if value > high else value


def expected_slope(scale_factor: float) -> float:
    """Factor `k` with `10^(-x * 173.7178 / scale_factor) = exp(-k * x)`; 1 for scale_factor 400."""
    return GLICKO2_SCALE * LN10 / scale_factor


def display(rating: float) -> str:
    """The rating as the ladder shows it: 4500 -> "4.50" (half-up to two decimals)."""
    value = Decimal(repr(float(rating))) / DISPLAY_DIVISOR
    return str(value.quantize(DISPLAY_STEP, rounding=ROUND_HALF_UP))


def rd_ceiling(params: Params) -> float:
    """The largest RD a player can have: `rd_max`, or Glicko-1's 350 for glicko1_team."""
    if params.team_method == "glicko1_team":
        return min(params.rd_max, params.g1_rd_max)
    return params.rd_max
