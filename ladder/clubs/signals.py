"""What the clubs app asks of the apps above it.

Ratings build on clubs, never the other way (docs/ARCHITECTURE.md), so joining a ladder asks
through this signal where a member without a self-assessment starts (ratings/signals.py
answers from the ladder's ratings). A ban is the membership's own state
(``Membership.banned_at``), read by the access policy: nothing to ask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.dispatch import Signal

if TYPE_CHECKING:
    from ladder.clubs.models import Ladder

# Asks where a member who skipped the self-assessment starts on ``ladder`` when its
# newcomer_start is "recent_newcomers" (RATINGS.md §4): keyword ``ladder``; the answer is a
# rating, or None (no one has started playing yet: the ladder's initial rating).
newcomer_rating_wanted = Signal()


def newcomer_rating(ladder: Ladder) -> float | None:
    """The first answer to ``newcomer_rating_wanted``, or None."""
    for _receiver, answer in newcomer_rating_wanted.send(sender=type(ladder), ladder=ladder):
        if answer is not None:
            return float(answer)
    return None
