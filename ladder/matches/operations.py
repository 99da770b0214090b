"""The match life cycle (RULES.md "Matches"): every rule, in one place.

The web pages and the API call these operations and hold no rules of their own.
Each operation checks its own preconditions and either raises a ``MatchError``
having changed nothing, or, in one transaction with the match row locked, makes
the change, writes exactly one ``AuditEntry`` and, after commit, sends its emails
and (when the match enters or leaves a rated state) enqueues the rating work.

States::

    pending ──confirm──▶ confirmed ──correct──▶ corrected ──correct / void──▶ …
       │                    └──────void──────▶ voided
       ├──dispute──▶ disputed ──resolve: uphold / correct / void──▶ confirmed / corrected / voided
       ├──cancel (reporter)──▶ cancelled
       └──time (confirm_within_hours)──▶ expired

A pending match past its window counts as expired at once, before the periodic
``expire_overdue`` sweep writes it down.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import Http404
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.formats import date_format

from accounts.models import MODERATORS_GROUP, User
from ladder.clubs.models import HIDDEN_PLAYER_NAME, Ladder, Membership, sees_hidden_members
from ladder.matches.models import (
    CANCELLED,
    CONFIRMED,
    CORRECTED,
    DISPUTED,
    EXPIRED,
    LIVE_STATES,
    PENDING,
    RATED_STATES,
    TO_CONFIRM,
    VOIDED,
    AuditEntry,
    Dispute,
    Game,
    Match,
    MatchPlayer,
    Notification,
)
from ladder.matches.signals import ratings_due
from ratings.engine.formats import ScoreError

log = logging.getLogger(__name__)

CONFIRM, DISPUTE, CANCEL, RESOLVE, CORRECT, VOID = (
    "confirm",
    "dispute",
    "cancel",
    "resolve",
    "correct",
    "void",
)
ACTIONS = (CONFIRM, DISPUTE, CANCEL, RESOLVE, CORRECT, VOID)
DECISIONS = ("uphold", "correct", "void")
_DECISION_STATE = {"uphold": CONFIRMED, "correct": CORRECTED, "void": VOIDED}
_DECISION_RESOLUTION = {"uphold": "upheld", "correct": "corrected", "void": "voided"}
_DECIDED_STATES = (CONFIRMED, CORRECTED, VOIDED, CANCELLED, EXPIRED)

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
# No sport we know scores this much in one game; PositiveSmallIntegerField holds 32767.
MAX_POINTS = 9999
# Reasons (disputes, decisions, corrections) are read by people: a few paragraphs at most.
MAX_REASON_LENGTH = 2000
MAX_NAME_ECHO = 150  # a username is at most 150 characters; never echo more of an input
RATE_WINDOW = timedelta(hours=1)


# ---- errors -----------------------------------------------------------------------------


class MatchError(Exception):
    """A match operation that cannot be done; ``message`` is for people, ``status`` for HTTP."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MatchValidationError(MatchError):
    """Bad input: ``errors`` maps a field ("games", "played_on", …, "__all__") to messages."""

    status = 400

    def __init__(self, errors: Mapping[str, Sequence[str]], message: str | None = None) -> None:
        self.errors: dict[str, list[str]] = {k: list(v) for k, v in errors.items() if v}
        messages = [m for msgs in self.errors.values() for m in msgs]
        super().__init__(message or " ".join(messages) or "The input is not valid.")


class MatchPermissionError(MatchError):
    """This user may not do this to this match."""

    status = 403


class MatchStateError(MatchError):
    """The state machine refuses the transition (including confirming an expired match)."""

    status = 409


class _Errors(dict[str, list[str]]):
    def add(self, key: str, message: str) -> None:
        self.setdefault(key, []).append(message)

    def raise_if_any(self) -> None:
        if self:
            raise MatchValidationError(self)


# ---- reading ----------------------------------------------------------------------------


def get_match_for_user(user: Any, pk: Any) -> Match:
    """The match ``pk`` with its players, games, disputes and audit trail; 404 if not visible."""
    try:
        return Match.objects.visible_to(user).with_history().get(pk=pk)
    except (Match.DoesNotExist, ValueError, TypeError):
        raise Http404("No such match.") from None


