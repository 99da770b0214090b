"""What the clubs app asks of the apps above it.

Integrity and ratings build on clubs, never the other way (docs/ARCHITECTURE.md), so
joining a ladder or taking part in its matches asks through these signals whether something
bars the member (ladder/integrity/signals.py answers for a ban), and where a member without
a self-assessment starts (ratings/signals.py answers from the ladder's ratings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.dispatch import Signal

if TYPE_CHECKING:
    from accounts.models import RequestUser
    from ladder.clubs.models import Ladder

# Asks whether ``user`` is barred from taking part on ``ladder`` (joining, reporting,
# confirming, disputing): keywords ``ladder``, ``user``; the answer is the reason to tell
# them, or None.
participation_barred = Signal()

# Asks where a member who skipped the self-assessment starts on ``ladder`` when its
# newcomer_start is "recent_newcomers" (RATINGS.md §4): keyword ``ladder``; the answer is a
# rating, or None (no one has started playing yet: the ladder's initial rating).
newcomer_rating_wanted = Signal()


def barred_from(ladder: Ladder, user: RequestUser | None) -> str | None:
    """The first reason a receiver of ``participation_barred`` gives, or None (not barred)."""
    if user is None or not getattr(user, "pk", None):
        return None
    for _receiver, answer in participation_barred.send(
        sender=type(ladder), ladder=ladder, user=user
    ):
        if answer:
            return str(answer)
    return None


def newcomer_rating(ladder: Ladder) -> float | None:
    """The first answer to ``newcomer_rating_wanted``, or None."""
    for _receiver, answer in newcomer_rating_wanted.send(sender=type(ladder), ladder=ladder):
        if answer is not None:
            return float(answer)
    return None
