"""A rating change in plain words, from the fields stored with it (RULES.md "Ratings in the site").

    31% chance to win, won 21-12 21-15: +0.08; a clear win: counted 2.0× a narrow one;
    third match against Sam in 90 days, counted at 0.71

The margin (RATINGS.md §3 step 2): under ``margin_information`` a win is a win and the
stored ``margin_multiplier`` says how much more a clear one counted; under ``score`` the
stored ``outcome`` is the margin-aware result. Either way the wrong-way floor (§3 step 9)
may have kept the rating where it was (``floor_applied``): the explanation says so.
RDs and the change read in display units, like the ratings (§8: RD 250 → "± 0.25", a
change of 84 points → "+0.08"): one way to show a rating everywhere (issue 16).

``explain(change, context)`` is pure wording: ``context`` carries what the row alone does
not know (the score from the player's side, the opponents' names, the ladder's
parameters, the previous match). ``context_for`` builds it for a change read with
``RatingChange.objects.history()``, given its match's games and opponents.

Repetition (RATINGS.md §2): a match against an opponent met ``n`` times before inside
the lookback window is weighted ``1 / (1 + repetition_alpha × n)``, so ``n`` is read back
from the stored weight. For a team match the weight is the mean over the opponents and
no single count can be read back; the wording says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from ladder.clubs.formatting import format_change, format_percent, format_rating, format_rd
from ratings.engine.types import Params

if TYPE_CHECKING:
    from ladder.clubs.models import Ladder
    from ratings.models import RatingChange

DEFAULTS = Params()

# Below this a difference is rounding, not something to explain.
WEIGHT_EPSILON = 0.005
MARGIN_EPSILON = 0.05
RD_EPSILON = 0.5
# RD grows a little every week without a match; a break is worth a note from this long.
BREAK_DAYS = 30

_ORDINALS = (
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
)


@dataclass(frozen=True)
class Context:
    """What explaining a change needs beyond the stored row."""

    score: str = ""  # the games from the player's side: "21-12 21-15"
    opponents: tuple[str, ...] = ()
    # The ladder's settings the explanation words (RATINGS.md §2's defaults when not given).
    lookback_days: int = DEFAULTS.lookback_days
    repetition_alpha: float = DEFAULTS.repetition_alpha
    diversity_threshold: float = DEFAULTS.diversity_threshold
    outcome_model: str = DEFAULTS.outcome_model
    margin_boost: float = DEFAULTS.margin_boost
    # The player's previous match on this ladder: RD right after it, and its date. None
    # for a first match; ``has_previous`` False when the previous match is unknown.
    previous_rd: float | None = None
    previous_played_on: date | None = None
    has_previous: bool = True
    # A season of the ladder began after the previous match and by this one, and the ladder
    # raises RDs at a season's start (RATINGS.md §3 step 1).
    new_season: bool = False


def ordinal(n: int) -> str:
    """1 → "first", 3 → "third", 12 → "12th"."""
    if 1 <= n <= len(_ORDINALS):
        return _ORDINALS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def earlier_meetings(weight: float, alpha: float) -> int | None:
    """``n`` from ``weight = 1 / (1 + alpha n)``; None when the weight is not of that form."""
    if alpha <= 0 or weight <= 0:
        return None
    n = (1.0 / weight - 1.0) / alpha
    rounded = round(n)
    return rounded if rounded >= 1 and abs(n - rounded) < 0.05 else None


def explain(change: RatingChange, context: Context) -> str:
    """The change in words: result against expectation, then anything that shaped it."""
    result = "won" if change.won else "lost"
    # The expected score is the chance to win the ratings gave (RATINGS.md §3), read as
    # every win chance on the site reads: a percentage (issue 37: "Expected 0.98").
    head = f"{format_percent(change.expected)} chance to win, {result}"
    if context.score:
        head += f" {context.score}"
    parts = [f"{head}: {format_change(change.change, change.rating_after)}"]
    parts.extend(_notes(change, context))
    return "; ".join(parts)


def _notes(change: RatingChange, context: Context) -> list[str]:
    notes = _margin_notes(change, context)
    window = f"{context.lookback_days} days"
    if context.has_previous and context.previous_played_on is None:
        notes.append(
            f"first rated match, starting from {format_rating(change.rating_before)}"
            f" ± {format_rd(change.rd_before)}"
        )
    elif (
        context.previous_rd is not None
        and context.previous_played_on is not None
        and change.rd_before > context.previous_rd + RD_EPSILON
        and (
            (change.played_on - context.previous_played_on).days >= BREAK_DAYS or context.new_season
        )
    ):
        days = (change.played_on - context.previous_played_on).days
        was, now = format_rd(context.previous_rd), format_rd(change.rd_before)
        grown = f"from ± {was} to ± {now}" if was != now else f"a little, to ± {now}"
        why = f"first match in {days} days" if days >= BREAK_DAYS else "first match"
        if context.new_season:
            why += " of a new season" if days < BREAK_DAYS else " and of a new season"
        notes.append(f"{why}: RD had grown {grown}")
    weight = change.repetition_weight
    if weight < 1 - WEIGHT_EPSILON:
        n = earlier_meetings(weight, context.repetition_alpha)
        if len(context.opponents) == 1 and n is not None:
            notes.append(
                f"{ordinal(n + 1)} match against {context.opponents[0]} in {window},"
                f" counted at {weight:.2f}"
            )
        elif len(context.opponents) > 1:
            notes.append(f"opponents met before in the last {window}, counted at {weight:.2f}")
        else:
            notes.append(f"a repeat opponent in the last {window}, counted at {weight:.2f}")
    if not change.gate_open:
        notes.append(
            f"RD kept from shrinking: {change.diversity_ratio:.0%} different opponents"
            f" in {window} (needs {context.diversity_threshold:.0%})"
        )
    performance = change.performance_weight
    if abs(performance - 1) > WEIGHT_EPSILON:
        side = "above" if performance > 1 else "below"
        notes.append(f"performance weight {performance:.2f} ({side} the side's average)")
    return notes


def _margin_notes(change: RatingChange, context: Context) -> list[str]:
    """How the result counted (RATINGS.md §3 step 2), and the wrong-way floor (step 9)."""
    notes = []
    won = change.won
    m = change.margin_multiplier
    if context.outcome_model == "score":
        if change.floor_applied:
            notes.append(_floor_note(won, context))
        if abs(change.outcome - round(change.outcome)) > WEIGHT_EPSILON:
            notes.append(f"the score counted {change.outcome:.2f} of a win")
        return notes
    if change.floor_applied:
        notes.append(_floor_note(won, context))
    if round(m, 1) > 1.0:  # as it reads: "1.0×" is no news
        result = "win" if won else "loss"
        clear = m >= 1 + context.margin_boost - MARGIN_EPSILON
        if clear:
            notes.append(f"a clear {result}: counted {m:.1f}× a narrow one")
        else:
            notes.append(f"the margin counted: {m:.1f}× a narrow {result}")
    return notes


def _floor_note(won: bool, context: Context) -> str:
    """RATINGS.md §3 step 9: a win never lowers a rating, a loss never raises one."""
    other = "player" if len(context.opponents) <= 1 else "side"
    if won:
        return f"a narrow win against a weaker {other}: no change (a win never lowers a rating)"
    return f"a close loss against a stronger {other}: no change (a loss never raises a rating)"


# ---- from stored rows ----------------------------------------------------------------


def score_from(side: str, games: Sequence[tuple[int, int]]) -> str:
    """The games from ``side``'s view: side B's 12-21 21-15 reads "21-12 15-21"."""
    return " ".join(f"{a}-{b}" if side == "a" else f"{b}-{a}" for a, b in games)


def context_for(
    change: RatingChange,
    params: Ladder,
    games: Sequence[tuple[int, int]],
    opponents: Sequence[str],
    season_starts: Sequence[date] = (),
) -> Context:
    """The context of a change read with ``RatingChange.objects.history()``: ``games`` are its
    match's games as (side A, side B) points, ``opponents`` the names the viewer may see
    ("a hidden player" for the others), ``params`` the ladder, ``season_starts`` the first
    days its ratings count (``ratings.models.rating_params``: none unless the ladder raises
    RDs at a season's start)."""
    previous = getattr(change, "previous_played_on", None)
    return Context(
        score=score_from(change.side, games),
        opponents=tuple(opponents),
        lookback_days=params.lookback_days,
        repetition_alpha=params.repetition_alpha,
        diversity_threshold=params.diversity_threshold,
        outcome_model=params.outcome_model,
        margin_boost=params.margin_boost,
        previous_rd=getattr(change, "previous_rd", None),
        previous_played_on=getattr(change, "previous_played_on", None),
        has_previous=hasattr(change, "previous_played_on"),
        new_season=previous is not None
        and any(previous < first <= change.played_on for first in season_starts),
    )
