"""Two sides named by a viewer, and what the ratings say of them: RATINGS.md §6's
probability and match quality, and the sides' head-to-head record.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import reduce
from operator import and_

from django.db.models import Exists, OuterRef, Q

from accounts.models import User
from core.errors import DomainValidationError
from ladder.clubs import access
from ladder.clubs.access import Person, Viewer
from ladder.clubs.models import Ladder, Membership
from ladder.matches.models import RATED_STATES, Match, MatchPlayer, MatchQuerySet
from ratings.engine.predict import match_quality, win_probability
from ratings.engine.types import EngineError, PlayerState
from ratings.explain import score_from
from ratings.models import PlayerRating, rating_params, today

# ---- head-to-head and predictions --------------------------------------------------------


class SideError(DomainValidationError, ValueError):
    """The players named for a head-to-head or a prediction do not make two sides."""


def split_names(values: Iterable[str]) -> list[str]:
    """Names from form or query values, each possibly "a,b" (or "@a"); blanks dropped."""
    names = []
    for value in values:
        for name in re.split(r"[,;]", value or ""):
            name = name.strip().lstrip("@")
            if name:
                names.append(name)
    return names


def resolve_sides(
    ladder: Ladder,
    viewer: Viewer,
    names_a: Sequence[str],
    names_b: Sequence[str],
    *,
    full: bool = True,
) -> tuple[list[User], list[User]]:
    """The members of ``ladder`` called ``names_a`` and ``names_b`` (usernames or display names).

    With ``full`` each side must have exactly ``ladder.team_size`` players; otherwise
    from one up to that. Raises SideError, with a message for people, for a side of the
    wrong size, a name that is no member ``viewer`` may see, or a player named twice.
    """
    size = ladder.team_size
    for label, names in (("A", names_a), ("B", names_b)):
        if not names:
            raise SideError(f"Name the player{'s' if size > 1 else ''} of side {label}.")
        if len(names) > size or (full and len(names) != size):
            each = "1 player" if size == 1 else f"{size} players"
            raise SideError(
                f"Side {label} has {len(names)} player{'s' if len(names) != 1 else ''}; "
                f"{ladder.name} is played with {each} a side."
            )
    wanted = [*names_a, *names_b]
    found: dict[str, User] = {}
    members = (
        access.members(viewer, Membership.objects.filter(ladder=ladder))
        .filter(Q(user__username__in=wanted) | Q(user__display_name__in=wanted))
        .select_related("user")
    )
    by_display: dict[str, list[User]] = defaultdict(list)
    for member in members:
        found[member.user.username] = member.user
        if member.user.display_name:
            by_display[member.user.display_name].append(member.user)
    for name, users in by_display.items():
        if len(users) == 1:
            found.setdefault(name, users[0])
    unknown = [n for n in wanted if n not in found]
    if unknown:
        listed = ", ".join(f"“{n}”" for n in unknown)
        raise SideError(f"No member of {ladder.name} is called {listed}.")
    side_a = [found[n] for n in names_a]
    side_b = [found[n] for n in names_b]
    ids = [u.pk for u in (*side_a, *side_b)]
    if len(set(ids)) != len(ids):
        raise SideError("Each player can only be named once.")
    return side_a, side_b


def player_states(ladder: Ladder, users: Sequence[User]) -> dict[int, PlayerState]:
    """Each player's current state: their stored rating, else their membership's start."""
    volatility = ladder.initial_volatility
    states = {
        user_id: PlayerState(rating, rd, volatility)
        for user_id, rating, rd in Membership.objects.filter(
            ladder=ladder, user__in=users
        ).values_list("user_id", "initial_rating", "initial_rd")
    }
    for user_id, rating, rd, vol, matches, last in PlayerRating.objects.filter(
        ladder=ladder, user__in=users
    ).values_list("user_id", "rating", "rd", "volatility", "matches", "last_played"):
        states[user_id] = PlayerState(rating, rd, vol, matches, last)
    return states


@dataclass(frozen=True)
class Prediction:
    """RATINGS.md §6 on ``on``: P(side A wins) and the match quality Q."""

    probability: float
    quality: float
    on: date
    states_a: tuple[PlayerState, ...]
    states_b: tuple[PlayerState, ...]

    @property
    def against(self) -> float:
        """P(side B wins)."""
        return 1.0 - self.probability


def predict(
    ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None = None
) -> Prediction:
    """The predicted result of side A against side B, RDs inflated for inactivity to ``on``."""
    on = on or today()
    states = player_states(ladder, [*side_a, *side_b])
    a = tuple(states[u.pk] for u in side_a)
    b = tuple(states[u.pk] for u in side_b)
    params = rating_params(ladder)
    return Prediction(
        probability=win_probability(a, b, params, on),
        quality=match_quality(a, b, params, on),
        on=on,
        states_a=a,
        states_b=b,
    )


def head_to_head_matches(
    ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User]
) -> MatchQuerySet:
    """Rated matches with every player of ``side_a`` on one side and every player of
    ``side_b`` on the other (partners of a partial side may be anyone), newest first."""

    def together(users: Sequence[User], side: str) -> list[Exists]:
        return [
            Exists(MatchPlayer.objects.filter(match=OuterRef("pk"), user=u, side=side))
            for u in users
        ]

    a_first = reduce(and_, together(side_a, "a") + together(side_b, "b"))
    b_first = reduce(and_, together(side_a, "b") + together(side_b, "a"))
    return (
        # From the first player's matches (a join on their index), not every match of the
        # ladder: asked of the whole ladder, PostgreSQL read all 200,000 of them.
        Match.objects.filter(ladder=ladder, state__in=RATED_STATES, players__user=side_a[0])
        .filter(Q(a_first) | Q(b_first))
        .with_details()
        .order_by("-played_on", "-pk")
    )


@dataclass(frozen=True)
class Meeting:
    """One head-to-head match from side A's view."""

    match: Match
    won: bool  # by side A
    score: str  # side A's points first
    players_a: list[Person]  # everyone on side A's side of this match
    players_b: list[Person]


