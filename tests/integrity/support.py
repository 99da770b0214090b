"""A rated club for the integrity tests: eight members, two months of confirmed matches."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from ladder.clubs.models import Ladder
from ladder.matches.models import Game, Match, MatchPlayer
from ratings.models import PlayerRating, RatingChange
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory, MembershipFactory, UserFactory


@dataclass
class Club:
    ladder: Ladder
    members: list[User]  # members[0] ("cheat") is the one banned in the tests
    matches: list[Match]

    @property
    def cheat(self) -> User:
        return self.members[0]


def confirmed(
    ladder: Ladder, a: User, b: User, games: list[tuple[int, int]], played_on: date
) -> Match:
    """A confirmed match, as a confirmation leaves it (waiting for its rating)."""
    match = Match.objects.create(
        ladder=ladder, played_on=played_on, reporter=a, state="confirmed", needs_rating=True
    )
    MatchPlayer.objects.create(match=match, user=a, side="a", position=0)
    MatchPlayer.objects.create(match=match, user=b, side="b", position=0)
    for number, (x, y) in enumerate(games, 1):
        Game.objects.create(match=match, number=number, a_points=x, b_points=y)
    return match


@pytest.fixture
def club(db: None) -> Club:
    ladder = LadderFactory(name="Integrity Singles", slug="honest")
    members = []
    for i, name in enumerate(("cheat", "ann", "ben", "cat", "dan", "eve", "fay", "gus")):
        user = UserFactory(username=name, display_name=name.capitalize())
        level = f"{3.5 + (i % 4) * 0.5:.1f}"
        MembershipFactory(ladder=ladder, user=user, self_level=level, self_certainty="regular")
        members.append(user)
    rng = random.Random(7)
    start = timezone.localdate() - timedelta(days=60)
    matches = []
    for day in range(0, 60, 2):
        a, b = rng.sample(members, 2)
        if day % 6 == 0:  # the cheat plays a lot, and wins
            a, b = members[0], rng.choice(members[1:])
        loser = rng.randint(5, 19)
        games = [(21, loser), (21, rng.randint(5, 19))]
        matches.append(confirmed(ladder, a, b, games, start + timedelta(days=day)))
    rate_ladder(ladder.pk)
    return Club(ladder, members, matches)


def ratings_of(ladder: Ladder) -> dict[str, tuple[float, float, float, int]]:
    return {
        r.user.username: (r.rating, r.rd, r.volatility, r.matches)
        for r in PlayerRating.objects.filter(ladder=ladder).select_related("user")
    }


def changes_of(ladder: Ladder) -> list[tuple[int, int, float, float]]:
    return sorted(
        RatingChange.objects.filter(ladder=ladder).values_list(
            "match_id", "user_id", "rating_before", "rating_after"
        )
    )
