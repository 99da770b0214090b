"""What the clubs app asks of the apps above it.

Integrity builds on clubs, never the other way (docs/ARCHITECTURE.md), so joining a ladder
or taking part in its matches asks through this signal whether something bars the member;
ladder/integrity/signals.py answers for a ban.
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
