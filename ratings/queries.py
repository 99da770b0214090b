"""Reading ratings for the pages and the API: leaderboards, player pages, head-to-head and
predictions. The web views (ratings/views.py) and the API (ratings/api.py) both call these,
so the two show the same players, numbers and errors.

Visibility follows the ladder's rules: a ladder is seen by whom ``Ladder.objects.visible_to``
says, and a member with ``Membership.is_public`` off is seen only by themselves and
moderators; elsewhere (a match list, an explanation) they read as "a hidden player".
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property, reduce
from operator import and_
from typing import Any, NamedTuple, overload

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts.models import User, name_contains
from ladder.clubs.caching import cache_get, cache_set
from ladder.clubs.models import Ladder, Membership, MembershipQuerySet
from ladder.matches.models import RATED_STATES, Game, Match, MatchPlayer
from ratings.engine.predict import match_quality, win_probability
from ratings.engine.types import EngineError, PlayerState
from ratings.explain import HIDDEN_PLAYER, context_for, explain, score_from
from ratings.models import (
    INACTIVE,
    PROVISIONAL,
    PUBLIC,
    RANKED,
    PlayerRating,
    RatingChange,
    active_since,
)

LEADERBOARD_PAGE_SIZE = 50
HISTORY_PAGE_SIZE = 20
# "Not yet rated" is a short list under the leaderboard; past this many, search finds the rest.
UNRATED_LIMIT = 100

ALL = "all"
STATUS_FILTERS = (
    (ALL, "Everyone"),
    (RANKED, "Ranked"),
    (PROVISIONAL, "Provisional"),
    (INACTIVE, "Inactive"),
)


def today() -> date:
    return timezone.localdate()


# ---- leaderboard -------------------------------------------------------------------------


class Board:
    """A ladder's leaderboard as ``viewer`` sees it, matching ``text``, of one status or all:
    ranked players by rating, then provisional, then inactive. A lazy sequence for a
    Paginator (the page and the API page it alike).

    Counting is one query (the status counts). A slice is one query per status section
    it spans (usually one, at most three), each walking the ladder's rating index from
    the section's start instead of sorting the whole board; then ``decorate`` adds each
    row's user, trend, listing and rank. Every query is the same whatever the board's size.
    """

    def __init__(
        self,
        ladder: Ladder,
        viewer: Any,
        *,
        text: str = "",
        status: str = ALL,
        on: date | None = None,
    ) -> None:
        self.ladder, self.viewer, self.text = ladder, viewer, text
        self.on = on or today()
        self.cutoffs = {ladder.pk: active_since(ladder.lookback_days, self.on)}
        self.statuses = (RANKED, PROVISIONAL, INACTIVE) if status == ALL else (status,)
        self.everyone = PlayerRating.objects.filter(ladder=ladder).listed_for(viewer)
        self.rows = self.everyone.search(text)

    @cached_property
    def counts(self) -> dict[str, int]:
        """How many players of each status match the search (whatever the status filter)."""
        return self.rows.status_counts(self.cutoffs, self.on)

    def count(self) -> int:
        return sum(self.counts[status] for status in self.statuses)

    def __len__(self) -> int:
        return self.count()

    def __iter__(self) -> Iterator[PlayerRating]:
        return iter(self[:])

    @overload
    def __getitem__(self, index: int) -> PlayerRating: ...

    @overload
    def __getitem__(self, index: slice) -> list[PlayerRating]: ...

    def __getitem__(self, index: int | slice) -> PlayerRating | list[PlayerRating]:
        if isinstance(index, int):
            one = self[index : index + 1] if index >= 0 else []
            if not one:
                raise IndexError("No such place on the leaderboard.")
            return one[0]
        start, stop = index.start or 0, index.stop if index.stop is not None else self.count()
        rows: list[PlayerRating] = []
        before = 0  # rows in the sections before this one
        for status in self.statuses:
            size = self.counts[status]
            low, high = max(start - before, 0), min(stop - before, size)
            if low < high:
                section = self.rows.of_status(status, self.cutoffs, self.on)
                section = section.order_by("-rating", "pk")
                for row in section[low:high]:
                    row.status = status  # type: ignore[attr-defined]
                    rows.append(row)
            before += size
        return self.decorate(rows, start)

    def decorate(self, rows: list[PlayerRating], start: int) -> list[PlayerRating]:
        """Set ``ladder``, ``user``, ``trend`` and ``rank`` on the rows from place ``start``
        (0-based) on, in a query each for the users and the trends, and ranks by place on the
        whole board (ranked rows come first, in rank order) or by one query in a search."""
        if not rows:
            return rows
        ids = [row.user_id for row in rows]
        users = User.objects.only("username", "display_name").in_bulk(ids)
        trends = dict(
            RatingChange.objects.filter(ladder=self.ladder, user__in=ids)
            .trends(self.on)
            .values_list("user", "total")
        )
        ranked = [row for row in rows if row.status == RANKED]  # type: ignore[attr-defined]
        if self.text:
            ranks = self.everyone.ranks_of(ranked, self.cutoffs, self.on)
        else:
            ranks = {row.pk: start + place for place, row in enumerate(ranked, 1)}
        params = self.ladder.params()
        for row in rows:
            row.ladder, row.user = self.ladder, users[row.user_id]
            row.rd_today = row.rd_on(self.on, params)  # type: ignore[attr-defined]
            row.trend = trends.get(row.user_id)  # type: ignore[attr-defined]
            row.rank = ranks.get(row.pk)  # type: ignore[attr-defined]
        return rows


def board_viewer(viewer: Any, own: Membership | None) -> str:
    """Which rows of a ladder ``viewer`` may see, as a cache-key part, given their own
    membership of it (or None): every row for moderators, their own hidden row as well for
    a hidden member, else the public rows."""
    if not viewer.is_authenticated:
        return PUBLIC
    if viewer.is_moderator:
        return "all"
    return f"self{viewer.pk}" if own is not None and not own.is_public else PUBLIC


def board_page(
    ladder: Ladder,
    viewer: Any,
    own: Membership | None,
    *,
    text: str = "",
    status: str = ALL,
    page: str = "",
    on: date | None = None,
) -> dict[str, Any]:
    """One leaderboard page as ``viewer`` (whose membership of the ladder is ``own``) sees
    it, ``page`` as the request names it: its rows (with rank, trend and user), its number,
    the status counts, the total and, on the last page, the members not yet rated (at most
    one more than ``UNRATED_LIMIT``).

    Cached under the ladder's ``board_version`` (changed whenever ratings, members or names
    change), the day and what the viewer may see, so a hit is never stale.
    """
    on = on or today()
    key = board_key(ladder, board_viewer(viewer, own), text, status, page, on)
    board = cache_get(key)
    if board is None:
        board = _read_board(ladder, viewer, text, status, page, on)
        cache_set(key, board)
    return board


def warm_board(ladder: Ladder) -> None:
    """Put the first page that visitors see in the cache, ready for the first of them.

    A rating run calls this inside its transaction, after giving the ladder its new
    ``board_version``: if the run rolls back, the entry sits under a version that no one
    reads, and once it commits, no visitor reads the page before it is there."""
    if not settings.LEADERBOARD_CACHE_SECONDS:
        return
    on = today()
    board = _read_board(ladder, AnonymousUser(), "", ALL, "", on)
    cache_set(board_key(ladder, PUBLIC, "", ALL, "", on), board)


def _read_board(
    ladder: Ladder, viewer: Any, text: str, status: str, page: str, on: date
) -> dict[str, Any]:
    rows = Board(ladder, viewer, text=text, status=status, on=on)
    shown = Paginator(rows, LEADERBOARD_PAGE_SIZE).get_page(page)
    unrated: list[Membership] = []
    if status == ALL and not shown.has_next():
        unrated = list(unrated_members(ladder, viewer, text)[: UNRATED_LIMIT + 1])
    return {
        "rows": shown.object_list,
        "number": shown.number,
        "total": rows.count(),
        "counts": rows.counts,
        "unrated": unrated,
    }


def board_key(ladder: Ladder, seen: str, text: str, status: str, page: str, on: date) -> str:
    """The cache key of a leaderboard page: what it shows (``board_version`` changes with
    every rating, membership and name change), the day, and who may see which rows."""
    parts = (ladder.pk, ladder.board_version, ladder.lookback_days, on, seen, status, text, page)
    return "board:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def unrated_members(ladder: Ladder, viewer: Any, text: str = "") -> MembershipQuerySet:
    """Members ``viewer`` may see who have no rated match on the ladder yet."""
    rated = PlayerRating.objects.filter(ladder=OuterRef("ladder"), user=OuterRef("user"))
    members = (
        Membership.objects.filter(ladder=ladder)
        .listed_for(viewer)
        .exclude(Exists(rated))
        .select_related("user")
        .filter(name_contains(text, "user__"))
        .order_by("-initial_rating", "user__display_name", "user__username")
    )
    return members


@dataclass(frozen=True)
class Person:
    """A player as the viewer may see them: no username (no link) for a hidden member."""

    name: str
    username: str | None


def _person(user: User, hidden: set[int]) -> Person:
    return _named(user.pk, user.username, user.display_name, hidden)


def _named(user_id: int, username: str, display_name: str, hidden: set[int]) -> Person:
    """``_person`` from the user's columns alone (``User.name``'s rule), for rows read
    without their users."""
    if user_id in hidden:
        return Person(HIDDEN_PLAYER, None)
    return Person(display_name or username, username)


# ---- who may be seen ---------------------------------------------------------------------


def hidden_members(viewer: Any, ladder_ids: Iterable[int]) -> dict[int, set[int]]:
    """Per ladder, the members ``viewer`` may not see (their names are withheld)."""
    hidden: dict[int, set[int]] = defaultdict(set)
    # No ordering: Membership's default one would join ladders and users to sort the rows.
    rows = Membership.objects.filter(ladder_id__in=list(ladder_ids)).hidden_from(viewer).order_by()
    for ladder_id, user_id in rows.values_list("ladder_id", "user_id"):
        hidden[ladder_id].add(user_id)
    return hidden


def player_memberships(username: str, viewer: Any) -> tuple[User | None, list[Membership]]:
    """The player called ``username`` (None if no one is) and their memberships that
    ``viewer`` may see, by ladder name. The memberships bring the player along: the player
    is read on their own only when there are none."""
    visible = Ladder.objects.visible_to(viewer).values("pk")
    memberships = list(
        Membership.objects.filter(user__username=username, ladder__in=visible)
        .listed_for(viewer)
        .select_related("ladder", "user")
        .order_by("ladder__name")
    )
    if memberships:
        return memberships[0].user, memberships
    return User.objects.filter(username=username).first(), memberships


def can_view_player(player: User, viewer: Any, memberships: Sequence[Membership]) -> bool:
    """A player page exists for a viewer who may see one of its ladders (or is that player)."""
    if memberships:
        return True
    return viewer.is_authenticated and (viewer.pk == player.pk or viewer.is_moderator)


# ---- player page -------------------------------------------------------------------------


def player_ratings(
    player: User, memberships: Sequence[Membership], viewer: Any, on: date | None = None
) -> dict[int, PlayerRating]:
    """``player``'s rating on each of these ladders, with status, rank and trend, by ladder id."""
    on = on or today()
    cutoffs = {m.ladder_id: active_since(m.ladder.lookback_days, on) for m in memberships}
    if not cutoffs:
        return {}
    rows = (
        PlayerRating.objects.filter(user=player, ladder_id__in=list(cutoffs))
        .with_rank(viewer, cutoffs, on)
        .with_trend(on)
    )
    ladders = {m.ladder_id: m.ladder for m in memberships}
    ratings = {}
    for row in rows:
        row.rd_today = row.rd_on(on, ladders[row.ladder_id].params())  # type: ignore[attr-defined]
        status = row.status_on(on, cutoffs[row.ladder_id])
        row.status = status  # type: ignore[attr-defined]
        if status != RANKED:
            row.rank = None  # type: ignore[attr-defined]
        ratings[row.ladder_id] = row
    return ratings


