"""The demo club that `manage.py seed_demo` creates (PRODUCT.md "Commands").

`seed_club()` makes the ladders, a moderator, a superuser and the members, and is
idempotent: what exists is left as it is. `seed_matches(club)` then plays a season on
the singles and doubles ladders (only on a ladder without matches): club nights twice a
week for twelve weeks, every game simulated rally by rally from the players' hidden
strengths, so scores look like real badminton (21-17 19-21 23-21) and the stronger
players win more often without winning always. Most matches are confirmed; the last
days' reports still wait for confirmation, and one is disputed for a moderator.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.roles import make_moderator
from ladder.models import (
    CONFIRMED,
    DISPUTED,
    PENDING,
    AuditEntry,
    Dispute,
    Game,
    Ladder,
    Match,
    MatchPlayer,
    Membership,
)
from ladder.services import join_ladder

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
        "method_options": {"stat_weights": {"kills": 1.0, "deaths": -0.7, "adr": 0.02}},
    },
)

# username, display name, and per ladder slug: None (joined, no self-assessment) or
# (level, certainty) with either part None.
Assessment = tuple[str | None, str | None] | None
MEMBERS: tuple[tuple[str, str, dict[str, Assessment]], ...] = (
    ("priya", "Priya Patel", {"singles": ("5.5", "rated"), "doubles": ("5.5", "rated")}),
    (
        "tom",
        "Tom Okafor",
        {"singles": ("5.0", "regular"), "doubles": None, "team-5v5": ("4.5", None)},
    ),
    ("mei", "Mei Lin", {"singles": ("5.0", "rated"), "doubles": ("5.0", "rated")}),
    ("jonas", "Jonas Berg", {"singles": None, "team-5v5": None}),
    ("sofia", "Sofia Rossi", {"singles": ("4.0", "regular"), "doubles": ("4.0", "regular")}),
    ("liam", "Liam O'Brien", {"doubles": ("3.5", "unsure"), "team-5v5": ("4.0", "regular")}),
    ("aisha", "Aisha Khan", {"singles": ("4.5", "regular"), "doubles": ("4.5", "regular")}),
    ("daniel", "Daniel Kim", {"singles": ("6.0", "rated"), "team-5v5": ("5.0", "regular")}),
    ("emma", "Emma Clarke", {"singles": None, "doubles": ("3.0", "unsure")}),
    ("ravi", "Ravi Sharma", {"singles": ("4.0", None), "doubles": None, "team-5v5": None}),
    ("hannah", "Hannah Schmidt", {"doubles": ("5.0", "regular"), "team-5v5": ("3.5", "unsure")}),
    ("lucas", "Lucas Silva", {"singles": ("3.5", "regular"), "team-5v5": ("4.5", "regular")}),
    ("chloe", "Chloé Dubois", {"singles": None, "doubles": ("4.5", None), "team-5v5": None}),
    ("kenji", "Kenji Watanabe", {"singles": ("5.5", "regular"), "team-5v5": ("5.5", "rated")}),
    ("grace", "Grace Mensah", {"doubles": ("4.0", "regular"), "team-5v5": ("4.0", None)}),
    ("oliver", "Oliver Novak", {"singles": ("3.0", "unsure"), "doubles": None, "team-5v5": None}),
)


@dataclass
class DemoClub:
    ladders: dict[str, Ladder] = field(default_factory=dict)
    members: dict[str, User] = field(default_factory=dict)
    moderator: User | None = None
    admin: User | None = None
    created: list[str] = field(default_factory=list)


def _account(club: DemoClub, username: str, display_name: str, **extra: Any) -> User:
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User(
            username=username,
            display_name=display_name,
            email=f"{username}@{DEMO_EMAIL_DOMAIN}",
            **extra,
        )
        user.set_password(DEMO_PASSWORD)
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

    for username, display_name, joins in MEMBERS:
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

SEASON_WEEKS = 12
CLUB_NIGHTS = (1, 3)  # Tuesday and Thursday
CLUB_NIGHT_STARTS = time(19, 30)
ATTENDANCE = 0.6  # share of a ladder's members at a given club night
ROUNDS = {1: 2, 2: 2}  # rounds of matches per night, by team size
# Reports from the last club night still wait for confirmation (whatever today's weekday:
# the last Tuesday or Thursday is at most five days back, inside the confirmation window).
# Rally model: P(side A wins a rally) = logistic((strength A - strength B) / RALLY_SCALE).
# 2500 rating points make a one-level gap (1000 points) a 60/40 rally edge, which wins
# about nine games in ten: clear favourites who still drop a game now and then.
RALLY_SCALE = 2500.0
HIDDEN_SPREAD = 250.0  # how far a player's real strength is from their self-assessment
FORM_SPREAD = 150.0  # how much it varies from one night to the next
SEASON_SEED = 2024  # the same season every time

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


def rally_game(rng: random.Random, p_a: float, target: int, cap: int) -> tuple[int, int]:
    """One game, rally by rally: to ``target``, two clear, or the first to ``cap``."""
    a = b = 0
    while True:
        if rng.random() < p_a:
            a += 1
        else:
            b += 1
        high = max(a, b)
        if (high >= target and abs(a - b) >= 2) or high == cap:
            return a, b


def rally_match(rng: random.Random, p_a: float, ladder: Ladder) -> list[tuple[int, int]]:
    fmt = ladder.scoring()
    assert fmt.cap is not None, "the season is simulated for badminton formats"
    games: list[tuple[int, int]] = []
    wins = [0, 0]
    while max(wins) < fmt.games_to_win:
        a, b = rally_game(rng, p_a, fmt.points_per_game, fmt.cap)
        games.append((a, b))
        wins[0 if a > b else 1] += 1
    return games


def _rally_edge(side_a: list[float], side_b: list[float]) -> float:
    import math

    gap = sum(side_a) / len(side_a) - sum(side_b) / len(side_b)
    return 1.0 / (1.0 + math.exp(-gap / RALLY_SCALE))


def simulate_season(
    ladder: Ladder, memberships: list[Membership], today: date, rng: random.Random
) -> list[SeasonMatch]:
    """Club nights over SEASON_WEEKS up to ``today``: who came, who played whom, the scores."""
    strength = {m.user: m.initial_rating + rng.gauss(0, HIDDEN_SPREAD) for m in memberships}
    players = list(strength)
    size = ladder.team_size
    season: list[SeasonMatch] = []
    day = today - timedelta(weeks=SEASON_WEEKS)
    while day <= today:
        if day.weekday() in CLUB_NIGHTS:
            present = [u for u in players if rng.random() < ATTENDANCE]
            form = {u: strength[u] + rng.gauss(0, FORM_SPREAD) for u in present}
            for _ in range(ROUNDS[size]):
                rng.shuffle(present)
                for i in range(0, len(present) - 2 * size + 1, 2 * size):
                    side_a, side_b = present[i : i + size], present[i + size : i + 2 * size]
                    p_a = _rally_edge([form[u] for u in side_a], [form[u] for u in side_b])
                    games = rally_match(rng, p_a, ladder)
                    a_won = sum(a > b for a, b in games) * 2 > len(games)
                    winners, losers = (side_a, side_b) if a_won else (side_b, side_a)
                    # Winners report more often than losers do.
                    reporter = rng.choice(winners if rng.random() < 0.7 else losers)
                    season.append(SeasonMatch(day, list(side_a), list(side_b), games, reporter))
        day += timedelta(days=1)
    return season


def _at(day: date, minutes: float) -> datetime:
    start = timezone.make_aware(datetime.combine(day, CLUB_NIGHT_STARTS))
    return start + timedelta(minutes=minutes)


def _snapshot(m: SeasonMatch) -> dict[str, Any]:
    return {
        "played_on": m.played_on.isoformat(),
        "side_a": [u.username for u in m.side_a],
        "side_b": [u.username for u in m.side_b],
        "games": [[a, b] for a, b in m.games],
    }


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
        reported = min(_at(m.played_on, rng.uniform(60, 240)), now - timedelta(minutes=30))
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
            at = min(reported + timedelta(hours=rng.uniform(2, 20)), now - timedelta(minutes=5))
            match.state, match.updated_at = DISPUTED, at
            after = {**snap, "proposed_games": _three_games(m.games)}
            audit.append(
                _entry(opponents[0], at, "dispute", DISPUTED, snap, after, reason=DISPUTE_REASON)
            )
        elif m.played_on == last_night:
            match.state = PENDING
        else:
            at = reported + timedelta(hours=rng.uniform(1, 40))
            match.state, match.updated_at, match.decided_at = CONFIRMED, at, at
            match.needs_rating = True
            audit.append(_entry(rng.choice(opponents), at, "confirm", CONFIRMED, snap, snap))
        states[match.state] = states.get(match.state, 0) + 1
        rows.append((match, m, audit))

    Match.objects.bulk_create([match for match, _, _ in rows])
    MatchPlayer.objects.bulk_create(
        MatchPlayer(match=match, user=user, side=side, position=n)
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
    return states


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
    before: dict[str, Any],
    after: dict[str, Any],
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


SEASON_LADDERS = ("singles", "doubles")


@transaction.atomic
def seed_matches(club: DemoClub, now: datetime | None = None) -> dict[str, dict[str, int]]:
    """Play a season on the demo's singles and doubles ladders that have no matches yet.

    Returns the states created per ladder slug; rating follows after commit (in-process
    without a broker), like any confirmation.
    """
    from ratings.tasks import enqueue_rating

    now = now or timezone.now()
    today = timezone.localdate(now)
    created: dict[str, dict[str, int]] = {}
    for number, slug in enumerate(SEASON_LADDERS):
        ladder = club.ladders.get(slug)
        if ladder is None or ladder.matches.exists():
            continue
        rng = random.Random(SEASON_SEED + number)
        memberships = list(
            Membership.objects.filter(ladder=ladder)
            .select_related("user")
            .order_by("user__username")
        )
        season = simulate_season(ladder, memberships, today, rng)
        states = _store_season(ladder, season, now, rng, dispute=(slug == "singles"))
        created[slug] = states
        club.created.append(f"season {slug} ({len(season)} matches)")
        transaction.on_commit(partial(enqueue_rating, ladder.pk))
    return created
