"""What the matches app announces and the ratings app answers.

Ratings build on matches, never the other way (docs/ARCHITECTURE.md), so a match that
changes what counts for ratings, or a report form that wants the §6 prediction of its
lineup, asks through these signals; ratings/signals.py connects the answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from django.dispatch import Signal

# Sent after commit when a ladder's rated matches changed (a match confirmed, corrected,
# voided, a dispute resolved): its ratings are due. Keyword: ``ladder_id``.
ratings_due = Signal()

# Asks for the RATINGS.md §6 prediction of a lineup: keywords ``ladder``, ``side_a``,
# ``side_b``, ``on``; the answer has ``probability`` and ``quality``, or is None.
lineup_wanted = Signal()


# Asks for the RATINGS.md §6 points at stake of a full lineup (same keywords): the answer
# holds each player's change for a narrow and a clear win either way, or is None.
stakes_wanted = Signal()


# A report names what it was scheduled as (``links``: {"challenge": id} or {"open_game": id});
# sent inside the report's transaction with keywords ``match`` and ``links``. The app that
# keeps scheduled matches (ladder/play) links them, or refuses the report by raising a
# MatchValidationError, which rolls the report back.
match_reported = Signal()

# Sent inside the transaction of every change of a match's state: keywords ``match``,
# ``from_state``, ``to_state`` (ladder/play marks a challenge played once its match counts).
match_state_changed = Signal()

# Asks for the lineup a scheduled match was arranged with, for the report form's prefill:
# keywords ``ladder``, ``user``, ``links``; the answer is {"side_a": [...], "side_b": [...]}
# (usernames) or None.
scheduled_lineup_wanted = Signal()


def scheduled_lineup(ladder: Any, user: Any, links: dict[str, int]) -> Any:
    """The first answer to ``scheduled_lineup_wanted``: the arranged lineup, or None."""
    for _receiver, answer in scheduled_lineup_wanted.send(
        sender=type(ladder), ladder=ladder, user=user, links=links
    ):
        if answer is not None:
            return answer
    return None


def _first_answer(signal: Signal, **lineup: Any) -> Any:
    for _receiver, answer in signal.send(sender=type(lineup["ladder"]), **lineup):
        if answer is not None:
            return answer
    return None


def stakes_of_lineup(
    ladder: Any, side_a: Sequence[Any], side_b: Sequence[Any], on: date | None
) -> Any:
    """The first answer to ``stakes_wanted``: the points at stake, or None."""
    return _first_answer(stakes_wanted, ladder=ladder, side_a=side_a, side_b=side_b, on=on)


def predict_lineup(
    ladder: Any, side_a: Sequence[Any], side_b: Sequence[Any], on: date | None
) -> Any:
    """The first answer to ``lineup_wanted``: the prediction, or None (none can be made)."""
    return _first_answer(lineup_wanted, ladder=ladder, side_a=side_a, side_b=side_b, on=on)