class Played(NamedTuple):
    """One of a player's rated matches on a ladder, as the chart and the records read it
    (the chart reads the first five fields)."""

    played_on: date
    rating_before: float
    rd_before: float
    rating_after: float
    rd_after: float
    match_id: int
    side: str
    won: bool


def matches_played(player: User, ladder: Ladder) -> list[Played]:
    """Every rated match of ``player`` on ``ladder``, oldest first."""
    return [
        Played(*row)
        for row in RatingChange.objects.filter(user=player, ladder=ladder)
        .order_by("played_on", "match_id")
        .values_list(
            "played_on",
            "rating_before",
            "rd_before",
            "rating_after",
            "rd_after",
            "match_id",
            "side",
            "won",
        )  # fmt: skip
    ]


@dataclass(frozen=True)
class Record:
    """``player``'s record with one opponent or partner."""

    user_id: int
    username: str
    name: str
    played: int
    wins: int
    last_played: date

    @property
    def losses(self) -> int:
        return self.played - self.wins

    @property
    def won_lost(self) -> str:
        """The record as the tables show it, "3–1": one string, not two numbers to localise."""
        return f"{self.wins}–{self.losses}"


def records(
    player: User, played: Iterable[Played], players: MatchPlayers, hidden: set[int]
) -> tuple[list[Record], list[Record]]:
    """``player``'s opponents and partners, each with ``player``'s record with them, from
    their matches (``matches_played``) and those matches' players (``match_players``),
    without the members the viewer may not see: most played first, then most recent."""
    tallies: dict[bool, dict[int, Record]] = {False: {}, True: {}}  # by "on player's side"
    for match in played:
        for side, user_id, username, display_name in players[match.match_id]:
            if user_id == player.pk or user_id in hidden:
                continue
            with_them = tallies[side == match.side]
            seen = with_them.get(user_id)
            with_them[user_id] = Record(
                user_id,
                username,
                display_name or username,
                played=(seen.played if seen else 0) + 1,
                wins=(seen.wins if seen else 0) + match.won,
                last_played=match.played_on,  # oldest first: this is the latest so far
            )

    def ordered(found: dict[int, Record]) -> list[Record]:
        return sorted(
            found.values(),
            key=lambda r: (-r.played, -r.last_played.toordinal(), r.name.casefold(), r.username),
        )

    return ordered(tallies[False]), ordered(tallies[True])