def mask_hidden_players(shown: Iterable[Match], viewer: Any) -> None:
    """Withhold hidden members' names on these matches (fetched ``with_details`` or
    ``with_history``) from ``viewer``, by the rule of ladder.clubs.models: players, reporter,
    dispute raisers and audit actors who are hidden from the viewer become a stand-in named
    HIDDEN_PLAYER_NAME with no username. A player of the match sees every name on it.
    For display only: call it after the domain operations, on what is about to be shown."""
    shown = list(shown)
    if not shown or sees_hidden_members(viewer):
        return
    hidden: dict[int, set[int]] = {}
    rows = (
        Membership.objects.filter(ladder_id__in={m.ladder_id for m in shown})
        .hidden_from(viewer)
        .order_by()
        .values_list("ladder_id", "user_id")
    )
    for ladder_id, user_id in rows:
        hidden.setdefault(ladder_id, set()).add(user_id)
    viewer_id = getattr(viewer, "pk", None)
    for match in shown:
        ids = hidden.get(match.ladder_id, set())
        players = list(match.players.all())
        if not ids or any(p.user_id == viewer_id for p in players):
            continue

        def masked(user: User | None, ids: set[int] = ids) -> User | None:
            if user is None or user.pk not in ids:
                return user
            # Unsaved and never saved: only its name and (no) username are ever read.
            return User(pk=user.pk, username="", display_name=HIDDEN_PLAYER_NAME)

        names = {p.user.username for p in players if p.user_id in ids}
        for player in players:
            player.user = masked(player.user)  # type: ignore[assignment]
        match.reporter = masked(match.reporter)  # type: ignore[assignment]
        cached = getattr(match, "_prefetched_objects_cache", {})
        for dispute in cached.get("disputes", []):
            dispute.raised_by = masked(dispute.raised_by)
        for entry in cached.get("audit", []):
            entry.actor = masked(entry.actor)
            entry.before, entry.after = (
                _without_names(entry.before, names),
                _without_names(entry.after, names),
            )


def _without_names(snapshot: Any, names: set[str]) -> Any:
    """An audit snapshot with the usernames in ``names`` withheld (None) from its sides."""
    if not isinstance(snapshot, dict):
        return snapshot
    return {
        key: [None if n in names else n for n in value]
        if key in ("side_a", "side_b") and isinstance(value, list)
        else value
        for key, value in snapshot.items()
    }


@dataclass
class Inbox:
    """What waits for a member: matches to confirm, their own open reports, open disputes."""

    to_confirm: list[Match] = field(default_factory=list)
    my_pending: list[Match] = field(default_factory=list)
    disputes: list[Match] = field(default_factory=list)  # moderators only

    @property
    def count(self) -> int:
        return len(self.to_confirm)


def inbox_for(user: Any, now: datetime | None = None) -> Inbox:
    """The inbox of ``user`` (empty for visitors)."""
    if user is None or not user.is_authenticated:
        return Inbox()
    now = now or timezone.now()
    waiting = (
        Match.objects.filter(state=PENDING, players__user=user)
        .exclude(reporter=user)
        .with_details()
        .order_by("created_at", "pk")
    )
    to_confirm = [
        m for m in waiting if m.side_of(user) != m.reporter_side and not m.is_expired(now)
    ]
    mine = (
        Match.objects.filter(reporter=user, state__in=(PENDING, DISPUTED))
        .with_details()
        .order_by("created_at", "pk")
    )
    my_pending = [m for m in mine if not m.is_expired(now)]
    disputes = list(moderation_queue()) if user.is_moderator else []
    return Inbox(to_confirm=to_confirm, my_pending=my_pending, disputes=disputes)


def moderation_queue() -> QuerySet[Match]:
    """Disputed matches, the longest waiting first, with players, games and disputes."""
    return (
        Match.objects.filter(state=DISPUTED)
        .with_details()
        .prefetch_related("disputes__raised_by")
        .order_by("updated_at", "pk")
    )


# ---- who may do what ----------------------------------------------------------------------


def _require_signed_in(user: Any) -> None:
    if user is None or not user.is_authenticated:
        raise MatchPermissionError("Sign in first.")


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


def _check_opponent(match: Match, user: Any, now: datetime, verb: str, done: str) -> None:
    _require_signed_in(user)
    side = match.side_of(user)
    if side is None or side == match.reporter_side:
        if user.pk == match.reporter_id:
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


def _check_confirm(match: Match, user: Any, now: datetime) -> None:
    _check_opponent(match, user, now, "confirm", "confirmed")


def _check_dispute(match: Match, user: Any, now: datetime) -> None:
    _check_opponent(match, user, now, "dispute", "disputed")


