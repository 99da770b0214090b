"""Turning confirmed matches into ratings: in (played_on, id) order, exactly once.

The database is the source of truth. A match that enters or leaves a rated state gets
`needs_rating=True` (ladder.matches); `rate_ladder` takes the ladder's lock, picks those
matches up and brings the stored ratings to what a replay of every rated match gives:

- the common case, matches newer than everything rated, continues the engine's replay
  from the stored state (current ratings plus the lookback window of recent matches);
- a late match, a correction or a void replays the ladder from scratch in memory and
  rewrites the change rows from the earliest affected match on.

Either way the result equals a replay from scratch, which `recompute_ladder` performs
outright. A second worker, or a redelivered message, finds nothing left to do.
"""

from __future__ import annotations

import logging
import secrets
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ladder.clubs.caching import pages_changed
from ladder.clubs.models import Ladder, Membership, format_rating
from ladder.matches.models import AuditEntry, Game, Match, MatchPlayer, Notification
from ratings.bulk import insert_rows
from ratings.engine import MatchResult, PlayerChange, PlayerState, Replayer, ReplaySnapshot
from ratings.leaderboards import warm_board
from ratings.models import (
    PlayerRating,
    RatingChange,
    established_until,
    ladder_standing,
    listing_of,
)

log = logging.getLogger(__name__)

RATED_STATES = Match.RATED_STATES
SNAPSHOT_NAMED = 1000  # players a snapshot names; past that it reads the whole ladder
WRITE_BATCH = 2000  # rows per INSERT: large enough to be fast, small enough for SQLite's limits

Key = tuple[date, int]


@dataclass(frozen=True)
class RateResult:
    """What one run did: how many matches it rated, and whether it replayed from scratch."""

    rated: int
    replayed_from: Key | None = None

    @property
    def full_replay(self) -> bool:
        return self.replayed_from is not None


def rate_ladder(ladder_id: int) -> RateResult:
    """Bring a ladder's ratings up to date with its matches; safe to call any number of times."""
    with transaction.atomic():
        # One rating run per ladder at a time: the ladder row is the lock (PostgreSQL row
        # lock; SQLite serialises writers anyway).
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        pending = list(
            Match.objects.select_for_update()
            .filter(ladder=ladder, needs_rating=True)
            .order_by("played_on", "id")
            .values_list("id", "played_on", "state", "rated_at")
        )
        # A match that never was rated and is not rated now (say, disputed then voided)
        # changes nothing; only the others decide where the replay starts.
        affecting = [
            (played_on, pk, state, rated_at)
            for pk, played_on, state, rated_at in pending
            if state in RATED_STATES or rated_at is not None
        ]
        result = RateResult(rated=0)
        if affecting:
            last = _last_rated_key(ladder)
            first: Key = min((played_on, pk) for played_on, pk, _, _ in affecting)
            only_new = all(state in RATED_STATES and at is None for _, _, state, at in affecting)
            if only_new and (last is None or first > last):
                new = load_matches(ladder, {pk for _, pk, _, _ in affecting})
                players = {int(name) for m in new for name in (*m.side_a, *m.side_b)}
                replayer = Replayer.from_snapshot(
                    ladder.params(), ladder.scoring(), _snapshot(ladder, last, players)
                )
                result = RateResult(rated=_rate_and_store(ladder, replayer, new, since=None))
            else:
                result = RateResult(rated=_replay_from(ladder, first), replayed_from=first)
        now = timezone.now()
        # Exactly the rows claimed above: a match confirmed meanwhile keeps its flag.
        rated = [pk for pk, _, state, _ in pending if state in RATED_STATES]
        unrated = [pk for pk, _, state, _ in pending if state not in RATED_STATES]
        first_time = [pk for pk, _, state, at in pending if state in RATED_STATES and at is None]
        for chunk in _chunks(first_time):
            _tell_new_ratings(ladder, chunk)
        for chunk in _chunks(rated):
            Match.objects.filter(pk__in=chunk).update(needs_rating=False, rated_at=now)
        for chunk in _chunks(unrated):
            Match.objects.filter(pk__in=chunk).update(needs_rating=False, rated_at=None)
        if affecting:
            ladder.board_version = bump_board(ladder.pk)
            warm_board(ladder)
    log.info(
        "ladder %s: rated %s match(es), replayed from %s",
        ladder.slug,
        result.rated,
        result.replayed_from,
    )
    return result


