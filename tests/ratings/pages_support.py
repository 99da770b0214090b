"""Helpers for the rating pages' and API's tests: a frozen today, hand-made ratings, seasons."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

from accounts.models import User
from ladder.clubs.access import listing_of
from ladder.clubs.models import Ladder, Membership
from ladder.matches.models import Game, Match, MatchPlayer
from ratings.engine.types import PlayerState
from ratings.models import PlayerRating, established_until, ladder_standing
from ratings.pipeline import rate_ladder
from tests.factories import MembershipFactory, UserFactory

TODAY = date(2024, 6, 30)
NOON = datetime(2024, 6, 30, 12, tzinfo=UTC)
SCORES = (
    ((21, 15), (21, 18)),
    ((21, 12), (19, 21), (21, 19)),
    ((15, 21), (21, 23)),
    ((30, 29), (21, 10)),
    ((12, 21), (21, 17), (18, 21)),
)


def member(ladder: Ladder, username: str, display_name: str = "", **kwargs: object) -> User:
    user = UserFactory(username=username, display_name=display_name or username.capitalize())
    MembershipFactory(ladder=ladder, user=user, **kwargs)
    return user


def rated(ladder: Ladder, user: User, **fields: object) -> PlayerRating:
    """A hand-made current rating (the pipeline's output, without the matches behind it)."""
    values: dict[str, object] = {
        "rating": 4500.0,
        "rd": 80.0,
        "volatility": 0.06,
        "matches": 10,
        "wins": 5,
        "losses": 5,
        "last_played": TODAY,
    }
    values.update(fields)
    membership = Membership.objects.filter(ladder=ladder, user=user).first()
    values.setdefault("listing", listing_of(membership))  # as the pipeline sets it
    state = PlayerState(
        values["rating"],  # type: ignore[arg-type]
        values["rd"],  # type: ignore[arg-type]
        values["volatility"],  # type: ignore[arg-type]
        values["matches"],  # type: ignore[arg-type]
        values["last_played"],  # type: ignore[arg-type]
    )
    values.setdefault("established_until", established_until(state, *ladder_standing(ladder)))
    return PlayerRating.objects.create(ladder=ladder, user=user, **values)


def play(
    ladder: Ladder,
    side_a: Sequence[User],
    side_b: Sequence[User],
    games: Sequence[tuple[int, int]],
    played_on: date,
) -> Match:
    """A confirmed match waiting to be rated."""
    match = Match.objects.create(
        ladder=ladder, played_on=played_on, reporter=side_a[0], state="confirmed", needs_rating=True
    )
    MatchPlayer.objects.bulk_create(
        MatchPlayer(match=match, user=u, side=side, position=i)
        for side, users in (("a", side_a), ("b", side_b))
        for i, u in enumerate(users)
    )
    Game.objects.bulk_create(
        Game(match=match, number=n, a_points=a, b_points=b) for n, (a, b) in enumerate(games, 1)
    )
    return match


def season(ladder: Ladder, players: Sequence[User], matches: int, end: date = TODAY) -> None:
    """``matches`` singles (or doubles) matches among ``players`` over the days before
    ``end``, deterministic, then rated."""
    size = ladder.team_size
    n = len(players)
    for i in range(matches):
        picked = [players[(i * 7 + k * (3 + i % 5)) % n] for k in range(2 * size)]
        if len({u.pk for u in picked}) < 2 * size:
            picked = [players[(i + k) % n] for k in range(2 * size)]
        day = end - timedelta(days=(matches - i) % 60)
        play(ladder, picked[:size], picked[size:], SCORES[i % len(SCORES)], day)
    rate_ladder(ladder.pk)


def row_of(page: str, name: str) -> str:
    """The table row (or list item) of the page that holds ``name``."""
    for row in re.findall(r"<tr[^>]*>.*?</tr>|<li class=\"history-item.*?</li>", page, re.S):
        if name in row:
            return re.sub(r"\s+", " ", row)
    raise AssertionError(f"{name!r} is not in any row")


def text_of(html: str) -> str:
    """The visible text, tags dropped and spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()