def _check_cancel(match: Match, user: Any, now: datetime) -> None:
    _require_signed_in(user)
    if user.pk != match.reporter_id:
        raise MatchPermissionError(
            f"Only {match.reporter.name}, who reported this match, can cancel it."
        )
    _require_live_pending(match, now, "cancelled")


def _require_moderator(user: Any, what: str) -> None:
    _require_signed_in(user)
    if not user.is_moderator:
        raise MatchPermissionError(f"Only a moderator can {what}.")


def _check_resolve(match: Match, user: Any, now: datetime) -> None:
    _require_moderator(user, "resolve a dispute")
    if match.state != DISPUTED:
        raise MatchStateError(
            f"This match is {STATE_PHRASES[match.state]}; there is no open dispute to resolve."
        )


def _check_rated(match: Match, user: Any, verb: str, done: str) -> None:
    _require_moderator(user, f"{verb} a confirmed match")
    if match.state not in RATED_STATES:
        hint = " Resolve the dispute instead." if match.state == DISPUTED else ""
        raise MatchStateError(
            f"This match is {STATE_PHRASES[match.state]}; only a confirmed match can be {done}."
            + hint
        )


def _check_correct(match: Match, user: Any, now: datetime) -> None:
    _check_rated(match, user, "correct", "corrected")


def _check_void(match: Match, user: Any, now: datetime) -> None:
    _check_rated(match, user, "void", "voided")


_CHECKS: dict[str, Callable[[Match, Any, datetime], None]] = {
    CONFIRM: _check_confirm,
    DISPUTE: _check_dispute,
    CANCEL: _check_cancel,
    RESOLVE: _check_resolve,
    CORRECT: _check_correct,
    VOID: _check_void,
}


def allowed_actions(match: Match, user: Any, now: datetime | None = None) -> set[str]:
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


# ---- validation helpers ----------------------------------------------------------------------


def _games(raw: Any, ladder: Ladder, errors: _Errors, key: str = "games") -> list[tuple[int, int]]:
    """``raw`` as (a, b) tuples if they are a valid match in the ladder's format; else errors."""
    if not isinstance(raw, list | tuple):
        errors.add(key, "Enter the games as a list of scores, like [[21, 15], [21, 18]].")
        return []
    games = [tuple(g) if isinstance(g, list | tuple) else g for g in raw]
    try:
        ladder.scoring().validate_games(games)
    except ScoreError as exc:
        for problem in exc.problems:
            errors.add(key, f"{problem}.")
        return []
    too_many = [n for n, (a, b) in enumerate(games, 1) if max(a, b) > MAX_POINTS]
    for number in too_many:
        errors.add(key, f"Game {number}: more than {MAX_POINTS} points is not a real score.")
    return [] if too_many else [(int(a), int(b)) for a, b in games]


def _check_date(
    played_on: Any, errors: _Errors, now: datetime, max_age_days: int | None
) -> date | None:
    if isinstance(played_on, datetime) or not isinstance(played_on, date):
        errors.add("played_on", "Enter the date the match was played.")
        return None
    today = timezone.localdate(now)
    if played_on > today:
        errors.add("played_on", "The date cannot be in the future.")
    elif max_age_days is not None and played_on < today - timedelta(days=max_age_days):
        errors.add(
            "played_on",
            f"Matches can be reported up to {max_age_days} days after they were played; "
            f"{date_format(played_on, 'j F Y')} is too long ago.",
        )
    return played_on


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _stats(
    raw: Any, ladder: Ladder, players: Sequence[User], errors: _Errors
) -> dict[int, dict[str, float]]:
    """Per-player stats keyed by user id, from keys that are user ids or usernames."""
    if raw in (None, {}):
        return {}
    if not isinstance(raw, Mapping):
        errors.add("stats", "Stats must map each player to their numbers, like {name: {kills: 3}}.")
        return {}
    if ladder.team_method != "performance_weighted":
        if any(raw.values()):
            errors.add("stats", f"{ladder.name} does not use player stats; leave them out.")
        return {}
    by_key: dict[Any, User] = {}
    for player in players:
        by_key[player.pk] = by_key[player.username] = player
    allowed = ladder.stat_names
    result: dict[int, dict[str, float]] = {}
    for key, values in raw.items():
        user: User | None = by_key.get(key)
        if user is None and isinstance(key, str) and key.isdigit():
            user = by_key.get(int(key))
        if user is None:
            errors.add("stats", f"{key} is not a player in this match.")
            continue
        if not isinstance(values, Mapping):
            errors.add("stats", f"{user.name}'s stats must be numbers by name, like {{kills: 3}}.")
            continue
        for stat, value in values.items():
            if allowed and stat not in allowed:
                errors.add(
                    "stats",
                    f"{ladder.name} has no stat called {stat!r}; it uses {', '.join(allowed)}.",
                )
            elif not _is_number(value):
                errors.add("stats", f"{user.name}'s {stat} must be a number, not {value!r}.")
        result[user.pk] = dict(values)
    return result


