"""A ladder's leaderboard as a viewer sees it: ranked players by rating, then provisional,
then inactive; one page of it cached under the ladder's ``board_version``. The web views
and the API both read it here, so the two show the same players and numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import date
from functools import cached_property
from typing import Protocol, TypedDict, overload

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import DateField, Exists, OuterRef, Subquery

from accounts.models import User, name_contains
from core.cache import cache_get, cache_set
from ladder.clubs import access
from ladder.clubs.access import PUBLIC, VISITOR, Viewer
from ladder.clubs.models import Ladder, Membership, MembershipQuerySet
from ratings.models import (
    INACTIVE,
    PROVISIONAL,
    RANKED,
    PlayerRating,
    RatingChange,
    Season,
    active_since,
    rating_params,
    today,
)
from ratings.seasons import TableRow, current_table

LEADERBOARD_PAGE_SIZE = 50
MAX_QUERY_LENGTH = 100  # a search is part of a name (the API refuses a longer one)
# The ladder page shows the current season's top this many; the season's page shows everyone.
SEASON_PREVIEW = 10
# "Not yet rated" is a short list under the leaderboard; past this many, search finds the rest.
UNRATED_LIMIT = 100

ALL = "all"
STATUS_FILTERS = (
    (ALL, "Everyone"),
    (RANKED, "Ranked"),
    (PROVISIONAL, "Provisional"),
    (INACTIVE, "Inactive"),
)

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
        viewer: Viewer,
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
    def away(self) -> Subquery:
        """Each row's ``away_until``: the last day of its player's time away if they are
        away today (RULES.md "Time away"), else None; read with the row, no query more."""
        member = Membership.objects.filter(
            ladder=OuterRef("ladder"), user=OuterRef("user"), away_until__gte=self.on
        ).order_by()  # the default order joins the users
        return Subquery(member.values("away_until")[:1], output_field=DateField())

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
                section = section.order_by("-rating", "pk").annotate(away_until=self.away)
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
        params = rating_params(self.ladder)
        for row in rows:
            row.ladder, row.user = self.ladder, users[row.user_id]
            row.rd_today = row.rd_on(self.on, params)  # type: ignore[attr-defined]
            row.trend = trends.get(row.user_id)  # type: ignore[attr-defined]
            row.rank = ranks.get(row.pk)  # type: ignore[attr-defined]
        return rows


class BoardRow(Protocol):
    """A row of the board as ``Board.decorate`` leaves it: a ``PlayerRating`` with its
    ladder, user, rank, RD today and trend (what the API's rows read)."""

    rating: float
    rd_today: float
    trend: float | None
    ladder: Ladder
    user: User


class BoardPage(TypedDict):
    """One page of a leaderboard, as ``board_page`` gives it and the cache keeps it."""

    rows: list[PlayerRating]
    number: int
    total: int
    counts: dict[str, int]
    unrated: list[Membership]
    season: tuple[Season | None, list[TableRow], bool] | None


def board_page(
    ladder: Ladder,
    viewer: Viewer,
    own: Membership | None,
    *,
    text: str = "",
    status: str = ALL,
    page: str = "",
    on: date | None = None,
    season: bool = False,
) -> BoardPage:
    """One leaderboard page as ``viewer`` (whose membership of the ladder is ``own``) sees
    it, ``page`` as the request names it: its rows (with rank, trend and user), its number,
    the status counts, the total and, on the last page, the members not yet rated (at most
    one more than ``UNRATED_LIMIT``); with ``season`` (the whole ladder page, not a swap of
    the board), the current season and the top of its table (``seasons.current_table``).

    Cached under the ladder's ``board_version`` (changed whenever ratings, members or names
    change), the day and what the viewer may see, so a hit is never stale.
    """
    on = on or today()
    key = board_key(ladder, access.rows_seen(viewer, own), text, status, page, on, season)
    board: BoardPage | None = cache_get(key)
    if board is None:
        board = _read_board(ladder, viewer, text, status, page, on, season)
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
    board = _read_board(ladder, VISITOR, "", ALL, "", on, True)
    cache_set(board_key(ladder, PUBLIC, "", ALL, "", on, True), board)


def _read_board(
    ladder: Ladder, viewer: Viewer, text: str, status: str, page: str, on: date, season: bool
) -> BoardPage:
    rows = Board(ladder, viewer, text=text, status=status, on=on)
    shown = Paginator(rows, LEADERBOARD_PAGE_SIZE).get_page(page)
    unrated: list[Membership] = []
    if status == ALL and not shown.has_next():
        unrated = list(unrated_members(ladder, viewer, text)[: UNRATED_LIMIT + 1])
        for member in unrated:  # said as on the ranked rows (RULES.md "Time away")
            member.away_today = member.away_on(on)  # type: ignore[attr-defined]
    return {
        "rows": list(shown.object_list),
        "number": shown.number,
        "total": rows.count(),
        "counts": rows.counts,
        "unrated": unrated,
        "season": current_table(ladder, viewer, on, SEASON_PREVIEW) if season else None,
    }


def board_key(
    ladder: Ladder,
    seen: str,
    text: str,
    status: str,
    page: str,
    on: date,
    season: bool = False,
) -> str:
    """The cache key of a leaderboard page: what it shows (``board_version`` changes with
    every rating, membership, name and season change), the day, and who may see which rows."""
    parts: tuple[object, ...] = (
        *(ladder.pk, ladder.board_version, ladder.lookback_days, on),
        *(seen, status, text, page),
    )
    if season:  # the same page with the season's table (a key of its own, as before otherwise)
        parts = (*parts, "season")
    return "board:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def unrated_members(ladder: Ladder, viewer: Viewer, text: str = "") -> MembershipQuerySet:
    """Members listed to ``viewer`` who have no rated match on the ladder yet."""
    rated = PlayerRating.objects.filter(ladder=OuterRef("ladder"), user=OuterRef("user"))
    members = (
        access.members(viewer, Membership.objects.filter(ladder=ladder))
        .exclude(Exists(rated))
        .select_related("user")
        .filter(name_contains(text, "user__"))
        .order_by("-initial_rating", "user__display_name", "user__username")
    )
    return members
