"""Bans with refunds (RULES.md "Integrity"): the only code that bans or lifts a ban.

``ban_member`` bars a member from a ladder (the membership's state, ``banned_at``, which the
access policy reads on every surface: ladder.clubs.access), cancels their matches waiting
for confirmation and their challenges and games to come (``play.services.withdraw_player``),
withholds their rated matches from ``void_since`` on (all of them when it is None) and
replays the ladder, so every opponent's rating is what it would be had those matches never
been played. ``lift_ban`` gives the withheld matches back their state and replays again:
the ratings are exactly those before the ban.

Bans compose: a match two active bans reach is held by both (a ``BanVoid`` of each), and
lifting one restores only the matches no other active ban holds. Both happen in one
transaction with the ladder's rating run inside it (the ladder row is the lock), so the
one notice each affected member gets carries their exact change, and both write an
``IntegrityEntry`` beside the matches' own audit entries.

The replay runs in the request rather than on a worker: a club ladder replays in well
under a second (docs/BENCHMARKS.md), and the notices need its result.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import RequestUser, User
from ladder.clubs.formatting import format_change
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import save_membership
from ladder.integrity.errors import (
    ModerationNotFound,
    ModerationPermissionError,
    ModerationStateError,
    ModerationValidationError,
)
from ladder.integrity.models import Ban, BanVoid, IntegrityEntry
from ladder.matches.models import PENDING, RATED_STATES, Match
from ladder.matches.notifications import tell_member
from ladder.matches.operations import cancel_by_moderator, restore_match, withhold_match
from ladder.play.services import withdraw_player
from ratings.models import PlayerRating
from ratings.pipeline import rate_ladder

MAX_REASON_LENGTH = 2000
MIN_CHANGE = 0.5  # rating points: a smaller change from a replay is rounding, not a refund


def active_ban(ladder: Ladder, user: RequestUser | None) -> Ban | None:
    """The ban barring ``user`` from ``ladder``, or None."""
    if user is None or not user.pk:
        return None
    return Ban.objects.active().filter(ladder=ladder, user_id=user.pk).first()


def require_moderator(user: RequestUser | None) -> User:
    """The moderator ``user`` is, or a refusal."""
    if not isinstance(user, User) or not user.is_authenticated:
        raise ModerationPermissionError("Sign in first.")
    if not user.is_moderator:
        raise ModerationPermissionError("Only a moderator can do this.")
    return user


def _reason(reason: object, field: str, prompt: str, errors: dict[str, list[str]]) -> str:
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        errors.setdefault(field, []).append(prompt)
    elif len(text) > MAX_REASON_LENGTH:
        errors.setdefault(field, []).append(
            f"Keep it to {MAX_REASON_LENGTH} characters; this is {len(text)}."
        )
    return text


def _member(ladder: Ladder, username: object) -> User:
    name = username.strip() if isinstance(username, str) else ""
    user = User.objects.filter(username=name, memberships__ladder=ladder).first()
    if user is None:
        raise ModerationValidationError(
            {"username": [f"{ladder.name} has no member called {name[:150]!r}."]}
        )
    return user


@dataclass(frozen=True)
class Outcome:
    """What a ban or a lift did: the ban, the matches it touched, each member's change."""

    ban: Ban
    withheld: list[int]
    cancelled: list[int]
    changes: dict[int, float]  # user id -> rating points


