"""The demo club that `manage.py seed_demo` creates (RULES.md "Commands").

`seed_club()` makes the ladders, a moderator, a superuser and twenty members, and is
idempotent: what exists is left as it is. `seed_matches(club)` then plays a season on
every ladder without matches: twelve weeks of club nights (singles and doubles on
Tuesdays and Thursdays, the 5v5 league on Fridays), members coming most weeks and
paired near their level, every game played rally by rally from their hidden true levels
by the engine's simulator (ratings.lab.simulate), so scores look like real badminton
(21-17 19-21 23-21) and the stronger players win more often without winning always.
Most matches are confirmed; the last night's reports still wait for confirmation, and
one is disputed for a moderator. `seed_seasons(club)` splits the twelve weeks into an
archived season and the current one, and marks a member away for a while.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from functools import cache, partial
from typing import Any

from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import User
from accounts.roles import make_moderator
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import join_ladder, set_away
from ladder.matches.models import (
    CONFIRMED,
    DISPUTED,
    PENDING,
    AuditEntry,
    Dispute,
    Game,
    Match,
    MatchPlayer,
    Notification,
    Snapshot,
)
from ladder.matches.notifications import tell_disputed, tell_reported
from ladder.matches.operations import confirm_match, report_match, snapshot_of
from ladder.matches.validation import Report
from ladder.play import services as play
from ladder.play.models import Challenge
from ratings.engine.scales import DISPLAY_DIVISOR
from ratings.engine.types import MatchResult
from ratings.lab import simulate
from ratings.models import Season
from ratings.tasks import enqueue_rating
from ratings.upkeep import save_season

# Published in the README and printed by the command: demo data is for trying the site.
DEMO_PASSWORD = "ladder-demo-pass"
DEMO_EMAIL_DOMAIN = "example.org"

LADDERS: tuple[dict[str, Any], ...] = (
    {
        "slug": "singles",
        "name": "Singles",
        "description": "Men's and women's singles on club nights, best of three games to 21.",
        "scoring_format": "badminton_21",
        "team_size": 1,
    },
    {
        "slug": "doubles",
        "name": "Doubles",
        "description": "Level and mixed doubles; pairs change every week, ratings stay with you.",
        "scoring_format": "badminton_21",
        "team_size": 2,
    },
    {
        "slug": "team-5v5",
        "name": "5v5 League",
        "description": "The Friday 5v5 league: one map to 16 rounds, with kills, deaths and "
        "damage per round weighing each player's share of the result.",
        "scoring_format": "generic",
        "best_of": 1,
        "points_per_game": 16,
        "team_size": 5,
        "team_method": "performance_weighted",
        "composite_rd": "rms_of_mean",
        "method_options": {
            "stat_weights": {"kills": 1.0, "deaths": -0.7, "adr": 0.02},
            "stat_labels": {"kills": "Kills", "deaths": "Deaths", "adr": "Damage per round"},
        },
        # Five opponents a match: in a league of fourteen the share of distinct opponents
        # falls under the default 0.2 after a dozen maps, and RD would stop shrinking.
        "diversity_threshold": 0.05,
    },
)

# username, display name, true badminton level, and per ladder slug: None (joined without
# a self-assessment) or (level, certainty) with either part None. The true level (display
# scale) is hidden: the season is played from it; some members guess themselves right,
# some a little high or low.
Assessment = tuple[str | None, str | None] | None
MEMBERS: tuple[tuple[str, str, float, dict[str, Assessment]], ...] = (
    ("priya", "Priya Patel", 5.7, {"singles": ("5.5", "rated"), "doubles": ("5.5", "rated")}),
    (
        "tom",
        "Tom Okafor",
        4.9,
        {"singles": ("5.0", "regular"), "doubles": None, "team-5v5": ("4.5", None)},
    ),
    ("mei", "Mei Lin", 5.1, {"singles": ("5.0", "rated"), "doubles": ("5.0", "rated")}),
    ("jonas", "Jonas Berg", 4.3, {"singles": None, "doubles": None, "team-5v5": None}),
    ("sofia", "Sofia Rossi", 3.9, {"singles": ("4.0", "regular"), "doubles": ("4.0", "regular")}),
    ("liam", "Liam O'Brien", 3.4, {"doubles": ("3.5", "unsure"), "team-5v5": ("4.0", "regular")}),
    ("aisha", "Aisha Khan", 4.6, {"singles": ("4.5", "regular"), "doubles": ("4.5", "regular")}),
    (
        "daniel",
        "Daniel Kim",
        5.9,
        {"singles": ("6.0", "rated"), "doubles": ("6.0", "rated"), "team-5v5": ("5.0", "regular")},
    ),
    ("emma", "Emma Clarke", 3.1, {"singles": None, "doubles": ("3.0", "unsure")}),
    (
        "ravi",
        "Ravi Sharma",
        4.2,
        {"singles": ("4.0", None), "doubles": None, "team-5v5": None},
    ),
    (
        "hannah",
        "Hannah Schmidt",
        4.8,
        {"doubles": ("5.0", "regular"), "team-5v5": ("3.5", "unsure")},
    ),
    (
        "lucas",
        "Lucas Silva",
        3.7,
        {"singles": ("3.5", "regular"), "doubles": None, "team-5v5": ("4.5", "regular")},
    ),
    (
        "chloe",
        "Chloé Dubois",
        4.4,
        {"singles": None, "doubles": ("4.5", None), "team-5v5": None},
    ),
    (
        "kenji",
        "Kenji Watanabe",
        5.4,
        {"singles": ("5.5", "regular"), "doubles": None, "team-5v5": ("5.5", "rated")},
    ),
    ("grace", "Grace Mensah", 4.0, {"doubles": ("4.0", "regular"), "team-5v5": ("4.0", None)}),
    (
        "oliver",
        "Oliver Novak",
        3.2,
        {"singles": ("3.0", "unsure"), "doubles": None, "team-5v5": None},
    ),
    ("nadia", "Nadia Haddad", 5.2, {"singles": None, "doubles": ("5.0", "regular")}),
    (
        "ben",
        "Ben Carter",
        3.6,
        {"singles": ("4.0", "regular"), "doubles": None, "team-5v5": None},
    ),
    (
        "yuki",
        "Yuki Tanaka",
        4.5,
        {
            "singles": ("4.5", "unsure"),
            "doubles": ("4.5", "unsure"),
            "team-5v5": ("4.5", "regular"),
        },
    ),
    (
        "marta",
        "Marta Kowalska",
        3.0,
        {"singles": None, "doubles": ("3.0", "unsure"), "team-5v5": None},
    ),
)
BADMINTON_LEVELS = {username: level for username, _, level, _ in MEMBERS}
# The 5v5 league is another game: the members' true levels there are their own.
FIVES_LEVELS = {
    "tom": 4.6,
    "jonas": 5.2,
    "liam": 4.1,
    "daniel": 5.0,
    "ravi": 3.8,
    "hannah": 3.6,
    "lucas": 4.4,
    "chloe": 4.0,
    "kenji": 5.6,
    "grace": 4.2,
    "oliver": 3.3,
    "ben": 4.8,
    "yuki": 4.5,
    "marta": 3.9,
}


def true_level(membership: Membership) -> float:
    """A member's hidden level on a demo ladder: what the season is played from. Someone
    who joined the demo's ladder on the site before its season plays at their starting
    rating."""
    username, slug = membership.user.username, membership.ladder.slug
    levels = FIVES_LEVELS if slug == "team-5v5" else BADMINTON_LEVELS
    return levels.get(username, membership.initial_rating / DISPLAY_DIVISOR)


@dataclass
class DemoClub:
    ladders: dict[str, Ladder] = field(default_factory=dict)
    members: dict[str, User] = field(default_factory=dict)
    moderator: User | None = None
    admin: User | None = None
    created: list[str] = field(default_factory=list)


@cache
def _password_hash() -> str:
    """One hash of the published password for every demo account: hashing is slow on
    purpose (a quarter of a second each), and these accounts share the password anyway."""
    return make_password(DEMO_PASSWORD)


def _account(club: DemoClub, username: str, display_name: str, **extra: bool) -> User:
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User(
            username=username,
            display_name=display_name,
            email=f"{username}@{DEMO_EMAIL_DOMAIN}",
            **extra,
        )
        user.password = _password_hash()
        user.save()
        club.created.append(f"user {username}")
    return user


@transaction.atomic
def seed_club() -> DemoClub:
    """Create what is missing of the demo club; leave everything that exists untouched."""
    club = DemoClub()
    for spec in LADDERS:
        ladder = Ladder.objects.filter(slug=spec["slug"]).first()
        if ladder is None:
            ladder = Ladder(**spec)
            ladder.full_clean()
            ladder.save()
            club.created.append(f"ladder {ladder.slug}")
        club.ladders[ladder.slug] = ladder

    club.admin = _account(club, "admin", "Club Admin", is_staff=True, is_superuser=True)
    club.moderator = _account(club, "mod", "Morgan (moderator)")
    make_moderator(club.moderator)

    for username, display_name, _, joins in MEMBERS:
        user = _account(club, username, display_name)
        club.members[username] = user
        for slug, assessment in joins.items():
            ladder = club.ladders[slug]
            if Membership.objects.filter(ladder=ladder, user=user).exists():
                continue
            level, certainty = assessment or (None, None)
            join_ladder(user, ladder, Decimal(level) if level else None, certainty)
            club.created.append(f"membership {username}@{slug}")
    return club


# ---- a season of matches ----------------------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """When a ladder plays: club nights on ``nights`` (date.weekday()), ``rounds`` a night,
    each member coming with a chance drawn from ``attendance`` (regulars nearly always,
    others now and then)."""

    nights: tuple[int, ...]
    rounds: int
    attendance: tuple[float, float] = (0.45, 0.9)


SEASON_WEEKS = 12
# Club nights on Tuesday and Thursday (singles and doubles), the 5v5 league on Fridays:
# three maps a night. Reports from the last night still wait for confirmation: it is at
# most a week back (a Friday before tonight's reports), and its reports came after that
# night's first reports, so they are still inside the week (168 hours) a report waits.
SCHEDULES = {
    "singles": Schedule(nights=(1, 3), rounds=2),
    "doubles": Schedule(nights=(1, 3), rounds=2),
    # A league team turns up: ten of fourteen are needed for a map.
    "team-5v5": Schedule(nights=(4,), rounds=3, attendance=(0.75, 0.95)),
}
CLUB_NIGHT_STARTS = time(19, 30)
# Reports come in between one and four hours after the night starts (club time). Tonight's
# night is in the season once its first reports can be in; before then it has not been
# played, and the season ends the day before.
REPORTS_FROM, REPORTS_UNTIL = timedelta(hours=1), timedelta(hours=4)
SEASON_SEED = 2024  # the same season every time
# 5v5 stats: kills a side makes in a round it wins and in one it loses (of five), and the
# damage a kill is worth (ADR, average damage per round, is mostly kills).
KILLS_PER_ROUND_WON, KILLS_PER_ROUND_LOST = 4.2, 2.3
DAMAGE_PER_KILL = 85.0

DISPUTE_REASON = (
    "We played three games, not two: I took the second 21-19 before losing the decider."
)


@dataclass
class SeasonMatch:
    played_on: date
    side_a: list[User]
    side_b: list[User]
    games: list[tuple[int, int]]
    reporter: User
    stats: dict[str, dict[str, float]] | None = None  # by username


def simulate_season(
    ladder: Ladder, memberships: list[Membership], end: date, rng: random.Random
) -> list[SeasonMatch]:
    """Club nights over SEASON_WEEKS up to ``end``: who came, who played whom, the scores
    (ratings.lab.simulate.club_season, rally by rally from the members' true levels)."""
    users = {m.user.username: m.user for m in memberships}
    levels = {m.user.username: true_level(m) for m in memberships}
    schedule = SCHEDULES[ladder.slug]
    world = simulate.club_season(
        levels,
        end=end,
        weeks=SEASON_WEEKS,
        team_size=ladder.team_size,
        scoring_format=ladder.scoring(),
        nights=schedule.nights,
        rounds=schedule.rounds,
        attendance={name: rng.uniform(*schedule.attendance) for name in sorted(users)},
        seed=rng.randrange(2**32),
        scale_factor=ladder.scale_factor,
    )
    season: list[SeasonMatch] = []
    for match in world.matches:
        side_a = [users[name] for name in match.side_a]
        side_b = [users[name] for name in match.side_b]
        a_won = sum(a > b for a, b in match.games) * 2 > len(match.games)
        winners, losers = (side_a, side_b) if a_won else (side_b, side_a)
        # Winners report more often than losers do.
        reporter = rng.choice(winners if rng.random() < 0.7 else losers)
        stats = (
            _round_stats(rng, match, levels) if ladder.method_options.get("stat_weights") else None
        )
        season.append(
            SeasonMatch(match.played_on, side_a, side_b, list(match.games), reporter, stats)
        )
    return season


def _round_stats(
    rng: random.Random, match: MatchResult, levels: dict[str, float]
) -> dict[str, dict[str, float]]:
    """Kills, deaths and ADR of a 5v5 map: a side's kills shared out with the better players
    getting more, its deaths (the other side's kills) with the better players dying less."""
    won_a, won_b = match.games[0]
    rounds = won_a + won_b
    kills = {
        "a": round(won_a * KILLS_PER_ROUND_WON + won_b * KILLS_PER_ROUND_LOST),
        "b": round(won_b * KILLS_PER_ROUND_WON + won_a * KILLS_PER_ROUND_LOST),
    }
    stats: dict[str, dict[str, float]] = {}
    for side, own, other in (("a", match.side_a, "b"), ("b", match.side_b, "a")):
        made = Counter(rng.choices(own, [math.exp(levels[p]) for p in own], k=kills[side]))
        died = Counter(rng.choices(own, [math.exp(-levels[p]) for p in own], k=kills[other]))
        for p in own:
            adr = made[p] * DAMAGE_PER_KILL / rounds + rng.uniform(10, 30)
            stats[p] = {"kills": made[p], "deaths": min(died[p], rounds), "adr": round(adr, 1)}
    return stats


def _at(day: date, after: timedelta) -> datetime:
    """``after`` past the start of the club night of ``day``, in the club's time zone."""
    return timezone.make_aware(datetime.combine(day, CLUB_NIGHT_STARTS)) + after


def season_end(now: datetime) -> date:
    """The last club day played by ``now``: today once tonight's first reports can be in,
    else yesterday (in the club's time zone; at 00:05 today's night is still to come)."""
    today = timezone.localdate(now)
    return today if now >= _at(today, REPORTS_FROM) else today - timedelta(days=1)


def _snapshot(m: SeasonMatch) -> Snapshot:
    return snapshot_of(m.played_on, m.side_a, m.side_b, m.games, m.stats)


def _store_season(
    ladder: Ladder, season: list[SeasonMatch], now: datetime, rng: random.Random, dispute: bool
) -> dict[str, int]:
    """Write the season: matches, players, games and the audit trail each transition leaves."""
    states: dict[str, int] = {}
    rows: list[tuple[Match, SeasonMatch, list[AuditEntry]]] = []
    last_night = max((m.played_on for m in season), default=None)
    # The dispute: a recent match whose loser says it went to three games.
    recent = [m for m in season if m.played_on == last_night]
    disputed = next((m for m in recent if m.reporter in _winners(m)), None) if dispute else None
    for m in season:
        # Reported during the night, half an hour before now at the latest, but never
        # before the night's first reports (so never the day before it was played).
        during = _at(m.played_on, REPORTS_FROM + (REPORTS_UNTIL - REPORTS_FROM) * rng.random())
        reported = min(during, max(now - timedelta(minutes=30), _at(m.played_on, REPORTS_FROM)))
        opponents = m.side_b if m.reporter in m.side_a else m.side_a
        snap = _snapshot(m)
        audit = [
            AuditEntry(actor=m.reporter, at=reported, action="report", to_state=PENDING, after=snap)
        ]
        match = Match(
            ladder=ladder,
            played_on=m.played_on,
            reporter=m.reporter,
            created_at=reported,
            updated_at=reported,
        )
        if m is disputed:
            latest = max(reported, now - timedelta(minutes=5))
            at = min(reported + timedelta(hours=rng.uniform(2, 20)), latest)
            match.state, match.updated_at = DISPUTED, at
            after: Snapshot = {**snap, "proposed_games": _three_games(m.games)}
            audit.append(
                _entry(opponents[0], at, "dispute", DISPUTED, snap, after, reason=DISPUTE_REASON)
            )
        elif m.played_on == last_night:
            match.state = PENDING
        else:
            at = min(reported + timedelta(hours=rng.uniform(1, 40)), now)
            match.state, match.updated_at, match.decided_at = CONFIRMED, at, at
            match.needs_rating = True
            audit.append(_entry(rng.choice(opponents), at, "confirm", CONFIRMED, snap, snap))
        states[match.state] = states.get(match.state, 0) + 1
        rows.append((match, m, audit))

    Match.objects.bulk_create([match for match, _, _ in rows])
    MatchPlayer.objects.bulk_create(
        MatchPlayer(
            match=match,
            user=user,
            side=side,
            position=n,
            stats=m.stats[user.username] if m.stats else None,
        )
        for match, m, _ in rows
        for side, users in (("a", m.side_a), ("b", m.side_b))
        for n, user in enumerate(users)
    )
    Game.objects.bulk_create(
        Game(match=match, number=n, a_points=a, b_points=b)
        for match, m, _ in rows
        for n, (a, b) in enumerate(m.games, 1)
    )
    for match, _, audit in rows:
        for entry in audit:
            entry.match = match
    AuditEntry.objects.bulk_create([entry for _, _, audit in rows for entry in audit])
    for match, m, audit in rows:
        if m is disputed:
            disputer = next(u for u in m.side_a + m.side_b if u.pk == audit[-1].actor_id)
            Dispute.objects.create(
                match=match,
                raised_by=disputer,
                reason=DISPUTE_REASON,
                proposed_games=_three_games(m.games),
                created_at=audit[-1].at,
            )
    # What the site told people of the matches still open, as the operations would have.
    waiting = [match.pk for match, _, _ in rows if match.state in (PENDING, DISPUTED)]
    for match in Match.objects.filter(pk__in=waiting).with_details().prefetch_related("disputes"):
        if match.state == PENDING:
            tell_reported(match)
        else:
            tell_disputed(match, match.disputes.get())
    return states


def read_old_news(club: DemoClub, now: datetime | None = None, days: int = 2) -> int:
    """Date what the demo club's members were told by when it happened in the season (the
    match's last change), and mark read the news of matches played more than ``days`` ago,
    as members who follow their club would have. Only the demo ladders' news: a site's
    own members' notifications are left as they are."""
    now = now or timezone.now()
    # Plain reads, then updates by primary key: an UPDATE over a correlated subquery or a
    # join ran for minutes on a fresh test database's plans (no statistics yet).
    matches = Match.objects.filter(ladder__in=list(club.ladders.values()))
    changed = dict(matches.values_list("pk", "updated_at"))
    news = list(Notification.objects.filter(match_id__in=changed).only("pk", "match_id"))
    for note in news:
        note.created_at = changed[note.match_id or 0]
    Notification.objects.bulk_update(news, ["created_at"], batch_size=500)
    before = timezone.localdate(now) - timedelta(days=days)
    old = set(matches.filter(played_on__lt=before).values_list("pk", flat=True))
    unread = Notification.objects.filter(match_id__in=old, read_at__isnull=True)
    ids = list(unread.values_list("pk", flat=True))
    return Notification.objects.filter(pk__in=ids).update(read_at=now)


def _three_games(games: list[tuple[int, int]]) -> list[list[int]]:
    """The score the disputing loser remembers: game 1 as reported, game 2 theirs 21-19,
    the decider lost 17-21 (from side A's view, like every score)."""
    a_won = sum(a > b for a, b in games) * 2 > len(games)
    first = next([a, b] for a, b in games if (a > b) == a_won)
    return [first, [19, 21], [21, 17]] if a_won else [first, [21, 19], [17, 21]]


def _entry(
    actor: User,
    at: datetime,
    action: str,
    to_state: str,
    before: Snapshot,
    after: Snapshot,
    reason: str = "",
) -> AuditEntry:
    """An audit entry for a transition out of pending, as ladder.matches writes it."""
    return AuditEntry(
        actor=actor,
        at=at,
        action=action,
        from_state=PENDING,
        to_state=to_state,
        before=before,
        after=after,
        reason=reason,
    )


def _winners(m: SeasonMatch) -> list[User]:
    a_won = sum(a > b for a, b in m.games) * 2 > len(m.games)
    return m.side_a if a_won else m.side_b


SEASON_LADDERS = tuple(SCHEDULES)


@transaction.atomic
def seed_matches(club: DemoClub, now: datetime | None = None) -> dict[str, dict[str, int]]:
    """Play a season on each demo ladder that has no matches yet.

    Returns the states created per ladder slug; rating follows after commit (in-process
    without a broker), like any confirmation.
    """

    now = now or timezone.now()
    end = season_end(now)
    created: dict[str, dict[str, int]] = {}
    for number, slug in enumerate(SEASON_LADDERS):
        ladder = club.ladders.get(slug)
        if ladder is None or ladder.matches.exists():
            continue
        rng = random.Random(SEASON_SEED + number)
        memberships = list(
            Membership.objects.filter(ladder=ladder)
            .select_related("user", "ladder")
            .order_by("user__username")
        )
        season = simulate_season(ladder, memberships, end, rng)
        states = _store_season(ladder, season, now, rng, dispute=(slug == "singles"))
        _joined_before_the_season(ladder)
        created[slug] = states
        club.created.append(f"season {slug} ({len(season)} matches)")
        transaction.on_commit(partial(enqueue_rating, ladder.pk))
    return created


def _joined_before_the_season(ladder: Ladder) -> None:
    """The members of a ladder whose season was just played joined it the week before its
    first match, not today (issue 37: "Since 7 December 2026" beside three months of
    matches)."""
    first = ladder.matches.order_by("played_on").values_list("played_on", flat=True).first()
    if first is None:
        return
    joined = timezone.make_aware(datetime.combine(first - timedelta(days=7), time(12)))
    Membership.objects.filter(ladder=ladder, joined_at__gt=joined).update(joined_at=joined)


# ---- seasons and time away (RULES.md "Seasons", "Time away") -----------------------------------

# The twelve weeks split in two seasons: the first six weeks, over and archived, and the
# season under way, which runs on past today. ``AWAY`` is away for a while on Singles.
FIRST_SEASON_WEEKS = 6
CURRENT_SEASON_DAYS_LEFT = 45
AWAY = ("sofia", "singles", 12)  # username, ladder, days away from today
_MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
)  # fmt: skip