def no_member_called(ladder: Ladder, username: str) -> str:
    """The one answer for a name that is not a member: the same whether or not an account of
    that name exists, so a report or a prediction cannot be used to find out who has one."""
    return f"No member of {ladder.name} is called {username[:MAX_NAME_ECHO]!r}."


def _reason(reason: Any, errors: _Errors, prompt: str) -> str:
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        errors.add("reason", prompt)
    elif len(text) > MAX_REASON_LENGTH:
        errors.add(
            "reason",
            f"Keep the reason to {MAX_REASON_LENGTH} characters; this one has {len(text)}.",
        )
    return text


# ---- snapshots and transitions --------------------------------------------------------------


def _snapshot_of(
    played_on: date,
    side_a: Iterable[User],
    side_b: Iterable[User],
    games: Iterable[tuple[int, int]],
    stats: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    snap: dict[str, Any] = {
        "played_on": played_on.isoformat(),
        "side_a": [u.username for u in side_a],
        "side_b": [u.username for u in side_b],
        "games": [[a, b] for a, b in games],
    }
    if stats:
        snap["stats"] = dict(stats)
    return snap


def snapshot(match: Match) -> dict[str, Any]:
    """What an audit entry records of a match: date, players, games (and stats if any)."""
    stats = {p.user.username: p.stats for p in match.players.all() if p.stats}
    return _snapshot_of(
        match.played_on, match.side_a_players, match.side_b_players, match.game_scores, stats
    )


def _lock(match: Match | int) -> Match:
    pk = match if isinstance(match, int) else match.pk
    try:
        return Match.objects.select_for_update(of=("self",)).with_details().get(pk=pk)
    except Match.DoesNotExist:
        raise Http404("No such match.") from None


def _transition(
    match: Match,
    actor: User | None,
    action: str,
    to_state: str,
    now: datetime,
    *,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    reason: str = "",
    extra_fields: Sequence[str] = (),
) -> None:
    """Move ``match`` to ``to_state`` and write its one audit entry (inside the caller's atomic)."""
    from_state = match.state
    match.state = to_state
    match.updated_at = now
    update = ["state", "updated_at", *extra_fields]
    if to_state in _DECIDED_STATES:
        match.decided_at = now
        update.append("decided_at")
    # The ratings pipeline replays whatever enters or leaves a rated state (RULES.md
    # "Ratings in the site"); a match that never counted and never will needs nothing.
    rate = from_state in RATED_STATES or to_state in RATED_STATES
    if rate:
        match.needs_rating = True
        update.append("needs_rating")
    match.save(update_fields=update)
    AuditEntry.objects.create(
        match=match,
        actor=actor,
        at=now,
        action=action,
        from_state=from_state,
        to_state=to_state,
        before=before,
        after=after,
        reason=reason,
    )
    if rate:
        ladder_id = match.ladder_id
        transaction.on_commit(lambda: ratings_due.send(sender=Match, ladder_id=ladder_id))


def _replace_games(match: Match, games: Sequence[tuple[int, int]]) -> None:
    match.games.all().delete()
    Game.objects.bulk_create(
        Game(match=match, number=n, a_points=a, b_points=b) for n, (a, b) in enumerate(games, 1)
    )
    # Drop the stale prefetch so the snapshot after the change reads the new games.
    getattr(match, "_prefetched_objects_cache", {}).pop("games", None)


# ---- operations -------------------------------------------------------------------------


def _checked_report(
    ladder: Ladder,
    reporter: User,
    played_on: date,
    side_a: Sequence[User],
    side_b: Sequence[User],
    games: Sequence[Sequence[int]],
    stats: Mapping[Any, Mapping[str, Any]] | None,
    now: datetime,
    *,
    lock: bool,
) -> tuple[date, list[User], list[User], list[tuple[int, int]], dict[int, Any]]:
    """Every rule a report must pass, or MatchError; the report's values, cleaned.

    With ``lock`` (inside the report's transaction) the players' memberships are locked
    first, in a fixed order so that two reports cannot deadlock: a second report of the
    same match, or a double click, waits for this one and then sees it as a duplicate, and
    the pending and hourly limits cannot be raced. Without it (``check_report``, as the
    member types) the same rules read without locks and nothing is written."""
    _require_signed_in(reporter)
    side_a, side_b = list(side_a), list(side_b)
    players = side_a + side_b
    errors = _Errors()

    played_on = _check_date(played_on, errors, now, ladder.max_report_age_days)  # type: ignore[assignment]
    size = ladder.team_size
    for key, label, side in (("side_a", "Side A", side_a), ("side_b", "Side B", side_b)):
        if len(side) != size:
            need = f"{size} player" if size == 1 else f"{size} players"
            errors.add(key, f"{label} needs exactly {need} in {ladder.name}; it has {len(side)}.")
    seen: set[int] = set()
    for user in players:
        if user.pk in seen:
            errors.add("players", f"{user.name} is named twice; every player must be different.")
        seen.add(user.pk)
    if reporter.pk not in seen:
        errors.add("players", "You can only report a match you played in: add yourself to a side.")
    game_scores = _games(games, ladder, errors)
    player_stats = _stats(stats, ladder, players, errors)

    memberships = Membership.objects.filter(
        ladder=ladder, user__in=[u.pk for u in players] + [reporter.pk]
    )
    if lock:
        memberships = memberships.select_for_update().order_by("pk")
    members = set(memberships.values_list("user_id", flat=True))
    if reporter.pk not in members:
        raise MatchPermissionError(
            f"You are not a member of {ladder.name}; join it to report matches."
        )
    for user in dict.fromkeys(players):
        if user.pk not in members:
            errors.add("players", no_member_called(ladder, user.username))
    _check_limits(ladder, reporter, now, errors)
    if not errors:
        duplicate = _find_duplicate(ladder, played_on, side_a, side_b, game_scores)
        if duplicate is not None:
            errors.add(
                "__all__",
                f"This match is already reported (match {duplicate.pk} by "
                f"{duplicate.reporter.name}: same players, date and score); confirm or "
                "dispute that one instead.",
            )
    errors.raise_if_any()
    return played_on, side_a, side_b, game_scores, player_stats


def check_report(
    *,
    ladder: Ladder,
    reporter: User,
    played_on: date,
    side_a: Sequence[User],
    side_b: Sequence[User],
    games: Sequence[Sequence[int]],
    stats: Mapping[Any, Mapping[str, Any]] | None = None,
    now: datetime | None = None,
) -> None:
    """Whether ``report_match`` would take this report, without making it: MatchError if
    not. The report form asks this as the member types (the same rules, no locks, no rows)."""
    now = now or timezone.now()
    _checked_report(ladder, reporter, played_on, side_a, side_b, games, stats, now, lock=False)


def report_match(
    *,
    ladder: Ladder,
    reporter: User,
    played_on: date,
    side_a: Sequence[User],
    side_b: Sequence[User],
    games: Sequence[Sequence[int]],
    stats: Mapping[Any, Mapping[str, Any]] | None = None,
    now: datetime | None = None,
) -> Match:
    """Report a match ``reporter`` played; it waits for an opponent to confirm it."""
    now = now or timezone.now()
    with transaction.atomic():
        played_on, side_a, side_b, game_scores, player_stats = _checked_report(
            ladder, reporter, played_on, side_a, side_b, games, stats, now, lock=True
        )
        players = side_a + side_b
        match = Match.objects.create(
            ladder=ladder,
            played_on=played_on,
            reporter=reporter,
            state=PENDING,
            created_at=now,
            updated_at=now,
        )
        MatchPlayer.objects.bulk_create(
            MatchPlayer(
                match=match,
                user=user,
                side=side,
                position=position,
                stats=player_stats.get(user.pk),
            )
            for side, members_of_side in (("a", side_a), ("b", side_b))
            for position, user in enumerate(members_of_side)
        )
        Game.objects.bulk_create(
            Game(match=match, number=n, a_points=a, b_points=b)
            for n, (a, b) in enumerate(game_scores, 1)
        )
        stats_by_name = {u.username: player_stats[u.pk] for u in players if u.pk in player_stats}
        AuditEntry.objects.create(
            match=match,
            actor=reporter,
            at=now,
            action="report",
            from_state="",
            to_state=PENDING,
            before=None,
            after=_snapshot_of(played_on, side_a, side_b, game_scores, stats_by_name),
        )
        match = Match.objects.with_details().get(pk=match.pk)
        notify_reported(match)
    return match


def _check_limits(ladder: Ladder, reporter: User, now: datetime, errors: _Errors) -> None:
    mine = Match.objects.filter(ladder=ladder, reporter=reporter)
    window = timedelta(hours=ladder.confirm_within_hours)
    pending = mine.filter(state=PENDING, created_at__gt=now - window).count()
    if pending >= ladder.max_pending_reports:
        errors.add(
            "__all__",
            f"You already have {pending} reports waiting for confirmation on {ladder.name}, "
            "the most allowed; wait until your opponents confirm them, or cancel one.",
        )
    recent = mine.filter(created_at__gt=now - RATE_WINDOW).count()
    if recent >= ladder.reports_per_hour:
        errors.add(
            "__all__",
            f"You have reported {recent} matches on {ladder.name} in the last hour, the most "
            "allowed; please try again later.",
        )


def _find_duplicate(
    ladder: Ladder,
    played_on: date,
    side_a: Sequence[User],
    side_b: Sequence[User],
    games: Sequence[tuple[int, int]],
) -> Match | None:
    """A live match with the same players, date and score (sides swapped means scores swapped)."""
    a, b = {u.pk for u in side_a}, {u.pk for u in side_b}
    games = list(games)
    swapped = [(y, x) for x, y in games]
    candidates = (
        Match.objects.filter(
            ladder=ladder, played_on=played_on, state__in=LIVE_STATES, players__user=side_a[0]
        )
        .with_details()
        .distinct()
    )
    for match in candidates:
        other_a = {u.pk for u in match.side_a_players}
        other_b = {u.pk for u in match.side_b_players}
        scores = match.game_scores
        if (other_a, other_b, scores) == (a, b, games) or (other_a, other_b, scores) == (
            b,
            a,
            swapped,
        ):
            return match
    return None


def _by_a_player(
    match: Match,
    by: User,
    action: str,
    to_state: str,
    check: Callable[[Match, Any, datetime], None],
    now: datetime | None,
) -> Match:
    """A player's transition that changes nothing but the state: confirm, cancel."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        check(match, by, now)
        snap = snapshot(match)
        _transition(match, by, action, to_state, now, before=snap, after=snap)
    return match


def confirm_match(match: Match, by: User, now: datetime | None = None) -> Match:
    """An opponent confirms the reported score; the match is then rated."""
    with transaction.atomic():
        match = _by_a_player(match, by, "confirm", CONFIRMED, _check_confirm, now)
        notify_confirmed(match, by)
    return match


def dispute_match(
    match: Match,
    by: User,
    reason: str,
    proposed_games: Sequence[Sequence[int]] | None = None,
    now: datetime | None = None,
) -> Match:
    """An opponent says the report is wrong (reason required, may propose the right score)."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        _check_dispute(match, by, now)
        errors = _Errors()
        text = _reason(reason, errors, "Say what is wrong with the reported result.")
        proposed = None
        if proposed_games:
            proposed = _games(proposed_games, match.ladder, errors)
            if proposed and proposed == match.game_scores:
                errors.add("games", "That is the reported score; confirm the match if it is right.")
        errors.raise_if_any()
        dispute = Dispute.objects.create(
            match=match,
            raised_by=by,
            reason=text,
            proposed_games=[list(g) for g in proposed] if proposed else None,
            created_at=now,
        )
        before = snapshot(match)
        after = {**before, "proposed_games": dispute.proposed_games}
        _transition(match, by, "dispute", DISPUTED, now, before=before, after=after, reason=text)
        notify_disputed(match, dispute)
    return match


def cancel_match(match: Match, by: User, now: datetime | None = None) -> Match:
    """The reporter withdraws a report nobody has confirmed yet."""
    return _by_a_player(match, by, "cancel", CANCELLED, _check_cancel, now)


def _moderator_changes(
    match: Match,
    errors: _Errors,
    games: Sequence[Sequence[int]] | None,
    played_on: date | None,
    now: datetime,
) -> tuple[list[tuple[int, int]], date | None]:
    """A moderator's new score (required) and date (optional, not in the future)."""
    new_games: list[tuple[int, int]] = []
    if not games:
        errors.add("games", "Enter the correct score.")
    else:
        new_games = _games(games, match.ladder, errors)
    if played_on is not None:
        # A moderator may correct a date of any age; only the future is impossible.
        played_on = _check_date(played_on, errors, now, max_age_days=None)
    if new_games and new_games == match.game_scores and played_on in (None, match.played_on):
        errors.add("games", "That is the score already recorded; nothing would change.")
    return new_games, played_on


def _apply_correction(
    match: Match, games: Sequence[tuple[int, int]], played_on: date | None
) -> list[str]:
    _replace_games(match, games)
    if played_on is not None and played_on != match.played_on:
        match.played_on = played_on
        return ["played_on"]
    return []


def resolve_dispute(
    match: Match,
    by: User,
    decision: str,
    reason: str,
    games: Sequence[Sequence[int]] | None = None,
    played_on: date | None = None,
    now: datetime | None = None,
) -> Match:
    """A moderator settles a dispute: uphold the report, correct the score, or void the match."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        _check_resolve(match, by, now)
        errors = _Errors()
        if decision not in DECISIONS:
            errors.add("decision", "Choose uphold, correct or void.")
        text = _reason(reason, errors, "Give the reason for your decision; the players see it.")
        new_games: list[tuple[int, int]] = []
        new_date = None
        if decision == "correct":
            new_games, new_date = _moderator_changes(match, errors, games, played_on, now)
        errors.raise_if_any()

        before = snapshot(match)
        extra = _apply_correction(match, new_games, new_date) if decision == "correct" else []
        match.disputes.filter(resolution__isnull=True).update(
            resolution=_DECISION_RESOLUTION[decision],
            resolved_by=by,
            resolution_reason=text,
            resolved_at=now,
        )
        _transition(
            match,
            by,
            f"resolve_{decision}",
            _DECISION_STATE[decision],
            now,
            before=before,
            after=snapshot(match),
            reason=text,
            extra_fields=extra,
        )
        notify_decided(match, by, f"resolve_{decision}", text)
    return match


def correct_match(
    match: Match,
    by: User,
    games: Sequence[Sequence[int]],
    reason: str,
    played_on: date | None = None,
    now: datetime | None = None,
) -> Match:
    """A moderator corrects the score (and maybe the date) of a confirmed match."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        _check_correct(match, by, now)
        errors = _Errors()
        text = _reason(reason, errors, "Give the reason for the correction; the players see it.")
        new_games, new_date = _moderator_changes(match, errors, games, played_on, now)
        errors.raise_if_any()
        before = snapshot(match)
        extra = _apply_correction(match, new_games, new_date)
        _transition(
            match,
            by,
            "correct",
            CORRECTED,
            now,
            before=before,
            after=snapshot(match),
            reason=text,
            extra_fields=extra,
        )
        notify_decided(match, by, "correct", text)
    return match


def void_match(match: Match, by: User, reason: str, now: datetime | None = None) -> Match:
    """A moderator voids a confirmed match: it no longer counts."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock(match)
        _check_void(match, by, now)
        errors = _Errors()
        text = _reason(reason, errors, "Give the reason for voiding the match; the players see it.")
        errors.raise_if_any()
        snap = snapshot(match)
        _transition(match, by, "void", VOIDED, now, before=snap, after=snap, reason=text)
        notify_decided(match, by, "void", text)
    return match


def expire_overdue(now: datetime | None = None) -> int:
    """Mark pending matches past their confirmation window expired; returns how many."""
    now = now or timezone.now()
    expired = 0
    for ladder_id, hours in Ladder.objects.values_list("pk", "confirm_within_hours"):
        overdue = list(
            Match.objects.filter(
                ladder_id=ladder_id, state=PENDING, created_at__lt=now - timedelta(hours=hours)
            ).values_list("pk", flat=True)
        )
        for pk in overdue:
            with transaction.atomic():
                match = _lock(pk)
                if not match.is_expired(now) or match.state != PENDING:
                    continue  # confirmed or cancelled in the meantime
                snap = snapshot(match)
                _transition(match, None, "expire", EXPIRED, now, before=snap, after=snap)
                expired += 1
    return expired


def _site_url(path: str) -> str:
    return getattr(settings, "SITE_URL", "http://127.0.0.1:8000").rstrip("/") + path


def _send(template: str, recipients: Iterable[User], **context: Any) -> None:
    """One plain-text email per recipient with an address; a mail failure is logged, not raised.

    It runs after commit: the match has changed whatever the mail server says.
    """
    for user in {u.pk: u for u in recipients}.values():
        if not user.email:
            continue
        ctx = {**context, "recipient": user}
        subject = " ".join(render_to_string(f"ladder/email/{template}_subject.txt", ctx).split())
        body = render_to_string(f"ladder/email/{template}.txt", ctx)
        try:
            send_mail(subject, body, None, [user.email])
        except Exception:
            log.exception("Could not send %s email to %s", template, user.username)


def _context(match: Match) -> dict[str, Any]:
    return {"match": match, "ladder": match.ladder, "url": _site_url(match.get_absolute_url())}


def everyone_moderating() -> QuerySet[User]:
    """Who settles disputes: the Moderators group and superusers."""
    return User.objects.filter(
        Q(groups__name=MODERATORS_GROUP) | Q(is_superuser=True), is_active=True
    ).distinct()


def moderators() -> QuerySet[User]:
    """Who hears about disputes by e-mail: those settling them who have an address."""
    return everyone_moderating().exclude(email="")


def _tell(kind: str, users: Iterable[User], match: Match, text: str) -> None:
    """The site's notifications (each user once), written in the caller's transaction."""
    Notification.objects.bulk_create(
        Notification(user=user, kind=kind, match=match, text=text[:300])
        for user in {u.pk: u for u in users}.values()
    )


def _mail_after_commit(template: str, recipients: Iterable[User], **context: Any) -> None:
    recipients = list(recipients)
    transaction.on_commit(lambda: _send(template, recipients, **context))


def describe(match: Match) -> str:
    """ "Ann and Bo v Cy and Di on 3 Mar (Doubles), 21–15 21–18": a match in one line."""
    sides = " v ".join(
        " and ".join(u.name for u in side) for side in (match.side_a_players, match.side_b_players)
    )
    games = " ".join(f"{a}\u2013{b}" for a, b in match.game_scores)
    day = match.played_on
    return f"{sides} on {day.day} {day:%b} ({match.ladder.name}), {games}"


def tell_reported(match: Match) -> None:
    """The opponents' notification of a match waiting for their confirmation."""
    text = f"{match.reporter.name} reported {describe(match)}: confirm it or say what is wrong."
    _tell(TO_CONFIRM, match.opponents, match, text)


def tell_disputed(match: Match, dispute: Dispute) -> None:
    """The reporter's and every moderator's notification of a dispute."""
    by = dispute.raised_by.name
    _tell("disputed", [match.reporter], match, f"{by} disputed {describe(match)}: {dispute.reason}")
    _tell(
        "to_settle",
        everyone_moderating(),
        match,
        f"A dispute to settle: {by} disputed {describe(match)}: {dispute.reason}",
    )


def notify_reported(match: Match) -> None:
    """Tell the opponents a match against them waits for their confirmation."""
    tell_reported(match)
    _mail_after_commit(
        "match_reported",
        match.opponents,
        inbox_url=_site_url("/inbox/"),
        expires_at=match.expires_at,
        **_context(match),
    )


def notify_confirmed(match: Match, by: User) -> None:
    _tell("confirmed", [match.reporter], match, f"{by.name} confirmed {describe(match)}.")
    _mail_after_commit("match_confirmed", [match.reporter], by=by, **_context(match))


def notify_disputed(match: Match, dispute: Dispute) -> None:
    """The reporter learns of the dispute; moderators get it to settle."""
    ctx = {"dispute": dispute, "by": dispute.raised_by, **_context(match)}
    tell_disputed(match, dispute)
    _mail_after_commit("match_disputed", [match.reporter], **ctx)
    _mail_after_commit(
        "dispute_for_moderators",
        moderators(),
        moderation_url=_site_url("/moderation/"),
        **ctx,
    )


_TOLD_OF_DECISION = {
    "resolve_uphold": ("resolved", "upheld the report of"),
    "resolve_correct": ("corrected", "corrected the score of"),
    "resolve_void": ("voided", "voided"),
    "correct": ("corrected", "corrected"),
    "void": ("voided", "voided"),
}


def notify_decided(match: Match, by: User, action: str, reason: str) -> None:
    """Every player hears a moderator's decision on their match, with the reason."""
    players = [*match.side_a_players, *match.side_b_players]
    kind, verb = _TOLD_OF_DECISION[action]
    _tell(kind, players, match, f"{by.name} {verb} {describe(match)}: {reason}")
    _mail_after_commit(
        "match_decided", players, by=by, action=action, reason=reason, **_context(match)
    )
