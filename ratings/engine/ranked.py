"""The day a player stops being established (RATINGS.md §8): the RD maths of the ranked
status, pure, beside the inflation it inverts (``predict.inflated_rd``, §3 step 1).

A player is established on a day when they have at least ``ranked_min_matches`` rated
matches and their RD, grown for inactivity up to that day, is at most ``ranked_rd``. RD
grows by whole rating periods since the last match, and by the periods of each season
start crossed since (``Params.season_starts``, ``season_start_periods``), so that holds up
to a day that follows from the player's state and the parameters alone: ``established_until``
works it out once, and the site stores it on the player's row (``ratings.models``).
"""

from __future__ import annotations

from datetime import date, timedelta

from ratings.engine.glicko2 import inflate
from ratings.engine.scales import GLICKO2_SCALE, rd_ceiling
from ratings.engine.types import Params, PlayerState

# A wait past this many days is forever (and keeps date arithmetic in range).
MAX_DAYS = 100 * 366


def established_until(
    state: PlayerState, params: Params, ranked_rd: float, ranked_min_matches: int
) -> date | None:
    """The last day on which a player whose state (after their last rated match) is
    ``state`` has enough matches and an RD, inflated to that day, of at most ``ranked_rd``;
    None when no day is (too few matches, or the RD is already above)."""
    last = state.last_played
    if last is None or state.matches < ranked_min_matches or state.rd > ranked_rd:
        return None
    step = GLICKO2_SCALE * state.volatility  # RD² grows by step² per idle period
    if rd_ceiling(params) <= ranked_rd or step <= 0:
        return date.max
    ceiling = rd_ceiling(params) / GLICKO2_SCALE

    def fits(n: int) -> bool:  # the RD after n periods, as predictions inflate it
        grown = inflate(state.rd / GLICKO2_SCALE, state.volatility, n, ceiling)
        return GLICKO2_SCALE * grown <= ranked_rd

    # The most periods the RD takes and stays within ranked_rd: the estimate is off by one
    # at most from rounding; the engine's inflation decides.
    most = max(int((ranked_rd**2 - state.rd**2) / step**2), 0)
    while fits(most + 1):
        most += 1
    while most > 0 and not fits(most):
        most -= 1
    return _last_day_within(last, most, params)


def _last_day_within(last: date, most: int, params: Params) -> date:
    """The last day ``d`` whose periods since ``last`` (``inactivity_periods``: whole
    periods, and ``season_start_periods`` for each first day F with last < F <= d) are at
    most ``most``. Between two season starts the periods grow with the days alone, so the
    first day past ``most`` is found per stretch, in order."""
    period, per_start = params.rating_period_days, params.season_start_periods
    ahead = [first for first in params.season_starts if first > last] if per_start else []
    offsets = [(first - last).days for first in ahead]  # days after `last`
    for crossed, begins in enumerate([1, *offsets]):
        # In this stretch (from its first day to the next start) the periods are the whole
        # ones plus per_start for each start crossed: they pass `most` from the day the whole
        # ones pass what is left, or from the stretch's first day if nothing is left.
        left = most - per_start * crossed
        past = max(begins, (left + 1) * period)
        if crossed == len(offsets) or past < offsets[crossed]:
            return _day_after(last, past - 1)
    raise AssertionError("unreachable: the last stretch has no end")


def _day_after(last: date, days: int) -> date:
    return date.max if days > MAX_DAYS else last + timedelta(days=days)