# ---- head-to-head and predictions --------------------------------------------------------


class SideError(ValueError):
    """The players named for a head-to-head or a prediction do not make two sides."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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
    viewer: Any,
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
        Membership.objects.filter(ladder=ladder)
        .listed_for(viewer)
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
    params = ladder.params()
    return Prediction(
        probability=win_probability(a, b, params, on),
        quality=match_quality(a, b, params, on),
        on=on,
        states_a=a,
        states_b=b,
    )


def head_to_head_matches(ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User]) -> Any:
    """Rated matches with every player of ``side_a`` on one side and every player of
    ``side_b`` on the other (partners of a partial side may be anyone), newest first."""

    def together(users: Sequence[User], side: str) -> list[Any]:
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
    viewer: Any,
    on: date | None = None,
) -> HeadToHead:
    """The record of side A against side B, and a prediction when both sides are complete."""
    hidden = hidden_members(viewer, [ladder.pk]).get(ladder.pk, set())
    meetings = []
    for match in head_to_head_matches(ladder, side_a, side_b):
        side = match.side_of(side_a[0]) or "a"
        other = "b" if side == "a" else "a"
        meetings.append(
            Meeting(
                match,
                won=match.winner_side == side,
                score=score_from(side, match.game_scores),
                players_a=[_person(u, hidden) for u in match._side(side)],
                players_b=[_person(u, hidden) for u in match._side(other)],
            )
        )
    full = len(side_a) == len(side_b) == ladder.team_size
    prediction = predict(ladder, side_a, side_b, on) if full else None
    return HeadToHead(list(side_a), list(side_b), meetings, prediction)


# ---- rating history ----------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One rating change in a player's history, with its match and explanation."""

    change: RatingChange
    partners: list[Person]
    opponents: list[Person]
    score: str  # from the player's side
    explanation: str

    @property
    def won(self) -> bool:
        return self.change.won


