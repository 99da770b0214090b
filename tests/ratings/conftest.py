"""Fixtures for the ratings pipeline: a club of members and confirmed matches made directly."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

import pytest

from accounts.models import User
from ladder.clubs.models import Ladder
from ladder.matches.models import Game, Match, MatchPlayer
from tests.factories import *  # noqa: F403  (the cast fixtures)
from tests.factories import LadderFactory, MembershipFactory, UserFactory

MakeMatch = Callable[..., Match]


@pytest.fixture
def club(db: None) -> tuple[Ladder, list[User]]:
    """A singles ladder with eight members, some with self-assessments."""
    ladder = LadderFactory(name="Pipeline Singles", slug="pipeline")
    users = []
    for i in range(8):
        user = UserFactory(username=f"p{i}")
        level = None if i % 3 else f"{3.0 + i * 0.5:.1f}"
        MembershipFactory(
            ladder=ladder, user=user, self_level=level, self_certainty="regular" if level else ""
        )
        users.append(user)
    return ladder, users


@pytest.fixture
def make_match() -> MakeMatch:
    """A confirmed match waiting to be rated, as a confirmation leaves it."""

    def make(
        ladder: Ladder,
        side_a: Sequence[User],
        side_b: Sequence[User],
        games: Sequence[tuple[int, int]],
        played_on: date,
        state: str = "confirmed",
    ) -> Match:
        match = Match.objects.create(
            ladder=ladder,
            played_on=played_on,
            reporter=side_a[0],
            state=state,
            needs_rating=state in Match.RATED_STATES,
        )
        for side, users in (("a", side_a), ("b", side_b)):
            for position, user in enumerate(users):
                MatchPlayer.objects.create(match=match, user=user, side=side, position=position)
        for number, (a, b) in enumerate(games, 1):
            Game.objects.create(match=match, number=number, a_points=a, b_points=b)
        return match

    return make
