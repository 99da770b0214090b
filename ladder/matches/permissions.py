"""Who may take which step of a match's life cycle, in which state (RULES.md "Matches").

Each check raises a ``MatchError`` saying why not; the operations of ``operations.py`` run
them under the match's row lock, and ``allowed_actions`` asks them to decide which buttons
a page shows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.utils import timezone
from django.utils.formats import date_format

from accounts.models import RequestUser, User
from ladder.clubs import access
from ladder.matches.errors import MatchError, MatchPermissionError, MatchStateError
from ladder.matches.models import (
    CANCELLED,
    CONFIRMED,
    CORRECTED,
    DISPUTED,
    EXPIRED,
    PENDING,
    RATED_STATES,
    VOIDED,
    Match,
)

CONFIRM, DISPUTE, CANCEL, EDIT, RESOLVE, CORRECT, VOID = (
    "confirm",
    "dispute",
    "cancel",
    "edit",
    "resolve",
    "correct",
    "void",
)
ACTIONS = (CONFIRM, DISPUTE, CANCEL, EDIT, RESOLVE, CORRECT, VOID)
# How a refused transition describes the match's state: "This match is already confirmed."
STATE_PHRASES = {
    PENDING: "waiting for confirmation",
    CONFIRMED: "already confirmed",
    DISPUTED: "disputed and waiting for a moderator",
    CORRECTED: "already corrected by a moderator",
    VOIDED: "voided",
    CANCELLED: "cancelled",
    EXPIRED: "expired",
}


def require_signed_in(user: RequestUser | None) -> User:
    """The member ``user`` is, or a refusal: nobody is signed in."""
    if not isinstance(user, User) or not user.is_authenticated:
        raise MatchPermissionError("Sign in first.")
    return user


def _require_live_pending(match: Match, now: datetime, done: str) -> None:
    if match.state == PENDING and match.is_expired(now):
        when = date_format(timezone.localtime(match.expires_at), "j F Y, H:i")
        raise MatchStateError(
            f"This match expired unconfirmed on {when}; it can no longer be {done}."
        )
    if match.state != PENDING:
        raise MatchStateError(
            f"This match is {STATE_PHRASES[match.state]}; only a match waiting for "
            f"confirmation can be {done}."
        )


def _check_opponent(
    match: Match, user: RequestUser | None, now: datetime, verb: str, done: str
) -> None:
    member = require_signed_in(user)
    side = match.side_of(member)
    if side is None or side == match.reporter_side:
        if member.pk == match.reporter_id:
            message = f"You reported this match; one of your opponents must {verb} it."
        elif side is not None:
            message = (
                f"You played on {match.reporter.name}'s side; only a player of the other "
                f"side can {verb} this match."
            )
        else:
            message = (
                f"Only a player of the side opposing {match.reporter.name} can {verb} this match."
            )
        raise MatchPermissionError(message)
    _require_live_pending(match, now, done)


def check_confirm(match: Match, user: RequestUser | None, now: datetime) -> None:
    _check_opponent(match, user, now, "confirm", "confirmed")


def check_dispute(match: Match, user: RequestUser | None, now: datetime) -> None:
    _check_opponent(match, user, now, "dispute", "disputed")


def check_not_barred(match: Match, user: RequestUser | None) -> None:
    """A member banned from the match's ladder may not confirm or dispute it. The operations
    ask it after their own check; ``allowed_actions`` does not (a query per match on every
    list, and a ban cancels the banned member's waiting matches anyway)."""
    barred = access.barred(match.ladder, user)
    if barred:
        raise MatchPermissionError(barred)


def _check_reporter(
    match: Match, user: RequestUser | None, now: datetime, verb: str, done: str
) -> None:
    if require_signed_in(user).pk != match.reporter_id:
        raise MatchPermissionError(
            f"Only {match.reporter.name}, who reported this match, can {verb} it."
        )
    _require_live_pending(match, now, done)


def check_cancel(match: Match, user: RequestUser | None, now: datetime) -> None:
    _check_reporter(match, user, now, "cancel", "cancelled")


def check_edit(match: Match, user: RequestUser | None, now: datetime) -> None:
    """The reporter changes a report nobody has confirmed or disputed yet."""
    _check_reporter(match, user, now, "change", "changed")


def _require_moderator(user: RequestUser | None, what: str) -> None:
    if not require_signed_in(user).is_moderator:
        raise MatchPermissionError(f"Only a moderator can {what}.")


def check_resolve(match: Match, user: RequestUser | None, now: datetime) -> None:
    _require_moderator(user, "resolve a dispute")
    if match.state != DISPUTED:
        raise MatchStateError(
            f"This match is {STATE_PHRASES[match.state]}; there is no open dispute to resolve."
        )


def _check_rated(match: Match, user: RequestUser | None, verb: str, done: str) -> None:
    _require_moderator(user, f"{verb} a confirmed match")
    if match.state not in RATED_STATES:
        hint = " Resolve the dispute instead." if match.state == DISPUTED else ""
        raise MatchStateError(
            f"This match is {STATE_PHRASES[match.state]}; only a confirmed match can be {done}."
            + hint
        )


def check_ban_step(
    match: Match, user: RequestUser | None, states: tuple[str, ...], done: str
) -> None:
    """A ban's step on a match (cancel a pending one, withhold or restore a rated one):
    a moderator's, and only from ``states``."""
    _require_moderator(user, "ban a member")
    if match.state not in states:
        raise MatchStateError(f"This match is {STATE_PHRASES[match.state]}; it cannot be {done}.")


def check_correct(match: Match, user: RequestUser | None, now: datetime) -> None:
    _check_rated(match, user, "correct", "corrected")


def check_void(match: Match, user: RequestUser | None, now: datetime) -> None:
    _check_rated(match, user, "void", "voided")


_CHECKS: dict[str, Callable[[Match, RequestUser | None, datetime], None]] = {
    CONFIRM: check_confirm,
    DISPUTE: check_dispute,
    CANCEL: check_cancel,
    EDIT: check_edit,
    RESOLVE: check_resolve,
    CORRECT: check_correct,
    VOID: check_void,
}


def allowed_actions(
    match: Match, user: RequestUser | None, now: datetime | None = None
) -> set[str]:
    """The actions ``user`` may take on ``match`` now (for buttons; the operations re-check)."""
    now = now or timezone.now()
    allowed = set()
    for action, check in _CHECKS.items():
        try:
            check(match, user, now)
        except MatchError:
            continue
        allowed.add(action)
    return allowed