def _season_name(first: date, last: date) -> str:
    """ "September–October 2026", or with both years when they differ."""
    start, end = _MONTH_NAMES[first.month - 1], _MONTH_NAMES[last.month - 1]
    if first.year != last.year:
        return f"{start} {first.year} – {end} {last.year}"
    return f"{start} {last.year}" if start == end else f"{start}–{end} {last.year}"


def seed_seasons(club: DemoClub, now: datetime | None = None) -> None:
    """Two seasons on each ladder without any: the first half of the demo's twelve weeks,
    over (its table is archived on first read, once its matches are rated), and the current
    one; and one member away for a while. Through the same functions as the pages."""
    today = timezone.localdate(now)
    first_day = today - timedelta(weeks=SEASON_WEEKS) + timedelta(days=1)
    split = first_day + timedelta(weeks=FIRST_SEASON_WEEKS)
    last_day = today + timedelta(days=CURRENT_SEASON_DAYS_LEFT)
    for ladder in club.ladders.values():
        if Season.objects.filter(ladder=ladder).exists():
            continue
        for first, last in ((first_day, split - timedelta(days=1)), (split, last_day)):
            name = _season_name(first, last)
            save_season(
                Season(
                    ladder=ladder,
                    name=name,
                    slug=slugify(name.replace("–", " ")),
                    starts_on=first,
                    ends_on=last,
                )
            )
            club.created.append(f"season {ladder.slug}: {name}")
    username, slug, days = AWAY
    member = club.members.get(username)
    if member is not None and slug in club.ladders:
        membership = Membership.objects.get(ladder=club.ladders[slug], user=member)
        if membership.away_until is None:
            set_away(member, club.ladders[slug], today + timedelta(days=days))
            club.created.append(f"{username} away on {slug}")


