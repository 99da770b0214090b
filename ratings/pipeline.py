"""Turning confirmed matches into ratings: in (played_on, id) order, exactly once.

The database is the source of truth. A match that enters or leaves a rated state gets
`needs_rating=True` (ladder.matches); `rate_ladder` takes the ladder's lock, picks those
matches up and brings the stored ratings to what a replay of every rated match gives:

- the common case, matches newer than everything rated, continues the engine's replay
  from the stored state (current ratings plus the lookback window of recent matches);
- a late match, a correction or a void replays the ladder from scratch in memory and
  rewrites the change rows that differ from the earliest affected match on: those of the
  affected matches and of later matches of the players they reached (`_replay_from`),
  updated in place.

Either way the result equals a replay from scratch, which `recompute_ladder` performs
outright. A second worker, or a redelivered message, finds nothing left to do.
"""

from __future__ import annotations

import gc
import logging
import secrets
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import compress, repeat
from typing import Any, Literal, overload

from django.db import transaction
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q
from django.utils import timezone

from core.cache import pages_changed
from ladder.clubs.access import listing_of
from ladder.clubs.formatting import format_change, format_rating
from ladder.clubs.models import Ladder, Membership
from ladder.matches.models import AuditEntry, Game, Match, MatchPlayer, Notification
from ratings.bulk import IdBatch, id_batches, insert_rows, upsert_rows
from ratings.engine import MatchResult, PlayerState, Replayer, ReplaySnapshot
from ratings.engine.ranked import established_until
from ratings.engine.replay import Changes, History, MatchRow, encode_rows
from ratings.leaderboards import warm_board
from ratings.models import PlayerRating, RatingChange, ladder_standing, rating_params

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
    written: int = 0  # change rows written (a replay leaves the rows that stay right)


def rate_ladder(ladder_id: int, from_scratch: bool = False) -> RateResult:
    """Bring a ladder's ratings up to date with its matches; safe to call any number of times.

    `from_scratch`: replay every match, whatever waits (`recompute_ladder`)."""
    with transaction.atomic():
        # One rating run per ladder at a time: the ladder row is the lock (PostgreSQL row
        # lock; SQLite serialises writers anyway).
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        pending = list(
            Match.objects.select_for_update()
            .filter(ladder=ladder, needs_rating=True)
            .order_by("played_on", "id")
            .values_list("id", "played_on", "state", _was_rated())
        )
        # A match that never was rated and is not rated now (say, disputed then voided)
        # changes nothing; only the others decide where the replay starts.
        affecting = [
            (played_on, pk, state, was_rated)
            for pk, played_on, state, was_rated in pending
            if state in RATED_STATES or was_rated
        ]
        result = RateResult(rated=0)
        if affecting or from_scratch:
            result = _rate_affecting(ladder, affecting, from_scratch)
        now = timezone.now()
        # Exactly the rows claimed above: a match confirmed meanwhile keeps its flag.
        rated = [pk for pk, _, state, _ in pending if state in RATED_STATES]
        unrated = [pk for pk, _, state, _ in pending if state not in RATED_STATES]
        first_time = [pk for pk, _, state, was in pending if state in RATED_STATES and not was]
        for chunk in id_batches(first_time):
            _tell_new_ratings(ladder, chunk)
        for chunk in id_batches(rated):
            Match.objects.filter(pk__in=chunk).update(needs_rating=False, rated_at=now)
        for chunk in id_batches(unrated):
            Match.objects.filter(pk__in=chunk).update(needs_rating=False, rated_at=None)
        if from_scratch:  # the replay counted every settled match: their marks say so too
            settled = Match.objects.filter(ladder=ladder, needs_rating=False)
            settled.filter(state__in=RATED_STATES, rated_at__isnull=True).update(rated_at=now)
            settled.exclude(state__in=RATED_STATES).exclude(rated_at=None).update(rated_at=None)
        if affecting or from_scratch:
            ladder.board_version = bump_board(ladder.pk)
            warm_board(ladder)
    log.info(
        "ladder %s: rated %s match(es), replayed from %s, %s change row(s) written",
        ladder.slug,
        result.rated,
        result.replayed_from,
        result.written,
    )
    return result