def ban_member(
    ladder: Ladder,
    by: RequestUser | None,
    username: object,
    reason: object,
    void_since: date | None = None,
    now: datetime | None = None,
) -> Outcome:
    """Ban the member ``username`` from ``ladder`` (see the module's docstring)."""
    by = require_moderator(by)
    now = now or timezone.now()
    user = _member(ladder, username)
    errors: dict[str, list[str]] = {}
    text = _reason(reason, "reason", "Give the reason for the ban; the member sees it.", errors)
    if void_since is not None and not isinstance(void_since, date):
        errors.setdefault("void_since", []).append("Give a date as YYYY-MM-DD, or nothing.")
    elif void_since is not None and void_since > timezone.localdate(now):
        errors.setdefault("void_since", []).append("The date is in the future.")
    if user.pk == by.pk:
        errors.setdefault("username", []).append("You cannot ban yourself.")
    if errors:
        raise ModerationValidationError(errors)
    with transaction.atomic():
        Ladder.objects.select_for_update().get(pk=ladder.pk)
        if Ban.objects.active().filter(ladder=ladder, user=user).exists():
            raise ModerationStateError(f"{user.name} is already banned from {ladder.name}.")
        before = _ratings(ladder)
        ban = Ban.objects.create(
            ladder=ladder, user=user, reason=text, void_since=void_since, by=by, created_at=now
        )
        membership = Membership.objects.select_for_update().get(ladder=ladder, user=user)
        membership.banned_at, membership.ban_reason = now, text
        save_membership(membership, update_fields=["banned_at", "ban_reason"])  # off every list
        why = f"{user.name} was banned from {ladder.name}: {text}"
        cancelled = []
        for match in Match.objects.filter(ladder=ladder, state=PENDING, players__user=user):
            cancel_by_moderator(match, by, why, now)
            cancelled.append(match.pk)
        withdraw_player(user, ladder, now)
        reached = Match.objects.filter(ladder=ladder, players__user=user)
        if void_since is not None:
            reached = reached.filter(played_on__gte=void_since)
        withheld = []
        for match in reached.filter(state__in=RATED_STATES).order_by("played_on", "pk"):
            BanVoid.objects.create(
                ban=ban, match=match, restore_state=match.state, rated_at=match.rated_at
            )
            withhold_match(match, by, why, now)
            withheld.append(match.pk)
        _hold_withheld_by_others(ban, reached)
        changes = _replayed(ladder, before)
        since = f" from {void_since:%-d %B %Y}" if void_since else ""
        _tell(
            ladder,
            changes,
            f"After a moderation decision on {ladder.name} your rating was recalculated",
            banned=user,
            banned_text=f"A moderator banned you from {ladder.name}: {text} Your matches"
            f"{since} no longer count",
        )
        IntegrityEntry.objects.create(
            ladder=ladder,
            actor=by,
            at=now,
            action="ban",
            member=user,
            ban=ban,
            text=text,
            details=_details(withheld, cancelled, changes, void_since),
        )
    return Outcome(ban, withheld, cancelled, changes)


def lift_ban(
    ladder: Ladder,
    by: RequestUser | None,
    username: object,
    reason: object = "",
    now: datetime | None = None,
) -> Outcome:
    """Lift the active ban of ``username``: the matches it withheld count again, the ladder
    replays, and everyone's rating is what it was before the ban (cancelled reports stay
    cancelled: the players report them again)."""
    by = require_moderator(by)
    now = now or timezone.now()
    name = username.strip() if isinstance(username, str) else ""
    text = reason.strip() if isinstance(reason, str) else ""
    if len(text) > MAX_REASON_LENGTH:
        raise ModerationValidationError(
            {"reason": [f"Keep it to {MAX_REASON_LENGTH} characters; this is {len(text)}."]}
        )
    with transaction.atomic():
        Ladder.objects.select_for_update().get(pk=ladder.pk)
        ban = (
            Ban.objects.active()
            .select_for_update()
            .select_related("user")
            .filter(ladder=ladder, user__username=name)
            .first()
        )
        if ban is None:
            raise ModerationNotFound(f"No one called {name[:150]!r} is banned from {ladder.name}.")
        before = _ratings(ladder)
        why = f"The ban of {ban.user.name} from {ladder.name} was lifted" + (
            f": {text}" if text else "."
        )
        ban.lifted_at, ban.lifted_by, ban.lift_reason = now, by, text
        ban.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
        held = set(
            BanVoid.objects.filter(ban__ladder=ladder, ban__lifted_at__isnull=True).values_list(
                "match_id", flat=True
            )
        )
        restored = []
        for void in ban.voids.select_related("match").order_by("match__played_on", "match_id"):
            if void.match.state == "voided" and void.match_id not in held:
                restore_match(void.match, void.restore_state, void.rated_at, by, why, now)
                restored.append(void.match_id)
        for membership in Membership.objects.filter(ladder=ladder, user=ban.user):
            membership.banned_at, membership.ban_reason = None, ""
            save_membership(membership, update_fields=["banned_at", "ban_reason"])  # listed again
        changes = _replayed(ladder, before)
        _tell(
            ladder,
            changes,
            f"After a moderation decision on {ladder.name} your rating was recalculated",
            banned=ban.user,
            banned_text=f"A moderator lifted your ban from {ladder.name}"
            + (f": {text}" if text else ".")
            + " Your matches count again",
        )
        IntegrityEntry.objects.create(
            ladder=ladder,
            actor=by,
            at=now,
            action="lift",
            member=ban.user,
            ban=ban,
            text=text,
            details=_details(restored, [], changes, None),
        )
    return Outcome(ban, restored, [], changes)


