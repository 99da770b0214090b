"""Ladder operations the web pages, the API, the admin and the commands share.

Every save of a ladder's settings or of a membership goes through ``save_settings``,
``save_membership`` or ``remove_membership``, which tell the ratings app at once what it
means for the ratings (``hooks.ratings()``, ladder/clubs/hooks.py): a replay, a new
standing, a relisted rating row, a renewed page.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import RequestUser, User
from core import errors
from ladder.clubs import access, hooks
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


def save_settings(ladder: Ladder) -> None:
    """Store ``ladder`` as it is now and tell the ratings app what its settings were before
    (new rating settings replay the ladder, new ranked settings re-rank it: ratings always
    equal a replay under the ladder's settings). A new ladder is only stored."""
    before = Ladder.objects.filter(pk=ladder.pk).first() if ladder.pk is not None else None
    ladder.save()
    if before is not None:
        hooks.ratings().settings_changed(ladder, before)


# What of a membership its rating rows start from (RATINGS.md §4).
_START_FIELDS = ("initial_rating", "initial_rd")


def save_membership(membership: Membership, update_fields: Sequence[str] | None = None) -> None:
    """Store a new or changed membership (only ``update_fields``, if given) and tell the
    ratings app: the member's rating rows are relisted (hidden, banned, back), the ladder's
    pages renewed, and a new starting rating replays the ladder if they have played."""
    restarted = False
    if membership.pk is not None and (
        update_fields is None or set(_START_FIELDS) & set(update_fields)
    ):
        stored = Membership.objects.filter(pk=membership.pk).values_list(*_START_FIELDS).first()
        start = (membership.initial_rating, membership.initial_rd)
        restarted = stored is not None and tuple(stored) != start
    # Saved on its own first: the relisting waits for the ladder's lock while a rating run
    # holds it (ratings.upkeep); the member's change does not wait with it.
    membership.save(update_fields=update_fields)
    hooks.ratings().membership_changed(membership, restarted)


def remove_membership(membership: Membership) -> None:
    """Delete a membership (the member leaves the ladder) and tell the ratings app: their
    rating rows stay, listed as left, and the ladder's pages are renewed."""
    membership.delete()
    hooks.ratings().membership_left(membership)


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
            save_membership(membership)
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
        save_membership(membership, update_fields=["away_until"])
    return membership