@dataclass(frozen=True)
class HeadToHead:
    side_a: list[User]
    side_b: list[User]
    meetings: list[Meeting]
    prediction: Prediction | None

    @property
    def wins(self) -> int:
        return sum(1 for m in self.meetings if m.won)

    @property
    def losses(self) -> int:
        return len(self.meetings) - self.wins


def head_to_head(
    ladder: Ladder,
    side_a: Sequence[User],
    side_b: Sequence[User],
    viewer: Viewer,
    on: date | None = None,
) -> HeadToHead:
    """The record of side A against side B, and a prediction when both sides are complete."""
    hidden = access.unseen(viewer, [ladder.pk]).get(ladder.pk, set())
    meetings = []
    for match in head_to_head_matches(ladder, side_a, side_b):
        side = match.side_of(side_a[0]) or "a"
        other = "b" if side == "a" else "a"
        meetings.append(
            Meeting(
                match,
                won=match.winner_side == side,
                score=score_from(side, match.game_scores),
                players_a=[access.person_of(u, hidden) for u in match._side(side)],
                players_b=[access.person_of(u, hidden) for u in match._side(other)],
            )
        )
    full = len(side_a) == len(side_b) == ladder.team_size
    prediction = predict(ladder, side_a, side_b, on) if full else None
    return HeadToHead(list(side_a), list(side_b), meetings, prediction)


# ---- predictions for a lineup ------------------------------------------------------------------------


def predict_sides(
    ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None = None
) -> Prediction | None:
    """The §6 prediction (probability and match quality) of a lineup, or None when it cannot
    be made honestly: a side empty, a player named twice or not a member. Never a made-up
    number."""
    players = [*side_a, *side_b]
    if not side_a or not side_b or len({u.pk for u in players}) != len(players):
        return None
    if Membership.objects.filter(ladder=ladder, user__in=players).count() != len(players):
        return None
    try:
        return predict(ladder, side_a, side_b, on)
    except EngineError:
        return None
