"""A player's rated matches as the pages show them: their ratings with status, rank and
trend, their records with opponents and partners, their history with each change
explained, a match's changes (the match page) and a member's standings (home).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from accounts.models import User
from ladder.clubs import access
from ladder.clubs.access import Person, Viewer
from ladder.clubs.models import Ladder, Membership
from ladder.matches.models import RATED_STATES, Game, Match, MatchPlayer
from ladder.matches.visibility import ShownMatch
from ratings.explain import context_for, explain
from ratings.models import (
    RANKED,
    PlayerRating,
    RatingChange,
    active_since,
    rating_params,
    today,
)

HISTORY_PAGE_SIZE = 20

# ---- player page -------------------------------------------------------------------------


def player_ratings(
    player: User, memberships: Sequence[Membership], viewer: Viewer, on: date | None = None
) -> dict[int, PlayerRating]:
    """``player``'s rating on each of these ladders, with status, rank, trend and
    ``away_until`` (RULES.md "Time away"), by ladder id."""
    on = on or today()
    cutoffs = {m.ladder_id: active_since(m.ladder.lookback_days, on) for m in memberships}
    if not cutoffs:
        return {}
    rows = (
        PlayerRating.objects.filter(user=player, ladder_id__in=list(cutoffs))
        .with_rank(viewer, cutoffs, on)
        .with_trend(on)
    )
    params = {m.ladder_id: rating_params(m.ladder) for m in memberships}
    ratings = {}
    away = {m.ladder_id: m.away_on(on) for m in memberships}
    for row in rows:
        row.away_until = away[row.ladder_id]  # type: ignore[attr-defined]
        row.rd_today = row.rd_on(on, params[row.ladder_id])  # type: ignore[attr-defined]
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


def match_players(matches: Iterable[int]) -> MatchPlayers:
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
    starts: dict[int, tuple[date, ...]] = {}  # by ladder: the first days its ratings count
    for change in changes:
        change.ladder = ladders[change.ladder_id]
        if change.ladder_id not in starts:
            starts[change.ladder_id] = rating_params(change.ladder).season_starts
        ladder_hidden = hidden.get(change.ladder_id, set())
        partners, opponents = [], []
        for side, user_id, username, display_name in players[change.match_id]:
            if side != change.side:
                opponents.append(access.person(user_id, username, display_name, ladder_hidden))
            elif user_id != change.user_id:
                partners.append(access.person(user_id, username, display_name, ladder_hidden))
        names = [access.in_a_sentence(person.name, person.username) for person in opponents]
        context = context_for(
            change, change.ladder, games[change.match_id], names, starts[change.ladder_id]
        )
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


# ---- a match's rating changes (the match page) ---------------------------------------------


@dataclass(frozen=True)
class MatchChange:
    """What a match did to one of its players' rating, and why, as the match page shows it."""

    name: str
    change: RatingChange
    explanation: str


def match_changes(shown: ShownMatch) -> list[MatchChange]:
    """Each player's change from a match (none before it is rated), explained, with the names
    its viewer may see (``shown``: the match as its page shows it)."""
    match = shown.match
    changes = list(RatingChange.objects.of_match(match.pk))
    if not changes:
        return []
    games = match.game_scores
    starts = rating_params(match.ladder).season_starts
    rows = []
    for change in changes:
        against = shown.side_b if change.side == "a" else shown.side_a
        opponents = [access.in_a_sentence(p.name, p.username) for p in against]
        context = context_for(change, match.ladder, games, opponents, starts)
        player = shown.player(change.user_id)
        name = player.name if player is not None else access.HIDDEN_PLAYER_NAME
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
    viewer: Viewer, user: User, memberships: Sequence[Membership], on: date | None = None
) -> list[Standing]:
    """``user``'s standing on each of ``memberships`` (the home page, where ``viewer`` is
    ``user``), in their order."""
    on = on or today()
    ratings = player_ratings(user, memberships, viewer, on)
    weeks = {
        row["ladder"]: row["total"]
        for row in RatingChange.objects.filter(user=user).trends(on, days=WEEK)
    }
    return [Standing(m, ratings.get(m.ladder_id), weeks.get(m.ladder_id)) for m in memberships]


def latest_results(ladder_ids: Sequence[int], limit: int = LATEST_RESULTS) -> list[Match]:
    """The newest rated matches of these ladders, with their players and games (the caller
    shows them with the names its viewer may see: ``visibility.shown_matches``)."""
    return list(
        Match.objects.filter(ladder_id__in=ladder_ids, state__in=RATED_STATES)
        .with_details()
        .order_by("-played_on", "-id")[:limit]
    )
