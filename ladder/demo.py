"""The demo club that `manage.py seed_demo` creates (PRODUCT.md "Commands").

`seed_club()` makes the ladders, a moderator, a superuser and the members, and is
idempotent: what exists is left as it is. Matches come later: a `seed_matches(club)`
step is added after `seed_club()` in the command.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db import transaction

from accounts.models import User
from accounts.roles import make_moderator
from ladder.models import Ladder, Membership
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
