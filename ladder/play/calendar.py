"""A member's calendar (RULES.md "Calendar"): their scheduled challenges, joined open games
and their ladders' club nights as iCalendar events, for the private feed and the .ics
download of one scheduled match. Built with the ``icalendar`` library.

Each event's UID is stable (what it is and its id), its SEQUENCE rises with each change,
its times carry the club's time zone (with the VTIMEZONE), and a called-off event stays
in the feed as STATUS:CANCELLED, so calendars that have it take it off.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from icalendar import Calendar, Event

from accounts.models import User
from ladder.clubnight.models import ClubNight
from ladder.play.models import CANCELLED, PLAYED, SCHEDULED, Challenge, OpenGame

# How long a scheduled match is put down for: a calendar needs an end.
MATCH_LENGTH = timedelta(hours=1)
# Past events kept in the feed: last month's, so a calendar does not drop them at once.
KEEP_PAST = timedelta(days=31)
_SHOWN = (SCHEDULED, PLAYED, CANCELLED)


def _domain() -> str:
    site = getattr(settings, "SITE_URL", "http://127.0.0.1:8000")
    return site.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] or "club-ladder"


def _calendar(name: str) -> Calendar:
    cal = Calendar()
    cal.add("prodid", "-//Club Ladder//Calendar//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", name)
    cal.add("x-wr-timezone", settings.TIME_ZONE)
    return cal


def _names(users: Iterable[User]) -> str:
    return " & ".join(u.name for u in users)


def _event(
    uid: str, summary: str, start: datetime | None, item: Challenge | OpenGame, description: str
) -> Event:
    assert start is not None, "only items with a time are in a calendar"
    zone = ZoneInfo(settings.TIME_ZONE)
    event = Event()
    event.add("uid", f"{uid}@{_domain()}")
    event.add("summary", summary)
    event.add("dtstart", start.astimezone(zone))
    event.add("dtend", (start + MATCH_LENGTH).astimezone(zone))
    event.add("dtstamp", item.updated_at)
    event.add("last-modified", item.updated_at)
    event.add("sequence", item.sequence)
    event.add("status", "CANCELLED" if item.state == CANCELLED else "CONFIRMED")
    if item.place:
        event.add("location", item.place)
    event.add("description", description)
    event.add("url", getattr(settings, "SITE_URL", "").rstrip("/") + item.get_absolute_url())
    return event


def challenge_event(challenge: Challenge) -> Event:
    lineup = f"{_names(challenge.side_a)} v {_names(challenge.side_b)}"
    description = f"Challenge on {challenge.ladder.name}: {lineup}."
    if challenge.message:
        description += f"\n{challenge.message}"
    return _event(
        f"challenge-{challenge.pk}",
        f"{challenge.ladder.name}: {lineup}",
        challenge.starts_at,
        challenge,
        description,
    )


def game_event(game: OpenGame) -> Event:
    # Its players, not sides ("&" joins partners): who plays with whom is settled at the court.
    players = ", ".join(u.name for u in game.players_list)
    kind = "doubles" if game.team_size == 2 else "singles"
    return _event(
        f"open-game-{game.pk}",
        f"{game.ladder.name}: {kind} game ({players})",
        game.starts_at,
        game,
        f"Open game on {game.ladder.name} posted by {game.host.name}. Players: {players}.",
    )


def club_night_event(night: ClubNight) -> Event:
    event = Event()
    event.add("uid", f"club-night-{night.pk}@{_domain()}")
    event.add("summary", f"{night.ladder.name}: club night")
    event.add("dtstart", night.date)  # a whole day: the club night has no hours
    event.add("dtend", night.date + timedelta(days=1))
    event.add("dtstamp", night.created_at)
    event.add("status", "CONFIRMED")
    return event


def member_calendar(user: User, now: datetime | None = None) -> Calendar:
    """Everything in ``user``'s diary from a month ago on."""
    now = now or timezone.now()
    since = now - KEEP_PAST
    cal = _calendar(f"Club ladder: {user.name}")
    challenges = (
        Challenge.objects.filter(
            players__user=user, state__in=_SHOWN, starts_at__isnull=False, starts_at__gte=since
        )
        .select_related("ladder")
        .prefetch_related("players__user")
        .order_by("starts_at", "pk")
    )
    for challenge in challenges:
        cal.add_component(challenge_event(challenge))
    games = (
        OpenGame.objects.filter(players__user=user, state__in=_SHOWN, starts_at__gte=since)
        .select_related("ladder", "host")
        .prefetch_related("players__user")
        .order_by("starts_at", "pk")
    )
    for game in games:
        cal.add_component(game_event(game))
    nights = ClubNight.objects.filter(
        Q(ladder__memberships__user=user), date__gte=timezone.localdate(since)
    ).select_related("ladder")
    for night in nights:
        cal.add_component(club_night_event(night))
    cal.add_missing_timezones()
    return cal


def single_event(item: Challenge | OpenGame) -> Calendar:
    """One scheduled match as a calendar of its own (the .ics download)."""
    cal = _calendar(str(item.ladder.name))
    cal.add_component(challenge_event(item) if isinstance(item, Challenge) else game_event(item))
    cal.add_missing_timezones()
    return cal