def _rate_affecting(
    ladder: Ladder, affecting: list[tuple[date, int, str, bool]], from_scratch: bool
) -> RateResult:
    """Rate the ladder given the claimed matches that change something: continue from the
    stored state when they are all new and later than everything rated, else replay (from
    the first of them, or with `from_scratch` from the start)."""
    changed = [pk for _, pk, _, _ in affecting]
    if from_scratch:
        with _gc_paused():
            rated, written = _replay_from(ladder, None, changed)
        return RateResult(rated=rated, written=written)
    last = _last_rated_key(ladder)
    first: Key = min((played_on, pk) for played_on, pk, _, _ in affecting)
    only_new = all(state in RATED_STATES and not was for _, _, state, was in affecting)
    with _gc_paused():
        if only_new and (last is None or first > last):
            new = load_matches(ladder, {pk for _, pk, _, _ in affecting}, encoded=True)
            players = {int(name) for name in new.names}
            replayer = Replayer.from_snapshot(
                rating_params(ladder), ladder.scoring(), _snapshot(ladder, last, players)
            )
            rated, written = _rate_and_store(ladder, replayer, new, since=None)
            return RateResult(rated=rated, written=written)
        # A correction may have moved a match later: its stored rows say where it stood.
        redo = [pk for _, pk, _, was in affecting if was]
        if len(redo) <= SNAPSHOT_NAMED:
            first = min(first, _first_stored_key(ladder, redo) or first)
        else:  # a ladder marked whole (new settings): from its first rated match
            first = min(first, _first_stored_key(ladder, None) or first)
        rated, written = _replay_from(ladder, first, changed)
        return RateResult(rated=rated, replayed_from=first, written=written)


def _tell_new_ratings(ladder: Ladder, match_ids: IdBatch) -> None:
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
            text=f"{ladder.name}: {rating_news(c.rating_before, c.rating_after, c.won, c.played_on)}",
        )
        for c in changes
    )


def rating_news(before: float, after: float, won: bool, played_on: date) -> str:
    """What a match did to a player's rating, in words: "your rating went from 4.97 to 5.02
    (+0.05) after your win of 3 Nov", or, when the change is too small to show, that it
    stayed and why (never "went from 4.97 to 4.97")."""
    result = f"your {'win' if won else 'loss'} of {played_on.day} {played_on:%b}"
    shown_before, shown_after = format_rating(before), format_rating(after)
    if shown_before == shown_after:
        return (
            f"your rating stayed at {shown_after} after {result}: the ratings expected that "
            "result, so it moved by less than 0.01."
        )
    change = format_change(after - before, after)
    return f"your rating went from {shown_before} to {shown_after} ({change}) after {result}."


def recompute_ladder(ladder_id: int) -> int:
    """Replay a ladder from scratch and store the result; running it twice changes nothing."""
    return rate_ladder(ladder_id, from_scratch=True).rated


def bump_board(*ladder_ids: int) -> int:
    """What these ladders' leaderboards show changed: cached pages of them are stale.

    Returns the new ``board_version``: a random number rather than the next one, so that
    a version given in a transaction that rolls back is never given again."""
    version = secrets.randbits(62)
    Ladder.objects.filter(pk__in=ladder_ids).update(board_version=version)
    pages_changed()
    return version


# Matches rated per call of the engine's columnar replay when storing a run's changes: each
# call hands every player's state back and forth (at 4,096 a call, that took four times the
# rating of 200,000 matches among 10,000 players), and a batch's changes stay in memory.
RATE_BATCH = 65536


def ladders_needing_rating() -> list[int]:
    """Ladders with matches waiting to be rated (the periodic sweep's work list)."""
    return sorted(set(Match.objects.filter(needs_rating=True).values_list("ladder_id", flat=True)))


# -- reading matches -------------------------------------------------------------


@overload
def load_matches(
    ladder: Ladder,
    waiting_only: set[int] | None = None,
    claimed: set[int] | None = None,
    encoded: Literal[False] = False,
) -> list[MatchResult]: ...


@overload
def load_matches(
    ladder: Ladder,
    waiting_only: set[int] | None = None,
    claimed: set[int] | None = None,
    *,
    encoded: Literal[True],
) -> History: ...


def load_matches(
    ladder: Ladder,
    waiting_only: set[int] | None = None,
    claimed: set[int] | None = None,
    encoded: bool = False,
) -> list[MatchResult] | History:
    """The ladder's rated matches as engine values, in (played_on, id) order; with
    `encoded`, as one History in columns (what the rating runs rate: no object per match).

    `waiting_only`: just these matches, all of which wait for rating (`needs_rating`);
    they are selected by that flag and filtered here, since a query naming many
    thousands of ids costs more than reading a few rows too many. Players are named by
    user id: names change, ids do not.

    `claimed` (a run's replay): the waiting matches the run claimed. A match confirmed
    since, never rated, is left to the run its confirmation sets off: counted in the states
    this run stores, it would be counted again by that run if this one wrote no rows for
    it (`_replay_from` writes only the rows it changes).
    """
    rows = _match_rows(ladder, waiting_only, claimed)
    if encoded:
        return encode_rows(rows)
    return [
        MatchResult(played_on, side_a, side_b, games, stats, pk)
        for played_on, side_a, side_b, games, pk, stats in rows
    ]


