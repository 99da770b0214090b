"""What a report, a dispute, a correction or a decision must hold: score (the ladder's
format), date, stats, reason, players, and the reporting limits.

The checks add readable messages to a ``FieldErrors`` and the caller raises them all at once;
``check_report`` runs every rule a report must pass without writing anything."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.utils import timezone
from django.utils.formats import date_format

from accounts.models import User
from ladder.clubs import access
from ladder.clubs.models import Ladder, Membership
from ladder.matches.errors import FieldErrors, MatchPermissionError, MatchValidationError
from ladder.matches.models import (
    LIVE_STATES,
    PENDING,
    Match,
)
from ladder.matches.permissions import require_signed_in
from ratings.engine.formats import ScoreError

# No sport we know scores this much in one game; PositiveSmallIntegerField holds 32767.
MAX_POINTS = 9999
# Reasons (disputes, decisions, corrections) are read by people: a few paragraphs at most.
MAX_REASON_LENGTH = 2000
MAX_NAME_ECHO = 150  # a username is at most 150 characters; never echo more of an input
RATE_WINDOW = timedelta(hours=1)


def check_games(
    raw: object, ladder: Ladder, errors: FieldErrors, key: str = "games"
) -> list[tuple[int, int]]:
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


REPORT_KEY_LENGTH = 64  # a UUID is 36 characters; Match.report_key holds this many


def check_report_key(key: str) -> None:
    """A client's key for a report (the API's Idempotency-Key): 1 to 64 visible ASCII
    characters, such as a UUID it made for this report."""
    if not key or len(key) > REPORT_KEY_LENGTH or not all("!" <= c <= "~" for c in key):
        raise MatchValidationError(
            {
                "report_key": [
                    f"Send 1 to {REPORT_KEY_LENGTH} visible ASCII characters without spaces "
                    "(a UUID made for this report, say), or no key."
                ]
            }
        )


# No club's records go back further: an earlier date is a typo (imports refuse it too).
EARLIEST_MATCH = date(1900, 1, 1)


def check_date(
    played_on: object, errors: FieldErrors, now: datetime, max_age_days: int | None
) -> date | None:
    if isinstance(played_on, datetime) or not isinstance(played_on, date):
        errors.add("played_on", "Enter the date the match was played.")
        return None
    today = timezone.localdate(now)
    if played_on > today:
        errors.add("played_on", "The date cannot be in the future.")
    elif played_on < EARLIEST_MATCH:
        errors.add("played_on", f"Enter a date from {EARLIEST_MATCH.year} on.")
    elif max_age_days is not None and (today - played_on).days > max_age_days:
        errors.add(
            "played_on",
            f"Matches can be reported up to {max_age_days} days after they were played; "
            f"{date_format(played_on, 'j F Y')} is too long ago.",
        )
    return played_on


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _stats(
    raw: object, ladder: Ladder, players: Sequence[User], errors: FieldErrors
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
    by_key: dict[int | str, User] = {}
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


def check_reason(reason: object, errors: FieldErrors, prompt: str) -> str:
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        errors.add("reason", prompt)
    elif len(text) > MAX_REASON_LENGTH:
        errors.add(
            "reason",
            f"Keep the reason to {MAX_REASON_LENGTH} characters; this one has {len(text)}.",
        )
    return text


@dataclass(frozen=True, kw_only=True)
class Report:
    """A match report as a member gives it: ``report_match`` makes it, ``check_report`` asks
    whether it would pass (the one list of a report's values)."""

    ladder: Ladder
    reporter: User
    played_on: date
    side_a: Sequence[User]
    side_b: Sequence[User]
    games: Sequence[Sequence[int]]
    stats: object = None  # per player (user id or username): numbers by stat name


@dataclass(frozen=True)
class CheckedReport:
    """A report that passed every rule, its values cleaned: the day, the sides, the games as
    (a, b) points and the stats by user id."""

    played_on: date
    side_a: list[User]
    side_b: list[User]
    games: list[tuple[int, int]]
    stats: dict[int, dict[str, float]]

    @property
    def players(self) -> list[User]:
        return self.side_a + self.side_b


def checked_report(
    report: Report, now: datetime, *, lock: bool, organiser: bool = False
) -> CheckedReport:
    """Every rule ``report`` must pass, or MatchError; its values, cleaned.

    With ``lock`` (inside the report's transaction) the players' memberships are locked
    first, in a fixed order so that two reports cannot deadlock: a second report of the
    same match, or a double click, waits for this one and then sees it as a duplicate, and
    the pending and hourly limits cannot be raced. Without it (``check_report``, as the
    member types) the same rules read without locks and nothing is written.

    ``organiser``: entered on club night's round screen by the member running it, who need
    not have played (ladder/clubnight/services.py ``enter_scores`` checks the court is one of
    tonight's); the reporter's pending and hourly limits do not apply, the evening's courts
    bound those reports."""
    ladder, reporter = report.ladder, report.reporter
    require_signed_in(reporter)
    side_a, side_b = list(report.side_a), list(report.side_b)
    players = side_a + side_b
    errors = FieldErrors()

    # None only with an error in ``errors``, raised before it is used.
    played_on: date = check_date(report.played_on, errors, now, ladder.max_report_age_days)  # type: ignore[assignment]
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
    if reporter.pk not in seen and not organiser:
        errors.add("players", "You can only report a match you played in: add yourself to a side.")
    game_scores = check_games(report.games, ladder, errors)
    player_stats = _stats(report.stats, ladder, players, errors)

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
    barred = access.barred(ladder, reporter)
    if barred:
        raise MatchPermissionError(barred)
    for user in dict.fromkeys(players):
        if user.pk not in members or access.barred(ladder, user):
            # A banned member reads as no member: others see the ban nowhere.
            errors.add("players", no_member_called(ladder, user.username))
        elif (refusal := access.playing_refusal(user)) is not None:
            errors.add("players", refusal)
    if not organiser:
        _check_limits(ladder, reporter, now, errors)
    if not errors:
        duplicate = _find_duplicate(ladder, played_on, side_a, side_b, game_scores)
        if duplicate is not None:
            errors.add("__all__", duplicate_message(duplicate, reporter))
    errors.raise_if_any()
    return CheckedReport(played_on, side_a, side_b, game_scores, player_stats)


def check_report(report: Report, *, now: datetime | None = None) -> None:
    """Whether ``report_match`` would take ``report``, without making it: MatchError if
    not. The report form asks this as the member types (the same rules, no locks, no rows)."""
    checked_report(report, now or timezone.now(), lock=False)


def _check_limits(ladder: Ladder, reporter: User, now: datetime, errors: FieldErrors) -> None:
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


def duplicate_message(duplicate: Match, reporter: User) -> str:
    """Why a report is refused as a copy of ``duplicate``, said to whoever reports it: the
    reporter (or a partner) is not asked to confirm their own side's report (issue 37.6)."""
    if duplicate.reporter_id == reporter.pk:
        said = (
            f"You already reported this match (match {duplicate.pk}: same players, date and score)"
        )
    else:
        said = (
            f"This match is already reported (match {duplicate.pk} by "
            f"{duplicate.reporter.name}: same players, date and score)"
        )
    side = duplicate.side_of(reporter)
    if duplicate.state != PENDING:
        return f"{said}."
    if duplicate.reporter_id == reporter.pk or (
        side is not None and side == duplicate.reporter_side
    ):
        return f"{said}; it waits for the other side's confirmation."
    return f"{said}; confirm or dispute that one instead."


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
