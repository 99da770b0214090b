"""A ladder's seasons (RULES.md "Seasons"): defining them, and each one's table.

A season's table lists everyone who played a rated match in it: their rating at the
season's end (or now, for the current season), the change over the season, matches and
W–L, ranked by that rating. Ratings carry across seasons; a season changes no number of
the rating maths.

The table of a current season is read from the rating changes (``live_rows``). Once the
season is over and every match played in it is settled (confirmed and rated, or expired,
cancelled, voided), its table is stored (``SeasonStanding``, by ``freeze_season``: the
periodic task ``ratings.freeze_seasons``, or the first read after that) and read from
there ever after, so a later correction or replay changes today's ratings and never
an archived table. The pages and the API both read ``season_table``.

Defining a season (``save_season``, ``delete_season``) is ratings/upkeep.py's: storing one
makes the ladder's pages stale, and its first day may replay the ladder.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from itertools import count

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from core.errors import DomainValidationError
from ladder.clubs.access import Viewer
from ladder.clubs.models import Ladder
from ladder.matches.models import DISPUTED, PENDING, Match
from ratings.models import (
    RANKED,
    PlayerRating,
    RatingChange,
    Season,
    SeasonStanding,
    active_since,
    today,
)


class SeasonError(DomainValidationError):
    """A season that cannot be stored as asked; the message is for people."""


@dataclass(frozen=True)
class TableRow:
    """One line of a season's table as a viewer sees it (``rank`` among the rows they see;
    None for a player the leaderboard does not rank either, ``status`` says why)."""

    user: User
    rank: int | None
    rating: float
    change: float
    matches: int
    wins: int
    losses: int
    status: str = RANKED


# ---- tables ----------------------------------------------------------------------------------


def current_table(
    ladder: Ladder, viewer: Viewer, on: date, limit: int
) -> tuple[Season | None, list[TableRow], bool]:
    """The ladder's current season (or None), the first ``limit`` rows of its table as
    ``viewer`` sees it, and whether there are more: what the ladder page shows (kept with
    its leaderboard, ratings.leaderboards.board_page)."""
    season = Season.objects.filter(ladder=ladder).current(on)
    if season is None:
        return None, [], False
    season.ladder = ladder
    table = season_table(season, viewer, on)
    return season, table[:limit], len(table) > limit


def season_table(season: Season, viewer: Viewer, on: date | None = None) -> list[TableRow]:
    """The season's table as ``viewer`` sees it on ``on`` (today): the stored one once the
    season is over and settled (stored now if it is not yet), else worked out from the
    rating changes.
    Hidden members are left out for those who may not see them, and the rest ranked
    without a gap (the access policy, ``ladder.clubs.access``)."""
    on = on or today()
    if season.starts_on > on:
        return []
    listed = PlayerRating.objects.filter(ladder_id=season.ladder_id).listed_for(viewer)
    if season.is_over(on) and (season.frozen_at is not None or freeze_season(season, on)):
        rows = [
            (s.user, s.rating, s.change, s.matches, s.wins, s.losses)
            for s in SeasonStanding.objects.filter(season=season)
            .select_related("user")
            .order_by("rank")
        ]
        # An archived table keeps the places it was stored with.
        status = dict.fromkeys(listed.values_list("user_id", flat=True), RANKED)
    else:
        rows = live_rows(season, on)
        # The current table ranks whom the leaderboard beside it ranks (issue 37: Daniel
        # Kim #1 here, "provisional, not ranked" on the board); the others follow, unranked.
        cutoff = active_since(season.ladder.lookback_days, on)
        status = {
            r.user_id: r.status_on(on, cutoff)
            for r in listed.only("user_id", "last_played", "established_until")
        }
    shown = [row for row in rows if row[0].pk in status]
    shown.sort(key=lambda row: status[row[0].pk] != RANKED)  # stable: by rating within
    ranks = count(1)
    return [
        TableRow(
            user,
            next(ranks) if status[user.pk] == RANKED else None,
            rating,
            change,
            matches,
            wins,
            losses,
            status[user.pk],
        )
        for user, rating, change, matches, wins, losses in shown
    ]


@dataclass
class _Tally:
    """A player's season so far, as ``live_rows`` reads the rating changes."""

    user: User
    start: float
    end: float
    matches: int = 0
    wins: int = 0


def live_rows(season: Season, on: date) -> list[tuple[User, float, float, int, int, int]]:
    """Everyone who played a rated match in the season up to ``on``, best first: (user,
    rating at the end, change over the season, matches, wins, losses). One query.

    A player's rating at the season's start is the rating before their first match in it
    (a rating moves only with matches; inactivity grows the RD alone, RATINGS.md §3 step 1),
    and at its end the rating after their last match in it. Ties in rating go to more
    matches, then to the username."""
    last_day = min(season.ends_on, on)
    changes = (
        RatingChange.objects.filter(
            ladder_id=season.ladder_id, played_on__gte=season.starts_on, played_on__lte=last_day
        )
        .select_related("user")
        .only(
            "user__username",
            "user__display_name",
            "played_on",
            "match_id",
            "rating_before",
            "rating_after",
            "won",
        )
        .order_by("played_on", "match_id")
    )
    players: dict[int, _Tally] = {}
    for change in changes:
        player = players.get(change.user_id)
        if player is None:
            player = players[change.user_id] = _Tally(
                change.user, change.rating_before, change.rating_after
            )
        player.end = change.rating_after
        player.matches += 1
        player.wins += int(change.won)
    ordered = sorted(players.values(), key=lambda p: (-p.end, -p.matches, p.user.username))
    return [
        (p.user, p.end, p.end - p.start, p.matches, p.wins, p.matches - p.wins) for p in ordered
    ]


def unsettled(season: Season) -> bool:
    """Whether a match played in the season still waits: for confirmation, for a
    moderator's decision, or for the rating run. Its table is stored once none does."""
    return (
        Match.objects.filter(
            ladder_id=season.ladder_id,
            played_on__gte=season.starts_on,
            played_on__lte=season.ends_on,
        )
        .filter(Q(state__in=(PENDING, DISPUTED)) | Q(needs_rating=True))
        .exists()
    )


def freeze_season(season: Season, on: date | None = None) -> bool:
    """Store the table of a season that is over, once, as it stood on its last day: True if
    this call stored it. Not while a match played in it is unsettled (``unsettled``): a
    result reported on the last day counts once it is confirmed and rated. The season's row
    is locked, so two readers at once store it once."""
    on = on or today()
    if not season.is_over(on) or season.frozen_at is not None:
        return False
    with transaction.atomic():
        locked = Season.objects.select_for_update().get(pk=season.pk)
        if locked.frozen_at is not None:
            season.frozen_at = locked.frozen_at
            return False
        if unsettled(locked):
            return False
        SeasonStanding.objects.bulk_create(
            SeasonStanding(
                season=locked,
                user=user,
                rank=rank,
                rating=rating,
                change=change,
                matches=matches,
                wins=wins,
                losses=losses,
            )
            for rank, (user, rating, change, matches, wins, losses) in enumerate(
                live_rows(locked, locked.ends_on), 1
            )
        )
        locked.frozen_at = season.frozen_at = timezone.now()
        locked.save(update_fields=["frozen_at"])
    return True


def freeze_due_seasons(on: date | None = None) -> int:
    """Store the table of every season that is over and not stored yet; how many were."""
    on = on or today()
    return sum(freeze_season(season, on) for season in Season.objects.due_to_freeze(on))