# Per match, its players as (side, user id, username, display name), in order.
MatchPlayers = Mapping[int, list[tuple[str, int, str, str]]]


def match_players(matches: Any) -> MatchPlayers:
    """The players of ``matches`` (match ids, or a query of them), in one query of plain
    rows with only what a history shows (whole matches and users cost more to build than
    the page takes to draw)."""
    players: dict[int, list[tuple[str, int, str, str]]] = defaultdict(list)
    for match_id, side, user_id, username, display_name in (
        MatchPlayer.objects.filter(match_id__in=matches)
        .order_by("side", "position")
        .values_list("match_id", "side", "user_id", "user__username", "user__display_name")
    ):
        players[match_id].append((side, user_id, username, display_name))
    return players


def history_entries(
    changes: Iterable[RatingChange],
    ladders: Mapping[int, Ladder],
    hidden: dict[int, set[int]],
    players: MatchPlayers | None = None,
) -> list[Entry]:
    """A page of ``RatingChange.objects.history()`` as entries to show or serialise, in a
    query for the games and one for the players (``match_players``) unless the caller has
    them. ``ladders`` holds the changes' ladders, which the caller has already read; each
    change gets its own."""
    changes = list(changes)
    match_ids = [change.match_id for change in changes]
    if players is None:
        players = match_players(match_ids)
    games: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for match_id, a, b in (
        Game.objects.filter(match_id__in=match_ids)
        .order_by("number")
        .values_list("match_id", "a_points", "b_points")
    ):
        games[match_id].append((a, b))
    entries = []
    for change in changes:
        change.ladder = ladders[change.ladder_id]
        ladder_hidden = hidden.get(change.ladder_id, set())
        partners, opponents = [], []
        for side, user_id, username, display_name in players[change.match_id]:
            if side != change.side:
                opponents.append(_named(user_id, username, display_name, ladder_hidden))
            elif user_id != change.user_id:
                partners.append(_named(user_id, username, display_name, ladder_hidden))
        names = [person.name for person in opponents]
        context = context_for(change, change.ladder, games[change.match_id], names)
        entries.append(
            Entry(
                change=change,
                partners=partners,
                opponents=opponents,
                score=context.score,
                explanation=explain(change, context),
            )
        )
    return entries