def _match_rows(
    ladder: Ladder, waiting_only: set[int] | None, claimed: set[int] | None
) -> list[MatchRow]:
    """`load_matches` as plain rows (`MatchRow`), straight from the queries."""
    matches = Match.objects.filter(ladder=ladder, state__in=RATED_STATES)
    if waiting_only is not None:
        matches = matches.filter(needs_rating=True)
    keys = [
        (pk, played_on)
        for pk, played_on, waiting, rated in matches.order_by("played_on", "id").values_list(
            "id", "played_on", "needs_rating", _was_rated()
        )
        if (waiting_only is None or pk in waiting_only)
        and (claimed is None or not waiting or rated or pk in claimed)
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
        (
            played_on,
            tuple(sides[pk][0]),
            tuple(sides[pk][1]),
            tuple(games[pk]),
            pk,
            stats.get(pk) or None,
        )
        for pk, played_on in keys
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


def _was_rated() -> ExpressionWrapper[Q]:
    """Whether a match was rated (`rated_at` set), as a column: runs ask only that, and
    reading 200,000 timestamps to ask it took a second."""
    return ExpressionWrapper(Q(rated_at__isnull=False), output_field=BooleanField())


def _first_stored_key(ladder: Ladder, match_ids: list[int] | None) -> Key | None:
    """The earliest (played_on, match) of these matches' stored change rows (of any, with
    None): where a match whose date a correction moved later stood before."""
    rows = RatingChange.objects.filter(ladder=ladder).order_by("played_on", "match_id")
    chunks = (
        [rows]
        if match_ids is None
        else [rows.filter(match_id__in=c) for c in id_batches(match_ids)]
    )
    keys = [key for chunk in chunks for key in chunk.values_list("played_on", "match_id")[:1]]
    return min(keys, default=None)


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
    return Replayer.from_snapshot(rating_params(ladder), ladder.scoring(), snapshot)


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
        # date.min for a match dated before the window could start (written before the
        # 1900 rule of ladder.matches.validation.EARLIEST_MATCH): the whole history, no 500.
        since = max(last[0], date.min + timedelta(days=ladder.lookback_days)) - timedelta(
            days=ladder.lookback_days
        )
        # The window's players in one query whose every condition is on the match itself
        # (the ladder and date index leads), ordered here rather than in SQL: an ORDER BY
        # on the match's date once led PostgreSQL, on stale estimates, to walk every
        # ladder's matches newest first (minutes on a test's 230 matches).
        rows = MatchPlayer.objects.filter(
            match__ladder=ladder,
            match__rated_at__isnull=False,
            match__needs_rating=False,
            match__state__in=RATED_STATES,
            match__played_on__gte=since,
        )
        if named is not None:
            rows = rows.filter(
                Exists(MatchPlayer.objects.filter(match_id=OuterRef("match_id"), user_id__in=named))
            )
        by_match: dict[int, tuple[date, list[str], list[str]]] = {}
        for played_on, match_id, side, _position, user_id in sorted(
            rows.order_by().values_list(
                "match__played_on", "match_id", "side", "position", "user_id"
            )
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


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection during a run: it builds and drops millions of small
    objects (matches, changes, rows), none of them in a cycle, and the collector's passes
    over them took half the time of reading a large ladder's matches."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _replay_from(ladder: Ladder, first: Key | None, changed: list[int]) -> tuple[int, int]:
    """Replay every rated match from scratch; bring the stored change rows from `first` on
    (all if None) and the states to what it gives. Returns the matches re-rated from `first`
    and the change rows written.

    `changed`: the matches whose rating changed (late, corrected, voided: all at or after
    `first`); their stored rows go first. A match's rating depends only on its own players'
    states and lookback windows (ratings.engine.replay), and the stored rows are a replay of
    the matches as they were: so only the rows of the changed matches, and of later matches
    of a player they reached (directly or through opponents), can differ, and only those are
    written. With many changed matches (new settings mark them all), or from the start
    (`recompute_ladder`), every row from `first` is written where it differs.
    """
    reached: set[str] | None = None
    if first is not None and len(changed) <= SNAPSHOT_NAMED:
        # A voided match's players are reached from its place on, as a played one's are.
        reached = set()
        for ids in id_batches(changed):
            old_rows = RatingChange.objects.filter(ladder=ladder, match_id__in=ids)
            reached.update(str(pk) for pk in old_rows.values_list("user_id", flat=True))
            old_rows.delete()
    replayer = Replayer(rating_params(ladder), ladder.scoring(), initial_states(ladder))
    history = load_matches(ladder, claimed=set(changed), encoded=True)
    result = _rate_and_store(
        ladder, replayer, history, since=first, full=True, reached=reached, changed=set(changed)
    )
    if reached is None:  # rows of matches no longer rated (voided), in one statement
        old_rows = RatingChange.objects.filter(ladder=ladder)
        if first is not None:
            old_rows = old_rows.filter(_from_key(first))
        played = MatchPlayer.objects.filter(
            match=OuterRef("match"), user=OuterRef("user"), match__state__in=RATED_STATES
        )
        old_rows.exclude(Exists(played)).delete()
    return result


def _from_key(key: Key) -> Q:
    """Change rows from a (played_on, match) key on, in the order matches are rated."""
    day, pk = key
    return Q(played_on__gt=day) | Q(played_on=day, match_id__gte=pk)


def _rate_and_store(
    ladder: Ladder,
    replayer: Replayer,
    history: History,
    since: Key | None,
    full: bool = False,
    reached: set[str] | None = None,
    changed: set[int] | None = None,
) -> tuple[int, int]:
    """Rate the `history` in order; store change rows for matches at or after `since`, and
    the states. Returns the matches from `since` on and the change rows written.

    With `full` (a replay from scratch), the states are rebuilt from every match, and the
    rows take the place of the stored rows of the same match and player (where they differ):
    with `reached` (players the `changed` matches reached, see `_replay_from`) only the rows
    of the changed matches and of those reached are written, otherwise every row from
    `since` on. Without `full` the matches are new: their rows are added, and their results
    to the states stored.

    The changes stay in the engine's columns (`Changes`) and the rows are written from them:
    no PlayerChange is built.
    """
    names = history.names
    n = len(history)
    ordinals, ids = history.column("ordinal"), history.column("id")
    start = 0
    if since is not None:
        start = bisect_left(range(n), since, key=lambda j: (date.fromordinal(ordinals[j]), ids[j]))
    flags: bytearray | None = None  # by player number: reached
    if reached is not None:
        flags = bytearray(len(names))
        for k, name in enumerate(names):
            if name in reached:
                flags[k] = 1
    played: Counter[int] = Counter()
    wins: Counter[int] = Counter()
    written = 0
    for lo in range(0, n, RATE_BATCH):
        hi = min(n, lo + RATE_BATCH)
        # One C pass per batch; a batch at a time, so that a long replay's changes are
        # never all in memory at once.
        changes = replayer.rate_history(history, lo, hi)
        who = changes.column("player")
        played.update(who)
        wins.update(compress(who, changes.column("won")))
        take: Sequence[int] = range(max(lo, start), hi)
        if flags is not None:
            take = _reached_matches(history, take, flags, changed or set())
        if not take:
            continue
        rows = _change_rows(ladder, history, changes, lo, take)
        if full:  # in place of the stored rows of the same match and player, if any
            written += upsert_rows(RatingChange, CHANGE_FIELDS, rows, unique=("match", "user"))
        else:
            written += insert_rows(RatingChange, CHANGE_FIELDS, rows)
    _store_states(
        ladder,
        replayer,
        {names[p] for p in played},
        {names[p]: wins[p] for p in played},
        {names[p]: count - wins[p] for p, count in played.items()},
        add=not full,
    )
    return n - start, written


def _reached_matches(
    history: History, take: Sequence[int], flags: bytearray, changed: set[int]
) -> list[int]:
    """The matches of `take` whose rows can differ: the `changed` ones and those of a player
    reached (`flags`, by number in the history), who then reach their opponents; in order."""
    ids, first, players = history.column("id"), history.column("first"), history.column("players")
    n_a, n_b = history.column("n_a"), history.column("n_b")
    out = []
    for j in take:
        at = first[j]
        who = players[at : at + n_a[j] + n_b[j]]
        if ids[j] in changed or any(flags[p] for p in who):
            for p in who:
                flags[p] = 1
            out.append(j)
    return out


_BOOL_COLUMNS = frozenset({"won", "floor_applied", "gate_open"})


def _change_rows(
    ladder: Ladder, history: History, changes: Changes, lo: int, take: Sequence[int]
) -> Iterator[tuple[object, ...]]:
    """The change rows (in CHANGE_FIELDS order) of the history's matches `take`, from the
    columns of `changes` (those of its matches from `lo` on)."""
    ordinals, ids = history.column("ordinal"), history.column("id")
    n_a, n_b = history.column("n_a"), history.column("n_b")
    starts, who = changes.column("first"), changes.column("player")
    at = [k for j in take for k in range(starts[j - lo], starts[j - lo + 1])]
    everything = len(at) == len(who)
    days: dict[int, date] = {}
    match_ids = [ids[j] for j in take for _ in range(n_a[j] + n_b[j])]
    played_on = [
        days.get(ordinals[j]) or days.setdefault(ordinals[j], date.fromordinal(ordinals[j]))
        for j in take
        for _ in range(n_a[j] + n_b[j])
    ]
    sides = [side for j in take for side in ("a",) * n_a[j] + ("b",) * n_b[j]]
    user_of = [int(name) for name in history.names]
    users = [user_of[who[k]] for k in at]
    columns: list[list[Any]] = []
    for name in CHANGE_FIELDS[5:-1]:  # rating_before … performance_weight, as in PlayerChange
        column: memoryview[Any] = changes.column(name)
        if name in _BOOL_COLUMNS:
            column = column.cast("?")
        columns.append(column.tolist() if everything else [column[k] for k in at])
    before, after = columns[0], columns[3]
    change = [a - b for a, b in zip(after, before, strict=True)]
    return zip(match_ids, users, repeat(ladder.pk), played_on, sides, *columns, change)


CHANGE_FIELDS = (
    "match", "user", "ladder", "played_on", "side",
    "rating_before", "rd_before", "volatility_before",
    "rating_after", "rd_after", "volatility_after",
    "expected", "outcome", "won", "margin_multiplier", "floor_applied",
    "repetition_weight", "diversity_ratio",
    "gate_open", "performance_weight", "change",
)  # fmt: skip


STATE_FIELDS = (
    "rating", "rd", "volatility", "matches", "wins", "losses",
    "last_played", "established_until", "listing",
)  # fmt: skip


def _store_states(
    ladder: Ladder,
    replayer: Replayer,
    players: set[str],
    wins: dict[str, int],
    losses: dict[str, int],
    add: bool,
) -> None:
    """Store the states of `players` (user ids). With `add`, their wins and losses add to
    those stored; otherwise (a replay from scratch) the ladder's stored rows become exactly
    these players', written where they differ, deleted for anyone else."""
    if add and not players:
        return
    stored_rows = PlayerRating.objects.filter(ladder=ladder)
    if add:
        stored_rows = stored_rows.filter(user_id__in=[int(p) for p in players])
    existing = {str(row[1]): row for row in stored_rows.values_list("pk", "user_id", *STATE_FIELDS)}
    members = (
        Membership.objects.filter(ladder=ladder)
        .select_related("user")
        .only("user_id", "is_public", "banned_at", "user__is_active")
    )
    if len(players) <= SNAPSHOT_NAMED:
        members = members.filter(user_id__in=[int(p) for p in players])
    membership = {str(m.user_id): m for m in members}
    standing = ladder_standing(ladder)
    at_wins = 2 + STATE_FIELDS.index("wins")
    rows = []
    for name in players:
        state = replayer.state(name)
        was = existing.pop(name, None)
        w0, l0 = was[at_wins : at_wins + 2] if add and was is not None else (0, 0)
        values = (
            state.rating,
            state.rd,
            state.volatility,
            state.matches,
            w0 + wins[name],
            l0 + losses[name],
            state.last_played,
            established_until(state, *standing),
            listing_of(membership.get(name)),
        )
        if was is None or was[2:] != values:
            rows.append(
                PlayerRating(
                    ladder=ladder, user_id=int(name), **dict(zip(STATE_FIELDS, values, strict=True))
                )
            )
    if not add:  # players with no rated match left (a void took their only one)
        for chunk in id_batches([was[0] for was in existing.values()]):
            PlayerRating.objects.filter(pk__in=chunk).delete()
    PlayerRating.objects.bulk_create(
        rows,
        batch_size=WRITE_BATCH,
        update_conflicts=True,
        unique_fields=["ladder", "user"],
        update_fields=[*STATE_FIELDS, "updated_at"],
    )
