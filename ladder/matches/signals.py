"""What the matches app announces and the ratings app answers.

Ratings build on matches, never the other way (docs/ARCHITECTURE.md), so a match that
changes what counts for ratings, or a report form that wants the §6 prediction of its
lineup, asks through these signals; ratings/signals.py connects the answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from django.dispatch import Signal

if TYPE_CHECKING:
    from accounts.models import User
    from ladder.clubs.models import Ladder

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
# keywords ``ladder``, ``user``, ``links``; the answer is {"side_a": [...], "side_b": [...],
# "played_on": date} (usernames; the club's date it was arranged for) or None.
scheduled_lineup_wanted = Signal()


@dataclass(frozen=True)
class ScheduledLineup:
    """A scheduled match's sides (usernames) and the club's date it was arranged for."""

    side_a: list[str]
    side_b: list[str]
    played_on: date


def scheduled_lineup(ladder: Ladder, user: User, links: dict[str, int]) -> ScheduledLineup | None:
    """The first answer to ``scheduled_lineup_wanted``: the arranged lineup, or None."""
    for _receiver, answer in scheduled_lineup_wanted.send(
        sender=type(ladder), ladder=ladder, user=user, links=links
    ):
        if isinstance(answer, dict):
            return ScheduledLineup(
                side_a=[str(name) for name in answer["side_a"]],
                side_b=[str(name) for name in answer["side_b"]],
                played_on=answer["played_on"],
            )
    return None


@runtime_checkable
class Prediction(Protocol):
    """What this app reads of the ratings app's prediction (ratings.predictions.Prediction)."""

    @property
    def probability(self) -> float: ...


def _first_answer(
    signal: Signal, ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None
) -> object:
    lineup = {"ladder": ladder, "side_a": side_a, "side_b": side_b, "on": on}
    for _receiver, answer in signal.send(sender=type(ladder), **lineup):
        if answer is not None:
            return answer
    return None


def stakes_of_lineup(
    ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None
) -> object:
    """The first answer to ``stakes_wanted``: the points at stake (ratings.stakes.Stakes, for
    the template only), or None."""
    return _first_answer(stakes_wanted, ladder, side_a, side_b, on)


def predict_lineup(
    ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None
) -> Prediction | None:
    """The first answer to ``lineup_wanted``: the prediction, or None (none can be made)."""
    answer = _first_answer(lineup_wanted, ladder, side_a, side_b, on)
    return answer if answer is None or isinstance(answer, Prediction) else None
