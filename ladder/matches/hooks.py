"""What the matches app asks of the apps above it, as typed hooks.

Ratings and play build on matches, never the other way (docs/ARCHITECTURE.md "Hooks and
signals"). Where this app needs an answer from one of them, it names the question here as a
``Protocol``, and the app above registers its answer in its ``AppConfig.ready()``:

- ``RatingsHooks`` (registered by ratings/apps.py, answered in ratings/hooks.py): the report
  form's RATINGS.md §6 prediction of a lineup and the points at stake.
- ``PlayHooks`` (registered by ladder/play/apps.py, answered in ladder/play/hooks.py): a
  report's link to the challenge or open game it was scheduled as, which may refuse the
  report, and the lineup that was arranged, for the report form's prefill.

Callers ask ``ratings()`` or ``play()``. Until an app registers (a script that loads only
this app), the defaults answer: no prediction, nothing at stake, nothing scheduled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from accounts.models import User
    from ladder.clubs.models import Ladder
    from ladder.matches.models import Match


@runtime_checkable
class Prediction(Protocol):
    """What this app reads of the ratings app's prediction (ratings.predictions.Prediction)."""

    @property
    def probability(self) -> float: ...


@dataclass(frozen=True)
class ScheduledLineup:
    """A scheduled match's sides (usernames) and the club's date it was arranged for."""

    side_a: list[str]
    side_b: list[str]
    played_on: date


class RatingsHooks(Protocol):
    """The ratings app's answers for the report form."""

    def predict(
        self, ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None
    ) -> Prediction | None:
        """The RATINGS.md §6 prediction of a lineup on ``on``, or None (none can be made)."""
        ...

    def stakes(
        self, ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None
    ) -> object:
        """The RATINGS.md §6 points at stake of a full lineup (ratings.stakes.Stakes, which
        this app only passes to its template), or None."""
        ...


class PlayHooks(Protocol):
    """The play app's answers about what a match was scheduled as."""

    def link_reported(self, match: Match, links: Mapping[str, int]) -> None:
        """Link a new report to the challenge or open game ``links`` names ({"challenge": id}
        or {"open_game": id}), inside the report's transaction; refuse it by raising a
        ``MatchValidationError``, which rolls the report back."""
        ...

    def scheduled_lineup(
        self, ladder: Ladder, user: User, links: Mapping[str, int]
    ) -> ScheduledLineup | None:
        """The lineup ``user``'s scheduled challenge or game named by ``links`` was arranged
        with, or None (not theirs, not scheduled)."""
        ...


class _NoRatings:
    """Before the ratings app registers: no prediction, nothing at stake."""

    def predict(
        self, ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None
    ) -> Prediction | None:
        return None

    def stakes(
        self, ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None
    ) -> object:
        return None


class _NoPlay:
    """Before the play app registers: nothing is scheduled, so a report links to nothing."""

    def link_reported(self, match: Match, links: Mapping[str, int]) -> None:
        return None

    def scheduled_lineup(
        self, ladder: Ladder, user: User, links: Mapping[str, int]
    ) -> ScheduledLineup | None:
        return None


_ratings: RatingsHooks = _NoRatings()
_play: PlayHooks = _NoPlay()


def register_ratings(hooks: RatingsHooks) -> None:
    """Called once, from RatingsConfig.ready()."""
    global _ratings
    _ratings = hooks


def register_play(hooks: PlayHooks) -> None:
    """Called once, from PlayConfig.ready()."""
    global _play
    _play = hooks


def ratings() -> RatingsHooks:
    """The ratings app's answers (or the defaults, before it registers)."""
    return _ratings


def play() -> PlayHooks:
    """The play app's answers (or the defaults, before it registers)."""
    return _play