def _hold_withheld_by_others(ban: Ban, reached: QuerySet[Match]) -> None:
    """The matches within ``ban``'s reach that another active ban withholds already: this ban
    holds them too, so lifting the other one leaves them withheld (bans compose)."""
    others = (
        BanVoid.objects.filter(match__in=reached.values("pk"), ban__lifted_at__isnull=True)
        .exclude(ban=ban)
        .order_by("match_id", "pk")
    )
    for void in others:
        BanVoid.objects.get_or_create(
            ban=ban,
            match_id=void.match_id,
            defaults={"restore_state": void.restore_state, "rated_at": void.rated_at},
        )


def _ratings(ladder: Ladder) -> dict[int, float]:
    """Each member's stored rating, after rating whatever waits (so a change is ours)."""
    rate_ladder(ladder.pk)
    return dict(PlayerRating.objects.filter(ladder=ladder).values_list("user_id", "rating"))


def _replayed(ladder: Ladder, before: dict[int, float]) -> dict[int, float]:
    """Replay the ladder now; each member's change from ``before`` (rating points)."""
    after = _ratings(ladder)
    starts = dict(Membership.objects.filter(ladder=ladder).values_list("user_id", "initial_rating"))
    changes = {}
    for user_id in set(before) | set(after):
        old = before.get(user_id, starts.get(user_id, 0.0))
        new = after.get(user_id, starts.get(user_id, 0.0))
        if abs(new - old) >= MIN_CHANGE:
            changes[user_id] = new - old
    return changes


def change_text(points: float) -> str:
    """+0.04 (display units, RATINGS.md §8); a change under 0.005 reads "less than ±0.01"."""
    if abs(points) < 5:
        return "less than +0.01" if points > 0 else "less than \u22120.01"
    return format_change(points)


def _tell(
    ladder: Ladder, changes: dict[int, float], lead: str, *, banned: User, banned_text: str
) -> None:
    """One notice per affected member; the banned member's says what was decided."""
    link = f"/ladders/{ladder.slug}/"
    users = {u.pk: u for u in User.objects.filter(pk__in=set(changes) | {banned.pk})}
    for user_id, user in users.items():
        change = changes.get(user_id)
        if user_id == banned.pk:
            tail = f"; your rating was recalculated: {change_text(change)}." if change else "."
            tell_member(user, banned_text + tail, f"/ladders/{ladder.slug}/ban/")
        elif change is not None:
            tell_member(user, f"{lead}: {change_text(change)}.", link)


def _details(
    matches: list[int], cancelled: list[int], changes: dict[int, float], since: date | None
) -> dict[str, object]:
    return {
        "matches": matches,
        "cancelled": cancelled,
        "void_since": since.isoformat() if since else None,
        "changes": {str(k): round(v, 3) for k, v in sorted(changes.items())},
    }
