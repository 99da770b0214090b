"""Ladder operations the web pages, the API and the commands share."""

from __future__ import annotations

from decimal import Decimal

from django.db import IntegrityError, transaction

from accounts.models import RequestUser, User
from ladder.clubs import access
from ladder.clubs.models import Ladder, Membership
from ratings.engine.types import EngineError


class LadderError(Exception):
    """An operation on a ladder that is not allowed; the message is for people."""


def can_join(user: RequestUser, ladder: Ladder) -> bool:
    """Anyone signed in may join a public ladder; private ones are joined by invitation.

    A moderator adds members to a private ladder in the admin (they may also join it
    themselves from its page).
    """
    return isinstance(user, User) and (ladder.is_public or user.is_moderator)


def join_ladder(
    user: RequestUser,
    ladder: Ladder,
    level: Decimal | None = None,
    certainty: str | None = None,
) -> Membership:
    """Make ``user`` a member of ``ladder``, starting from their self-assessment (RATINGS.md §4).

    Without an answer the ladder's initial rating and RD apply.
    """
    if not isinstance(user, User) or not can_join(user, ladder):
        raise LadderError(f"{ladder.name} is private: a moderator adds its members.")
    barred = access.barred(ladder, user)
    if barred:
        raise LadderError(barred)
    if Membership.objects.filter(ladder=ladder, user=user).exists():
        raise LadderError(f"You are already a member of {ladder.name}.")
    membership = Membership(ladder=ladder, user=user)
    try:
        membership.apply_self_assessment(level, certainty or None)
    except EngineError as exc:
        raise LadderError(f"Your self-assessment does not fit {ladder.name}: {exc}.") from None
    membership.full_clean()
    try:
        # A double click can race past the check above; the unique constraint decides.
        with transaction.atomic():
            membership.save()
    except IntegrityError:
        raise LadderError(f"You are already a member of {ladder.name}.") from None
    return membership
