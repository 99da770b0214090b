"""Integrity's answers to what the lower apps ask (ladder/clubs/signals.py)."""

from __future__ import annotations

from django.dispatch import receiver

from accounts.models import User
from ladder.clubs.models import Ladder
from ladder.clubs.signals import participation_barred
from ladder.integrity.bans import active_ban, barred_message


@receiver(participation_barred)
def barred_by_ban(sender: type[Ladder], ladder: Ladder, user: User, **kwargs: object) -> str | None:
    """A banned member may not join, report, confirm or dispute on the ladder."""
    ban = active_ban(ladder, user)
    return barred_message(ban) if ban else None
