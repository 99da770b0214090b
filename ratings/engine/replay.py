"""Replaying a match history (RATINGS.md §3 order): the one code path for the site, imports and evaluation.

A `Replayer` owns everything the rules need beyond one match: each player's current
state and, for the lookback window, which opponents they met when. The window is
kept incrementally (a deque of recent matches and a count per opponent for each
player, pruned as time moves forward), so rating a match never rescans a history.

Window rule (§3 steps 4 and 7): an earlier match counts when it was played at most
`lookback_days` days before this one, both ends included: with the default 90, a
match played 90 days earlier still counts and one played 91 days earlier does not.

What a `PlayerChange` reports: `rd_before` is the RD the update started from, i.e.
after the inactivity growth of §3 step 1 (the previous `rd_after` is the RD before that
growth). `expected` is E against the composite opponent (composite_opponent,
performance_weighted), of the side's composite (composite_team), the mean E over the
opponents (individual), or Glicko-1's E (glicko1_team). `repetition_weight` is the
weight the update used: the mean over opponents, for composite_team the side's mean.
glicko1_team has no repetition weight or diversity gate: `repetition_weight` is 1 and
`gate_open` True; the diversity ratio is still reported.

Every match, singles or teams, is rated by the C module `_native`
(ratings/engine/_native.c, built by `pip install -e .`): its `Replay` runs steps 1, 4 and
7 (inactivity, repetition weights, the diversity gate) and the kernel of every team
method, the one implementation of the update. `rate` is `rate_all` of one match. The
Replayer's own state stays the truth: the C side loads each player it meets from here,
and writes the players back before anything else can look at them. A match the C side
does not take as given (an error, sides given as lists) comes back here: `_plain`
raises its error, or returns it in plain form for the C side to rate. A readable model
of the rules, used only by the tests to check this one, is tests/ratings/engine/reference.py.

Columns, for long replays and replays of the same history again (the lab's tune): `encode`
turns a history into columns once (`History`: days, ids, players and score lines as
numbers); `Replayer.rate_history` and `predict_rate_history` rate it in the same C pass
around the same kernel, reading no Python object per match, and return the changes in
columns (`Changes`; `changes[i]` builds match i's PlayerChange when asked for). Each
distinct score line is validated once per run. The results, errors and state left behind
are `rate_all`'s over the same matches.
"""

from __future__ import annotations

import math
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import date
from itertools import islice
from types import MappingProxyType, MemberDescriptorType
from typing import Any

from ratings.engine import _native
from ratings.engine import predict as _predict
from ratings.engine.formats import ScoringFormat
from ratings.engine.initial import default_state
from ratings.engine.outcome import Outcome, match_outcome
from ratings.engine.scales import GLICKO2_SCALE, rd_ceiling
from ratings.engine.settings import validate_params
from ratings.engine.teams import native_rules, performance_weights
from ratings.engine.types import (
    NEWCOMER_SAMPLE,
    EngineError,
    MatchResult,
    Params,
    PlayerChange,
    PlayerState,
)

# Distinct score lines in a ladder are few (badminton: a few thousand), so the
# outcome of each is computed once; the cache is emptied if it ever grows past this.
OUTCOME_CACHE_SIZE = 65536
# The interface version of _native.c this module speaks.
NATIVE_API_VERSION = 8
# The most players a side the C replay takes (MAX_SIDE in _native.c); a ladder allows 5.
MAX_SIDE = 16
# rate_all reads an iterator (not a list or tuple) in pieces of this many matches.
NATIVE_CHUNK = 65536
# Ordinals differ by less than this, so a longer lookback is the same as this one.
_LOOKBACK_CAP = 1 << 40
_MATCH_FIELDS = ("played_on", "side_a", "side_b", "games", "id", "stats")
# A score line's outcome as the columnar run reads it: (s_a, s_b, m, a_won); a_won is this
# for a line that fails validation (the run stops at the first match that has it).
_INVALID_LINE = (0.0, 0.0, 0.0, -1.0)

