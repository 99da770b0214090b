"""Ladder operations the web pages, the API and the commands share."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import RequestUser, User
from core import errors
from ladder.clubs import access
from ladder.clubs.formatting import format_day
from ladder.clubs.models import Ladder, Membership
from ratings.engine.types import EngineError


class LadderError(errors.DomainError):
    """An operation on a ladder that is not allowed; the message is for people. ``field``
    names the input at fault, if one is."""

    field: str | None = None


class LadderPermissionError(LadderError, errors.DomainPermissionError):
    """This person may not do this on this ladder (join a private one, while banned …)."""


class LadderStateError(LadderError, errors.DomainStateError):
    """Already done (a member already)."""


class LadderValidationError(LadderError, errors.DomainValidationError):
    """Bad input, in ``field`` (None: the input as a whole)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__({field or errors.ALL: [message]})
        self.field = field


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
        raise LadderPermissionError(f"{ladder.name} is private: a moderator adds its members.")
    barred = access.barred(ladder, user)
    if barred:
        raise LadderPermissionError(barred)
    if Membership.objects.filter(ladder=ladder, user=user).exists():
        raise LadderStateError(f"You are already a member of {ladder.name}.")
    membership = Membership(ladder=ladder, user=user)
    try:
        membership.apply_self_assessment(level, certainty or None)
    except EngineError as exc:
        raise LadderValidationError(
            f"Your self-assessment does not fit {ladder.name}: {exc}."
        ) from None
    membership.full_clean()
    try:
        # A double click can race past the check above; the unique constraint decides.
        with transaction.atomic():
            membership.save()
    except IntegrityError:
        raise LadderStateError(f"You are already a member of {ladder.name}.") from None
    return membership


# RULES.md "Time away": at most this far ahead; longer than that, a member leaves the ladder.
MAX_AWAY_DAYS = 366


def set_away(user: RequestUser, ladder: Ladder, until: date | None) -> Membership:
    """Mark ``user`` away from ``ladder`` up to and including ``until``, or back (None):
    RULES.md "Time away". Their own membership only; a day before today (the club's date)
    or more than ``MAX_AWAY_DAYS`` ahead is refused. Nothing in the ratings changes: the
    board reads the day, the rating maths never does."""
    membership = (
        Membership.objects.filter(ladder=ladder, user=user).first()
        if user.is_authenticated
        else None
    )
    if membership is None:
        raise LadderPermissionError(f"You are not a member of {ladder.name}.")
    barred = access.barred(ladder, user)
    if barred:
        raise LadderPermissionError(barred)
    today = timezone.localdate()
    if until is not None and until < today:
        raise LadderValidationError(
            f"{format_day(until)} is in the past: give today or a later day, "
            "or clear the date to say you are back.",
            field="until",
        )
    if until is not None and until > today + timedelta(days=MAX_AWAY_DAYS):
        raise LadderValidationError(
            f"{format_day(until)} is more than a year ahead: mark yourself away for a "
            "year at most.",
            field="until",
        )
    if membership.away_until != until:
        membership.away_until = until
        membership.save(update_fields=["away_until"])
    return membership