def _tell_new_ratings(ladder: Ladder, match_ids: list[int]) -> None:
    """Each player of a match confirmed on the site hears what it did to their rating.

    Only matches with an audit trail (reported on the site): imported history has none and
    tells no one. A match rated again later (a late match before it, a correction) tells
    no one either: a correction has its own notification."""
    site = AuditEntry.objects.filter(match_id__in=match_ids).values("match_id")
    changes = RatingChange.objects.filter(ladder=ladder, match_id__in=site).only(
        "match_id", "user_id", "played_on", "won", "rating_before", "rating_after"
    )
    Notification.objects.bulk_create(
        Notification(
            user_id=c.user_id,
            kind="rating",
            match_id=c.match_id,
            text=f"{ladder.name}: your rating went from {format_rating(c.rating_before)} to "
            f"{format_rating(c.rating_after)} after your {'win' if c.won else 'loss'} of "
            f"{c.played_on.day} {c.played_on:%b}.",
        )
        for c in changes
    )


def recompute_ladder(ladder_id: int) -> int:
    """Replay a ladder from scratch and store the result; running it twice changes nothing."""
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        count = _replay_from(ladder, None)
        Match.objects.filter(ladder=ladder, state__in=RATED_STATES).update(
            needs_rating=False, rated_at=timezone.now()
        )
        Match.objects.filter(ladder=ladder).exclude(state__in=RATED_STATES).update(
            needs_rating=False, rated_at=None
        )
        ladder.board_version = bump_board(ladder.pk)
        warm_board(ladder)
    return count


def bump_board(*ladder_ids: int) -> int:
    """What these ladders' leaderboards show changed: cached pages of them are stale.

    Returns the new ``board_version``: a random number rather than the next one, so that
    a version given in a transaction that rolls back is never given again."""
    version = secrets.randbits(62)
    Ladder.objects.filter(pk__in=ladder_ids).update(board_version=version)
    pages_changed()
    return version


# Matches rated per call of the engine's batch path when storing a run's changes.
RATE_BATCH = 4096


def _chunks(ids: list[int], size: int = 1000) -> Iterable[list[int]]:
    """Ids a thousand at a time: one statement with very many parameters is slow to build."""
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def ladders_needing_rating() -> list[int]:
    """Ladders with matches waiting to be rated (the periodic sweep's work list)."""
    return sorted(set(Match.objects.filter(needs_rating=True).values_list("ladder_id", flat=True)))


# -- reading matches -------------------------------------------------------------