# ---- predictions for a lineup ------------------------------------------------------------------------


def predict_for_report(
    ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None = None
) -> float | None:
    """RATINGS.md §6: the probability that side A wins, from the players' current ratings."""
    prediction = predict_sides(ladder, side_a, side_b, on)
    return None if prediction is None else prediction.probability


def predict_sides(
    ladder: Ladder, side_a: Sequence[User], side_b: Sequence[User], on: date | None = None
) -> Any:
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


# ---- a match's rating changes (the match page) ---------------------------------------------


@dataclass(frozen=True)
class MatchChange:
    """What a match did to one of its players' rating, and why, as the match page shows it."""

    name: str
    change: RatingChange
    explanation: str


def match_changes(match: Match) -> list[MatchChange]:
    """Each player's change from ``match`` (none before it is rated), explained.

    ``match`` comes as its page shows it, with its players' names already withheld from a
    viewer who may not see them (``mask_hidden_players``): the names here are those."""
    players = {p.user_id: (p.side, p.user.name) for p in match.players.all()}
    changes = list(RatingChange.objects.of_match(match.pk))
    if not changes:
        return []
    games = match.game_scores
    rows = []
    for change in changes:
        opponents = [name for side, name in players.values() if side != change.side]
        context = context_for(change, match.ladder, games, opponents)
        name = players.get(change.user_id, ("", HIDDEN_PLAYER))[1]
        rows.append(MatchChange(name, change, explain(change, context)))
    return rows


# ---- a member's home page --------------------------------------------------------------------

WEEK = 7
LATEST_RESULTS = 6


@dataclass(frozen=True)
class Standing:
    """A member on one of their ladders today: rating (``None`` before their first rated
    match), status and rank, and the change over the last week."""

    membership: Membership
    rating: PlayerRating | None
    week: float | None


def standings(
    user: User, memberships: Sequence[Membership], on: date | None = None
) -> list[Standing]:
    """``user``'s standing on each of ``memberships`` (the home page), in their order."""
    on = on or today()
    ratings = player_ratings(user, memberships, user, on)
    weeks = {
        row["ladder"]: row["total"]
        for row in RatingChange.objects.filter(user=user).trends(on, days=WEEK)
    }
    return [Standing(m, ratings.get(m.ladder_id), weeks.get(m.ladder_id)) for m in memberships]


def latest_results(ladder_ids: Sequence[int], limit: int = LATEST_RESULTS) -> list[Match]:
    """The newest rated matches of these ladders, with their players and games (the caller
    withholds hidden members' names from its viewer: ``mask_hidden_players``)."""
    return list(
        Match.objects.filter(ladder_id__in=ladder_ids, state__in=RATED_STATES)
        .with_details()
        .order_by("-played_on", "-id")[:limit]
    )