def _on(now: datetime, days: int, hour: int) -> datetime:
    """A time ``days`` from ``now``'s day at ``hour`` o'clock, in the club's time zone."""
    day = timezone.localdate(now) + timedelta(days=days)
    return timezone.make_aware(datetime.combine(day, time(hour)))


@transaction.atomic
def seed_play(club: DemoClub, now: datetime | None = None) -> int:
    """Challenges and open games on the demo ladders (RULES.md "Challenges and open games"),
    through the same functions as the pages: two waiting for an answer (one for the demo
    member), one scheduled, one played; an open game with places left and a full one.
    Returns how many challenges it made (none when the demo has some already)."""
    today: datetime = now or timezone.now()
    now = today
    singles, doubles = club.ladders.get("singles"), club.ladders.get("doubles")
    if singles is None or doubles is None or Challenge.objects.filter(ladder=singles).exists():
        return 0
    member = club.members

    def challenge(by: str, other: str, days: int, *, at: datetime = today, **kw: Any) -> Challenge:
        return play.create_challenge(
            ladder=singles,
            by=member[by],
            opponents=[other],
            proposed_times=[_on(at, days, 18), _on(at, days + 1, 19)],
            now=at,
            **kw,
        )

    challenge("daniel", "priya", 2, message="Best of three, Thursday or Friday?")
    challenge("mei", "daniel", 3, place="Court 2", message="Up for a rematch?")
    booked = challenge("sofia", "daniel", 1, place="Court 1")
    play.accept_challenge(booked, member["daniel"], _on(now, 1, 18), now=now)
    # Played two days ago: arranged the week before, reported and confirmed since.
    before = now - timedelta(days=7)
    played = challenge("aisha", "mei", 5, at=before, place="Court 3")
    play.accept_challenge(played, member["mei"], _on(before, 5, 18), now=before)
    report = Report(
        ladder=singles,
        reporter=member["aisha"],
        played_on=timezone.localdate(now - timedelta(days=2)),
        side_a=[member["aisha"]],
        side_b=[member["mei"]],
        games=[(21, 17), (18, 21), (21, 19)],
    )
    match = report_match(report, links={"challenge": played.pk})
    confirm_match(match, member["mei"])
    play.post_open_game(
        ladder=singles, by=member["priya"], starts_at=_on(now, 2, 19), place="Court 4"
    )
    game = play.post_open_game(
        ladder=doubles,
        by=member["nadia"],
        starts_at=_on(now, 3, 20),
        place="Courts 1-2",
        team_size=2,
    )
    for username in ("daniel", "mei", "grace"):
        play.join_open_game(game, member[username], now=now)
    club.created.append("challenges and open games")
    return 4