def load_matches(ladder: Ladder, waiting_only: set[int] | None = None) -> list[MatchResult]:
    """The ladder's rated matches as engine values, in (played_on, id) order.

    `waiting_only`: just these matches, all of which wait for rating (`needs_rating`);
    they are selected by that flag and filtered here, since a query naming many
    thousands of ids costs more than reading a few rows too many. Players are named by
    user id: names change, ids do not.
    """
    matches = Match.objects.filter(ladder=ladder, state__in=RATED_STATES)
    if waiting_only is not None:
        matches = matches.filter(needs_rating=True)
    rows = [
        (pk, played_on)
        for pk, played_on in matches.order_by("played_on", "id").values_list("id", "played_on")
        if waiting_only is None or pk in waiting_only
    ]
    sides: dict[int, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    stats: dict[int, dict[str, dict[str, float]]] = defaultdict(dict)
    for match_id, user_id, side, player_stats in (
        MatchPlayer.objects.filter(match__in=matches)
        .order_by("match_id", "side", "position")
        .values_list("match_id", "user_id", "side", "stats")
    ):
        sides[match_id][0 if side == "a" else 1].append(str(user_id))
        if player_stats:
            stats[match_id][str(user_id)] = player_stats
    games: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for match_id, a, b in (
        Game.objects.filter(match__in=matches)
        .order_by("match_id", "number")
        .values_list("match_id", "a_points", "b_points")
    ):
        games[match_id].append((a, b))
    return [
        MatchResult(
            played_on=played_on,
            side_a=tuple(sides[pk][0]),
            side_b=tuple(sides[pk][1]),
            games=tuple(games[pk]),
            stats=stats.get(pk) or None,
            id=pk,
        )
        for pk, played_on in rows
    ]


def initial_states(ladder: Ladder, players: set[int] | None = None) -> dict[str, PlayerState]:
    """Each member's (or just ``players``') starting state from their self-assessment
    (RATINGS.md §4)."""
    volatility = ladder.initial_volatility
    members = Membership.objects.filter(ladder=ladder)
    if players is not None:
        members = members.filter(user_id__in=players)
    return {
        str(user_id): PlayerState(rating, rd, volatility)
        for user_id, rating, rd in members.values_list("user_id", "initial_rating", "initial_rd")
    }


def _last_rated_key(ladder: Ladder) -> Key | None:
    row = (
        RatingChange.objects.filter(ladder=ladder)
        .order_by("-played_on", "-match_id")
        .values_list("played_on", "match_id")
        .first()
    )
    return (row[0], row[1]) if row else None


def replayer_now(ladder: Ladder, players: set[int]) -> Replayer:
    """A Replayer standing where the stored ratings stand for ``players`` (user ids): their
    states and lookback windows. For questions that store nothing (points at stake)."""
    snapshot = _snapshot(ladder, _last_rated_key(ladder), players)
    return Replayer.from_snapshot(ladder.params(), ladder.scoring(), snapshot)


def _snapshot(ladder: Ladder, last: Key | None, players: set[int]) -> ReplaySnapshot:
    """The replayer's state after the last rated match, rebuilt from stored rows, for the
    ``players`` of the matches to rate: a match reads and changes only its own players'
    states and lookback windows (ratings.engine.replay), so the rest of a ladder of
    thousands need not be read. Past ``SNAPSHOT_NAMED`` players (an import, say) it reads
    the whole ladder: naming thousands of ids costs more, and SQLite limits them."""
    named = players if len(players) <= SNAPSHOT_NAMED else None
    ratings = PlayerRating.objects.filter(ladder=ladder)
    if named is not None:
        ratings = ratings.filter(user_id__in=named)
    states = {
        str(user_id): PlayerState(rating, rd, volatility, matches, last_played)
        for user_id, rating, rd, volatility, matches, last_played in ratings.values_list(
            "user_id", "rating", "rd", "volatility", "matches", "last_played"
        )
    }
    initial = {name: s for name, s in initial_states(ladder, named).items() if name not in states}
    recent: dict[str, list[tuple[date, tuple[str, ...]]]] = defaultdict(list)
    if last is not None:
        since = last[0] - timedelta(days=ladder.lookback_days)
        window = Match.objects.filter(
            ladder=ladder,
            rated_at__isnull=False,
            needs_rating=False,
            state__in=RATED_STATES,
            played_on__gte=since,
        )
        if named is not None:
            window = window.filter(players__user_id__in=named)
        by_match: dict[int, tuple[date, list[str], list[str]]] = {}
        for match_id, played_on, user_id, side in (
            MatchPlayer.objects.filter(match__in=window)
            .order_by("match__played_on", "match_id", "side", "position")
            .values_list("match_id", "match__played_on", "user_id", "side")
        ):
            _, on_a, on_b = by_match.setdefault(match_id, (played_on, [], []))
            (on_a if side == "a" else on_b).append(str(user_id))
        names = {str(user_id) for user_id in players}  # not their opponents' windows
        for played_on, side_a, side_b in by_match.values():
            for name in side_a:
                if name in names:
                    recent[name].append((played_on, tuple(side_b)))
            for name in side_b:
                if name in names:
                    recent[name].append((played_on, tuple(side_a)))
    return ReplaySnapshot(
        states=states,
        initial=initial,
        recent={name: tuple(entries) for name, entries in recent.items()},
        last=last,
    )


# -- writing ---------------------------------------------------------------------


def _replay_from(ladder: Ladder, first: Key | None) -> int:
    """Replay every rated match from scratch; rewrite change rows from `first` on (all if None)."""
    replayer = Replayer(ladder.params(), ladder.scoring(), initial_states(ladder))
    if first is None:
        RatingChange.objects.filter(ladder=ladder).delete()
    else:
        day, pk = first
        RatingChange.objects.filter(ladder=ladder).filter(
            Q(played_on__gt=day) | Q(played_on=day, match_id__gte=pk)
        ).delete()
    PlayerRating.objects.filter(ladder=ladder).delete()
    return _rate_and_store(ladder, replayer, load_matches(ladder), since=first, full=True)


def _rate_and_store(
    ladder: Ladder,
    replayer: Replayer,
    matches: Iterable[MatchResult],
    since: Key | None,
    full: bool = False,
) -> int:
    """Rate `matches` in order; store change rows for those at or after `since`, and the states.

    With `full`, the stored states are rebuilt from every match; otherwise the new
    matches' results are added to the states already stored.
    """
    wins: dict[str, int] = defaultdict(int)
    losses: dict[str, int] = defaultdict(int)
    touched: set[str] = set()
    stored = 0

    def rated() -> Iterable[tuple[MatchResult, tuple[PlayerChange, ...]]]:
        # The engine's batch path (one C pass per batch), a batch at a time so that a long
        # replay's matches and changes are never all in memory at once.
        batch: list[MatchResult] = []
        for match in matches:
            batch.append(match)
            if len(batch) == RATE_BATCH:
                yield from zip(batch, replayer.rate_all(batch), strict=True)
                batch = []
        yield from zip(batch, replayer.rate_all(batch), strict=True)

    def rows() -> Iterable[tuple[object, ...]]:
        nonlocal stored
        for match, changes in rated():
            side_a = set(match.side_a)
            for c in changes:
                if c.won:
                    wins[c.player] += 1
                else:
                    losses[c.player] += 1
                touched.add(c.player)
            if since is not None and (match.played_on, match.id) < since:
                continue
            stored += 1
            for c in changes:
                yield (
                    match.id, int(c.player), ladder.pk, match.played_on,
                    "a" if c.player in side_a else "b",
                    c.rating_before, c.rd_before, c.volatility_before,
                    c.rating_after, c.rd_after, c.volatility_after,
                    c.expected, c.outcome, c.won, c.margin_multiplier, c.floor_applied,
                    c.repetition_weight, c.diversity_ratio,
                    c.gate_open, c.performance_weight, c.rating_after - c.rating_before,
                )  # fmt: skip

    insert_rows(RatingChange, CHANGE_FIELDS, rows())
    _store_states(ladder, replayer, touched, wins, losses, add=not full)
    return stored


CHANGE_FIELDS = (
    "match", "user", "ladder", "played_on", "side",
    "rating_before", "rd_before", "volatility_before",
    "rating_after", "rd_after", "volatility_after",
    "expected", "outcome", "won", "margin_multiplier", "floor_applied",
    "repetition_weight", "diversity_ratio",
    "gate_open", "performance_weight", "change",
)  # fmt: skip


def _store_states(
    ladder: Ladder,
    replayer: Replayer,
    players: set[str],
    wins: dict[str, int],
    losses: dict[str, int],
    add: bool,
) -> None:
    if not players:
        return
    existing = {}
    if add:
        existing = {
            str(user_id): (w, lo)
            for user_id, w, lo in PlayerRating.objects.filter(
                ladder=ladder, user_id__in=[int(p) for p in players]
            ).values_list("user_id", "wins", "losses")
        }
    members = Membership.objects.filter(ladder=ladder).only("user_id", "is_public")
    if len(players) <= SNAPSHOT_NAMED:
        members = members.filter(user_id__in=[int(p) for p in players])
    membership = {str(m.user_id): m for m in members}
    standing = ladder_standing(ladder)
    rows = []
    for name in players:
        state = replayer.state(name)
        w0, l0 = existing.get(name, (0, 0))
        rows.append(
            PlayerRating(
                ladder=ladder,
                user_id=int(name),
                rating=state.rating,
                rd=state.rd,
                volatility=state.volatility,
                matches=state.matches,
                wins=w0 + wins[name],
                losses=l0 + losses[name],
                last_played=state.last_played,
                established_until=established_until(state, *standing),
                listing=listing_of(membership.get(name)),
            )
        )
    PlayerRating.objects.bulk_create(
        rows,
        batch_size=WRITE_BATCH,
        update_conflicts=True,
        unique_fields=["ladder", "user"],
        update_fields=[
            "rating",
            "rd",
            "volatility",
            "matches",
            "wins",
            "losses",
            "last_played",
            "established_until",
            "updated_at",
            "listing",
        ],
    )
