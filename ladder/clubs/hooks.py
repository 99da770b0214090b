"""What the clubs app asks of, and tells, the ratings app above it: one typed hook.

Ratings build on clubs, never the other way (docs/ARCHITECTURE.md "Hooks and signals"), so
this app names what it needs as a ``Protocol`` and the ratings app registers its answer in
RatingsConfig.ready() (ratings/apps.py; the answers are ratings/hooks.py):

- where a member without a self-assessment starts on a ``recent_newcomers`` ladder
  (RATINGS.md §4), which ``Ladder.default_start`` asks;
- what a save of a ladder's settings or of a membership means for the ratings, which the
  clubs services that store them tell it at once (``services.save_settings``,
  ``save_membership``, ``remove_membership``): new rating settings replay the ladder, new
  ranked settings re-rank it, and a membership's change relists the member's rating rows.

Callers ask ``ratings()``. Until the ratings app registers (a script that loads only this
app), the defaults answer: no newcomer rating (the ladder's initial one), nothing to keep in
step. A ban is the membership's own state (``Membership.banned_at``), read by the access
policy: nothing to ask.

No model is imported here at run time: ``ladder/clubs/models.py`` imports this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ladder.clubs.models import Ladder, Membership


class RatingsHooks(Protocol):
    """The ratings app's side of a ladder and its memberships."""

    def newcomer_rating(self, ladder: Ladder) -> float | None:
        """Where a member who skipped the self-assessment starts on ``ladder`` when its
        newcomer_start is "recent_newcomers", or None (no one has started playing yet: the
        ladder's initial rating)."""
        ...

    def settings_changed(self, ladder: Ladder, before: Ladder) -> None:
        """``ladder``'s settings were saved; ``before`` is its row as stored until then."""
        ...

    def membership_changed(self, membership: Membership, restarted: bool) -> None:
        """``membership`` was saved (new or changed); ``restarted``: its starting rating or
        RD changed (RATINGS.md §4)."""
        ...

    def membership_left(self, membership: Membership) -> None:
        """``membership`` was deleted: the member left the ladder."""
        ...


class _NoRatings:
    """Before the ratings app registers: no newcomer rating, nothing to keep in step."""

    def newcomer_rating(self, ladder: Ladder) -> float | None:
        return None

    def settings_changed(self, ladder: Ladder, before: Ladder) -> None:
        return None

    def membership_changed(self, membership: Membership, restarted: bool) -> None:
        return None

    def membership_left(self, membership: Membership) -> None:
        return None


_ratings: RatingsHooks = _NoRatings()


def register(hooks: RatingsHooks) -> None:
    """Called once, from RatingsConfig.ready()."""
    global _ratings
    _ratings = hooks


def ratings() -> RatingsHooks:
    """The ratings app's answers (or the defaults, before it registers)."""
    return _ratings