#: A match as a plain row (`encode_rows`), in this order: played_on, side_a, side_b, games,
#: id, stats (the fields of `MatchResult` but for its source line).
MatchRow = tuple[
    date,
    tuple[str, ...],
    tuple[str, ...],
    tuple[tuple[int, int], ...],
    int | None,
    Mapping[str, Mapping[str, float]] | None,
]

#: A history in columns (`encode`): per match a day, an id, the players as numbers into
#: `names` and the score line as a number into `lines`; `len`, `row(i)`, `stats`.
History = _native.History
#: What `Replayer.rate_history` did: `changes[i]` is match i's tuple of PlayerChange, built
#: when asked for; `column(name)` one field of every change in plain numbers.
Changes = _native.Changes

if getattr(_native, "API_VERSION", None) != NATIVE_API_VERSION:
    raise ImportError(
        f"ratings.engine._native speaks API {getattr(_native, 'API_VERSION', None)}, "
        f"replay.py {NATIVE_API_VERSION}: a stale build; run pip install -e ."
    )


# A score line's outcome as Replayer caches it: (s_a, m, a_won, s_b, the Outcome); the
# plain values for the C module, which hands these very float objects out in PlayerChange.
_CachedOutcome = tuple[float, float, bool, float, Outcome]


@dataclass(frozen=True, slots=True)
class ReplaySnapshot:
    """Everything a Replayer needs to continue: states and the lookback window.

    `recent` holds, per player, the (date, opponents) of their matches still inside the
    window; `last` is the (played_on, id) of the last rated match.
    """

    states: Mapping[str, PlayerState]  # players who have played a rated match
    initial: Mapping[str, PlayerState]  # given starting states of players who have not yet
    recent: Mapping[str, tuple[tuple[date, tuple[str, ...]], ...]]
    last: tuple[date, int | None] | None
    # recent_newcomers: the last players to join, oldest first (their mean is the next start)
    joined: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[object, ...]:
        # Read-only mappings do not pickle; rebuild them from plain dicts.
        plain = (dict(self.states), dict(self.initial), dict(self.recent), self.last, self.joined)
        return _readonly_snapshot, plain


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """Final states, and the changes of each match in the order the matches were rated."""

    states: Mapping[str, PlayerState]
    matches: tuple[MatchResult, ...]
    changes: tuple[tuple[PlayerChange, ...], ...]

    def __reduce__(self) -> tuple[object, ...]:
        return _readonly_result, (dict(self.states), self.matches, self.changes)


def _readonly_snapshot(
    states: dict[str, PlayerState],
    initial: dict[str, PlayerState],
    recent: dict[str, tuple[tuple[date, tuple[str, ...]], ...]],
    last: tuple[date, int | None] | None,
    joined: tuple[str, ...] = (),
) -> ReplaySnapshot:
    return ReplaySnapshot(
        MappingProxyType(states), MappingProxyType(initial), MappingProxyType(recent), last, joined
    )


def _readonly_result(
    states: dict[str, PlayerState],
    matches: tuple[MatchResult, ...],
    changes: tuple[tuple[PlayerChange, ...], ...],
) -> ReplayResult:
    return ReplayResult(MappingProxyType(states), matches, changes)


def _slots_of(cls: type[PlayerChange]) -> list[MemberDescriptorType] | None:
    """The slot descriptors of a plain frozen, slotted dataclass, in field order; else None.

    A frozen dataclass's __init__ pays for `object.__setattr__` on each field; the C side
    fills the slots directly instead (the same object: same type, fields, equality).
    """
    slots = [cls.__dict__.get(f.name) for f in fields(cls)]
    if hasattr(cls, "__post_init__") or not all(
        isinstance(slot, MemberDescriptorType) for slot in slots
    ):
        return None
    return slots  # type: ignore[return-value]


_CHANGE_FIELDS = tuple(f.name for f in fields(PlayerChange))
# The C side fills PlayerChange's slots directly when it is a plain slotted dataclass.
_FAST_CHANGE = _slots_of(PlayerChange) is not None


class _Player:
    """A player's live state inside a Replayer (mutable, private; the API hands out PlayerState)."""

    __slots__ = ("rating", "rd", "volatility", "matches", "last", "recent", "counts", "slots")

    def __init__(self, state: PlayerState) -> None:
        self.rating = state.rating
        self.rd = state.rd
        self.volatility = state.volatility
        self.matches = state.matches
        self.last: int | None = None if state.last_played is None else state.last_played.toordinal()
        # (ordinal, opponents) of matches inside the window, oldest first
        self.recent: deque[tuple[int, tuple[str, ...]]] = deque()
        self.counts: dict[str, int] = {}  # opponent -> matches against them inside the window
        self.slots = 0  # opponent slots inside the window

    def state(self) -> PlayerState:
        last = None if self.last is None else date.fromordinal(self.last)
        return PlayerState(self.rating, self.rd, self.volatility, self.matches, last)


class Replayer:
    """Rates matches one by one in (played_on, id) order and answers predictions in between."""

    def __init__(
        self,
        params: Params,
        scoring_format: ScoringFormat,
        initial_states: Mapping[str, PlayerState] | None = None,
    ) -> None:
        validate_params(params)
        self.params = params
        self.scoring_format = scoring_format
        self._initial: dict[str, PlayerState] = dict(initial_states or {})
        self._default = default_state(params)
        # newcomer_start recent_newcomers (§4): the last players to join, oldest first
        self._joined: list[str] | None = None
        if params.newcomer_start == "recent_newcomers":
            self._joined = []
        self._engine: Any = None  # the C working copy while one runs (its ratings are newer)
        self._players: dict[str, _Player] = {}
        self._last_ordinal = 0  # date.min has ordinal 1: any date can come first
        self._last_id: int | None = None
        # games -> _CachedOutcome
        self._outcomes: dict[tuple[tuple[int, int], ...], _CachedOutcome] = {}
        # (history, its number of score lines, their outcomes for run_history)
        self._line_outcomes: tuple[History, int, array[float]] | None = None
        self._phi_max = rd_ceiling(params) / GLICKO2_SCALE
        native_rules(params)  # refuses an unknown team method or composite_rd now

    # -- reading -----------------------------------------------------------------

    def state(self, player: str) -> PlayerState:
        """The player's current state (not inflated); a new player's starting state."""
        p = self._players.get(player)
        if p is not None:
            return p.state()
        return self._initial.get(player) or self._newcomer_state()

    def _newcomer_state(self) -> PlayerState:
        """§4: where a player without a given starting state would start now.

        recent_newcomers: at the mean current rating of the last NEWCOMER_SAMPLE players to
        join who have played since (the ladder's initial rating until someone has).
        """
        if not self._joined:
            return self._default
        ratings: list[float] = []
        for name in reversed(self._joined):
            now = None if self._engine is None else self._engine.current(name)
            if now is None:
                state = self.state(name)
                now = (state.rating, state.matches)
            if now[1]:
                ratings.append(now[0])
                if len(ratings) == NEWCOMER_SAMPLE:
                    break
        if not ratings:
            return self._default
        return replace(self._default, rating=math.fsum(ratings) / len(ratings))

    @property
    def states(self) -> Mapping[str, PlayerState]:
        """Current states of every player who has played a rated match here."""
        return MappingProxyType({name: p.state() for name, p in self._players.items()})

    def predict(self, side_a: Sequence[str], side_b: Sequence[str], on: date) -> float:
        """§6: probability that side A beats side B on `on` (RDs grown for inactivity to then)."""
        return _predict.win_probability(
            [self.state(n) for n in side_a], [self.state(n) for n in side_b], self.params, on
        )

    def quality(self, side_a: Sequence[str], side_b: Sequence[str], on: date) -> float:
        """§6 match quality Q in (0, 1]."""
        return _predict.match_quality(
            [self.state(n) for n in side_a], [self.state(n) for n in side_b], self.params, on
        )

    def stakes(
        self, side_a: Sequence[str], side_b: Sequence[str], on: date
    ) -> dict[str, tuple[PlayerChange, ...]]:
        """§6 points at stake: what each plausible result would do, nothing stored.

        Keys "a_narrow", "a_clear", "b_narrow", "b_clear": side A (or B) winning every game
        by the narrowest margin the format allows, or by `margin_clamp` or more (where the
        margin counts fully). Each value is the changes `rate` would return for a match on
        `on`, run on copies of the players' current states and lookback windows.
        """
        fmt = self.scoring_format
        results = self.stake_games()
        names = (*side_a, *side_b)
        out = {}
        for label, games in results.items():
            trial = Replayer(self.params, fmt, {n: self.state(n) for n in names})
            for n in names:
                p = self._players.get(n)
                if p is not None:
                    copy = trial._player(n)
                    copy.recent, copy.counts, copy.slots = deque(p.recent), dict(p.counts), p.slots
            out[label] = trial.rate(MatchResult(on, tuple(side_a), tuple(side_b), games))
        return out

    def stake_games(self) -> dict[str, tuple[tuple[int, int], ...]]:
        """The plausible results `stakes` plays out, as games from side A's view, by key."""
        fmt = self.scoring_format
        ppg = fmt.points_per_game
        clear_loser = ppg - max(1, math.ceil(self.params.margin_clamp * ppg))
        results = {
            "a_narrow": fmt.straight_win(ppg - 1),
            "a_clear": fmt.straight_win(clear_loser),
        }
        results["b_narrow"] = tuple((b, a) for a, b in results["a_narrow"])
        results["b_clear"] = tuple((b, a) for a, b in results["a_clear"])
        return results

    # -- snapshots ---------------------------------------------------------------

    def snapshot(self) -> ReplaySnapshot:
        """An immutable picture to continue from later (`from_snapshot`)."""
        states: dict[str, PlayerState] = {}
        recent: dict[str, tuple[tuple[date, tuple[str, ...]], ...]] = {}
        lookback = self.params.lookback_days
        for name, p in self._players.items():
            states[name] = p.state()
            kept = tuple(
                (date.fromordinal(d), tuple(opps))  # a side given as a list is kept as given
                for d, opps in p.recent
                if self._last_ordinal - d <= lookback
            )
            if kept:
                recent[name] = kept
        initial = {n: s for n, s in self._initial.items() if n not in self._players}
        last = None
        if self._last_ordinal:
            last = (date.fromordinal(self._last_ordinal), self._last_id)
        return ReplaySnapshot(
            MappingProxyType(states),
            MappingProxyType(initial),
            MappingProxyType(recent),
            last,
            tuple(self._joined or ()),
        )

    @classmethod
    def from_snapshot(
        cls, params: Params, scoring_format: ScoringFormat, snapshot: ReplaySnapshot
    ) -> Replayer:
        """A Replayer that continues exactly where the one that took `snapshot` stood."""
        replayer = cls(params, scoring_format, snapshot.initial)
        for name, state in snapshot.states.items():
            replayer._players[name] = _Player(state)
        for name, entries in snapshot.recent.items():
            p = replayer._player(name)
            for day, opps in entries:
                p.recent.append((day.toordinal(), tuple(opps)))
                for o in opps:
                    p.counts[o] = p.counts.get(o, 0) + 1
                p.slots += len(opps)
        if replayer._joined is not None:
            replayer._joined.extend(snapshot.joined)
        if snapshot.last is not None:
            replayer._last_ordinal = snapshot.last[0].toordinal()
            replayer._last_id = snapshot.last[1]
        return replayer

    # -- rating ------------------------------------------------------------------

    def rate_all(self, matches: Iterable[MatchResult]) -> list[tuple[PlayerChange, ...]]:
        """Rate matches in the order given (they must be in (played_on, id) order).

        The same as `[self.rate(m) for m in matches]`, results, errors and the state left
        behind included, in one pass of the C replay.
        """
        return self._rate_all_native(matches)

    def predict_rate_all(
        self, matches: Iterable[MatchResult]
    ) -> tuple[list[float], list[tuple[PlayerChange, ...]]]:
        """For each match in order: side A's §6 win probability on its date, then rate it.

        The same as `predict(m.side_a, m.side_b, m.played_on)` then `rate(m)` for each
        match (RATINGS.md §7's protocol: nothing is fitted on a match before it was
        predicted).
        """
        probs: list[float] = []
        todo = matches if isinstance(matches, list | tuple) else list(matches)
        return probs, self._rate_all_native(todo, probs)

    def rate_history(self, history: History, start: int = 0, stop: int | None = None) -> Changes:
        """Rate matches start..stop of an encoded history (`encode`) in order.

        The same as `rate_all` of those matches (results, errors and the state left
        behind), but no Python object is read or built per match: the changes come back
        in columns (`Changes`), and `changes[i]` builds match i's PlayerChange when asked.
        """
        changes = self._new_changes(history)
        self._run_history(history, start, stop, changes, None)
        return changes

    def predict_rate_history(
        self, history: History, start: int = 0, stop: int | None = None
    ) -> tuple[list[float], Changes]:
        """`predict_rate_all` over matches start..stop of an encoded history."""
        probs: list[float] = []
        changes = self._new_changes(history)
        self._run_history(history, start, stop, changes, probs)
        return probs, changes

    def rate(self, match: MatchResult) -> tuple[PlayerChange, ...]:
        """Rate one match; side A's players first, then side B's.

        Raises EngineError for an invalid match, or one dated before the last rated match
        (or on the same day with a smaller or equal id): replay from that date instead.
        """
        return self._rate_all_native((match,))[0]

    def _native_engine(self) -> Any:
        """A C working copy of this replayer for one rate_all call (see _native.c)."""
        params = self.params
        # Replay_init: the window and inactivity rules, the kernel's (teams.native_rules), then
        # the season starts' part of inactivity.
        constants = (
            min(params.lookback_days, _LOOKBACK_CAP),
            params.repetition_alpha,
            params.diversity_threshold,
            min(params.rating_period_days, _LOOKBACK_CAP),
            self._phi_max,
            native_rules(params),
            params.season_start_periods,
            _predict.ordinals(params.season_starts),
        )
        return _native.Replay(
            constants=constants,
            player=self._player,
            outcomes=self._outcomes,
            outcome=self._outcome,
            performance=self._performance,
            change=PlayerChange,
            change_fields=_CHANGE_FIELDS,
            fast_change=_FAST_CHANGE,
            match=MatchResult,
            match_fields=_MATCH_FIELDS,
            deque=deque,
            last=(self._last_ordinal, self._last_id),
        )

    def _rate_all_native(
        self, matches: Iterable[MatchResult], probs: list[float] | None = None
    ) -> list[tuple[PlayerChange, ...]]:
        engine = self._engine = self._native_engine()
        out: list[tuple[PlayerChange, ...]] = []
        try:
            if isinstance(matches, list | tuple):
                self._run_native(engine, matches, out, probs)
            else:
                it = iter(matches)
                while True:
                    chunk: list[MatchResult] = []
                    try:
                        chunk.extend(islice(it, NATIVE_CHUNK))
                    except BaseException:
                        self._run_native(engine, chunk, out)  # what came before the error
                        raise
                    self._run_native(engine, chunk, out)
                    if len(chunk) < NATIVE_CHUNK:
                        break
        finally:
            self._engine = None
            self._last_ordinal, self._last_id = engine.export()
        return out

    def _run_native(
        self,
        engine: Any,
        matches: Sequence[MatchResult],
        out: list[tuple[PlayerChange, ...]],
        probs: list[float] | None = None,
    ) -> None:
        """Rate `matches` natively; a match the C side leaves is raised or handed back plain.

        With `probs`, each match's §6 prediction comes first (predict_rate_all).
        """
        i, n = 0, len(matches)
        while True:
            i = engine.run(matches, i, out, probs)
            if i >= n:
                return
            self._last_ordinal, self._last_id = engine.export()
            plain = self._plain(matches[i])  # raises for a bad match, as rate_all does
            if engine.run((plain,), 0, out, probs) != 1:
                raise EngineError(f"match {plain.id} of {plain.played_on} could not be rated")
            i += 1

    @staticmethod
    def _new_changes(history: History) -> Changes:
        return _native.Changes(
            names=history.names,
            change=PlayerChange,
            change_fields=_CHANGE_FIELDS,
            fast_change=_FAST_CHANGE,
        )

    def _run_history(
        self,
        history: History,
        start: int,
        stop: int | None,
        changes: Changes,
        probs: list[float] | None,
    ) -> None:
        """Rate history[start:stop] natively; at a match the C side stops at, raise its error."""
        stop = len(history) if stop is None else min(stop, len(history))
        outcomes = self._outcomes_of_lines(history)
        performance: Callable[[int], tuple[tuple[float, ...], tuple[float, ...]]] | None = None
        if self.params.team_method == "performance_weighted":

            def performance(i: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
                return self._performance(decode(history, i))

        engine = self._engine = self._native_engine()
        try:
            i = engine.run_history(history, start, stop, outcomes, changes, probs, performance)
        finally:
            self._engine = None
            self._last_ordinal, self._last_id = engine.export()
        if i < stop:
            match = decode(history, i)
            self._plain(match)  # raises the match's error, as rate_all does
            raise EngineError(f"match {match.id} of {match.played_on} could not be rated")

    def _outcomes_of_lines(self, history: History) -> array[float]:
        """(s_a, s_b, m, a_won) of each of the history's score lines, validated once."""
        lines = history.lines
        known = self._line_outcomes
        if known is not None and known[0] is history and known[1] == len(lines):
            return known[2]
        values = array("d")
        for games in lines:
            try:
                s_a, m, a_won, s_b, _ = self._outcomes.get(games) or self._outcome(games)
            except Exception:  # noqa: BLE001 - _plain raises it at the match, in rate_all's order
                values.extend(_INVALID_LINE)
            else:
                values.extend((s_a, s_b, m, 1.0 if a_won else 0.0))
        self._line_outcomes = (history, len(lines), values)
        return values

    def _plain(self, match: MatchResult) -> MatchResult:
        """A match the C replay stopped at: raise its error, or return it in plain form.

        Plain: sides and games as tuples, the date a `date`. The checks are those of §3's
        order, the sides and the score line, with their messages for people.
        """
        ordinal = match.played_on.toordinal()
        if ordinal <= self._last_ordinal:
            self._check_order(match, ordinal)
        side_a, side_b = tuple(match.side_a), tuple(match.side_b)
        if not side_a or not side_b:
            raise EngineError("each side needs at least one player")
        everyone = (*side_a, *side_b)
        if len(set(everyone)) != len(everyone):
            if len(everyone) == 2:
                raise EngineError(f"{side_a[0]} cannot play against themselves")
            twice = sorted({n for n in everyone if everyone.count(n) > 1})
            raise EngineError(f"{', '.join(twice)} cannot appear twice in one match")
        if len(side_a) > MAX_SIDE or len(side_b) > MAX_SIDE:
            raise EngineError(f"at most {MAX_SIDE} players a side")
        games = tuple((a, b) for a, b in match.games)
        if games not in self._outcomes:
            self._outcome(games)  # validates the score line
        return replace(
            match,
            played_on=date.fromordinal(ordinal),
            side_a=side_a,
            side_b=side_b,
            games=games,
        )

    def _check_order(self, match: MatchResult, ordinal: int) -> None:
        last = date.fromordinal(self._last_ordinal)
        if ordinal < self._last_ordinal:
            raise EngineError(
                f"match of {match.played_on} is dated before the last rated match ({last}); "
                "ratings must be replayed from that date"
            )
        if match.id is not None and self._last_id is not None and match.id <= self._last_id:
            raise EngineError(
                f"match {match.id} of {match.played_on} comes after match {self._last_id} "
                "of the same day was rated; ratings must be replayed from that date"
            )

    def _outcome(self, games: Sequence[tuple[int, int]]) -> _CachedOutcome:
        """The outcome of a score line, validated and cached (the C module calls this too)."""
        self.scoring_format.validate_games(games)
        outcome = match_outcome(games, self.scoring_format.points_per_game, self.params)
        cached = (outcome.s_a, outcome.multiplier, outcome.a_won, outcome.s_b, outcome)
        if len(self._outcomes) >= OUTCOME_CACHE_SIZE:
            self._outcomes.clear()
        self._outcomes[games] = cached  # type: ignore[index]
        return cached

    def _player(self, name: str) -> _Player:
        """A player's live state; a newcomer joins (the C replay calls this at their first
        match, before rating it)."""
        p = self._players.get(name)
        if p is None:
            state = self._initial.get(name)
            if state is None:
                state = self._newcomer_state()
                if self._joined is not None:
                    self._joined.append(name)
            p = self._players[name] = _Player(state)
        return p

    def _performance(self, match: MatchResult) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """§5 performance_weighted: each side's weights from the match's stats (the C side asks)."""
        stats = match.stats or {}
        return (
            performance_weights([stats.get(n) for n in match.side_a], self.params),
            performance_weights([stats.get(n) for n in match.side_b], self.params),
        )


def encode(matches: Iterable[MatchResult]) -> History:
    """A history in columns for `Replayer.rate_history`: encode once, replay many times.

    Sides become tuples, games tuples of pairs and dates plain dates, as `Replayer.rate`
    takes them. The rules (the order, the players, the score lines) are the replay's to
    check, at each match, as `rate_all` checks them.
    """
    return _encode(matches, rows=False)


def encode_rows(rows: Iterable[MatchRow]) -> History:
    """`encode` of matches given as plain rows (`MatchRow`), as a database query reads them:
    no MatchResult is built for a match in plain form."""
    return _encode(rows, rows=True)


def _encode(matches: Iterable[Any], rows: bool) -> History:
    history = _native.History(match=tuple if rows else MatchResult, match_fields=_MATCH_FIELDS)
    todo = matches if isinstance(matches, list | tuple) else list(matches)
    i = history.extend(todo)
    while i < len(todo):  # not in plain form (or not a match): made plain, or refused
        match = _as_match(todo[i]) if rows else todo[i]
        if max(len(match.side_a), len(match.side_b)) > MAX_SIDE:
            raise EngineError(f"at most {MAX_SIDE} players a side")
        plain = replace(
            match,
            played_on=date.fromordinal(match.played_on.toordinal()),
            side_a=tuple(match.side_a),
            side_b=tuple(match.side_b),
            games=tuple((a, b) for a, b in match.games),
        )
        given = (_as_row(plain),) if rows else (plain,)
        if history.extend(given) != 1:
            raise EngineError(f"match {match.id} of {match.played_on} cannot be rated")
        i = history.extend(todo, i + 1)
    return history


def _as_match(row: MatchRow) -> MatchResult:
    if not isinstance(row, tuple) or len(row) != len(_MATCH_FIELDS):
        raise EngineError(f"a match row is ({', '.join(_MATCH_FIELDS)}), not {row!r}")
    played_on, side_a, side_b, games, match_id, stats = row
    return MatchResult(played_on, side_a, side_b, games, stats, match_id)


def _as_row(match: MatchResult) -> MatchRow:
    return (match.played_on, match.side_a, match.side_b, match.games, match.id, match.stats)


def decode(history: History, i: int) -> MatchResult:
    """Match i of an encoded history, as a MatchResult."""
    ordinal, side_a, side_b, games, match_id = history.row(i)
    return MatchResult(
        date.fromordinal(ordinal), side_a, side_b, games, history.stats.get(i), match_id
    )


def replay(
    matches: Iterable[MatchResult],
    params: Params,
    scoring_format: ScoringFormat,
    initial_states: Mapping[str, PlayerState] | None = None,
) -> ReplayResult:
    """Rate a whole history from the start.

    Matches are taken in (played_on, id) order: sorted stably by date, and by id within a
    day when ids are set (a match without id sorts as id 0, keeping the given order).
    """
    ordered = tuple(sorted(matches, key=lambda m: (m.played_on, m.id or 0)))
    replayer = Replayer(params, scoring_format, initial_states)
    changes = tuple(replayer.rate_all(ordered))
    return ReplayResult(states=replayer.states, matches=ordered, changes=changes)
