"""Club night: propose a round of balanced matches for the players in the hall.

The core (``propose``) is pure: frozen dataclasses in, a ``Round`` out; it touches no
database and no Django. The site's side is in ``services.py``: ``propose_round`` loads a
ladder's ratings and recent matches and calls the core; ``add_round`` and friends keep
tonight's rounds in a ``ClubNight`` (ladder/clubnight/models.py).

Who plays
---------
A round has ``len(present) // (2 * team_size)`` matches; the rest sit out. Who sits
out is not traded against match quality, it follows a strict order (the thesis'
pivot idea: the player with the fewest games is served first):

1. most games played *tonight* first (so whoever sat out, or arrived late, plays
   next: nobody sits out twice before everyone present all night has sat out once);
2. then most games in total (ladder games + tonight), unless that order would break a
   promise below (the floor, or a pairing of tonight again): each player equal on
   games tonight costs ``SIT_OUT_STEP`` per player of those with fewer games in total
   for playing, scaled down in a big hall so that the whole order weighs less than one
   repeat (issue 37: round 2 put Mei against Tom again because the two with most games
   in total had to sit out, though the round with one of them playing had no repeat);
3. among players equal on both, the search picks whoever gives the best round.

What a round promises, in this order
------------------------------------
1. Every match at least ``QUALITY_FLOOR`` in match quality Q (stated on the page) where
   the players present allow it; otherwise as few matches below it as they allow.
2. No pairing of tonight again (two players meeting as opponents, or as partners, a
   second time) while a round without it exists that keeps 1 (``Round.repeats`` names
   those 1 forced).
3. Among those rounds, the best by the score below.
Balance comes before novelty: a repeat of an even match is a better evening than a
fresh one that one side cannot win (the lopsided later rounds of issue 16 came from
putting novelty first). The three levels are penalties orders of magnitude apart
(``BELOW_FLOOR`` > ``TONIGHT_OPPONENT`` > the score's whole range), so one search
serves all three.

Scoring (the objective, maximised)
----------------------------------
The total over the round's matches of ``Q - penalties``, where ``Q`` is the match
quality of RATINGS.md §6 (``ratings.engine.predict.match_quality``, in (0, 1]; RDs
inflated for inactivity up to the date) and the penalties are, for every pair of
players who would meet as opponents (every cross pair of the two sides) or play as
partners (every pair within a side):

- ``TONIGHT_OPPONENT`` / ``TONIGHT_PARTNER`` times the number of times that pair
  already met that way in an earlier round tonight (promise 2);
- ``WINDOW_OPPONENT`` / ``WINDOW_PARTNER`` times ``1 - 1 / (1 + REPEAT_DAMPING * k)``
  with ``k`` the pair's meetings that way within the ladder's lookback window.

The window term is the share of a match the ratings would discount for a repeat
opponent (RATINGS.md §3 step 4's weight with the default alpha): 0.17 after one
meeting, 0.38 after three, approaching 1; it grows ever slower, because in a small
club everyone has met everyone and balance should still win. See the constants
for the weights. A match below the floor costs ``BELOW_FLOOR`` plus ``SHORTFALL`` per
unit of Q it misses by (promise 1; of two matches below the floor, the nearer is better).

Search
------
Up to ``EXACT_MAX_PLAYERS`` present: exact, a dynamic programme over bitmasks of the
players still to place (the lowest one always starts the next match, so every
partition is seen once), for every admissible choice of who sits out. Beyond: a
greedy start around pivots (fewest games first, each with the best match among the
players nearest in rating), then an iterated local search, deterministic (seeded):
re-deal the players of two matches of similar level in every possible way (singles
and doubles; swaps for bigger teams), re-choose who of the tied plays and who sits
out, and kick the round with a few random swaps when no move helps. A match's split
into sides is always the best of all splits (teams up to 3; a swap search for 4, 5).
It stops after a budget of distinct matches evaluated, so its cost does not depend
on the machine; tests/clubnight/test_clubnight.py checks it finds the exact optimum on
small halls, docs/BENCHMARKS.md ("Club night") has its times.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cache
from itertools import combinations
from math import comb
from operator import itemgetter
from types import MappingProxyType

from core.errors import DomainError, DomainPermissionError
from ratings.engine.predict import QUALITY_SCALE, inflated_rd, match_quality, win_probability
from ratings.engine.teams import g1_boost, rms
from ratings.engine.types import Params, PlayerState

# ---- scoring weights ------------------------------------------------------------------------

#: The match quality every match of a round keeps to where the players present allow it
#: (RATINGS.md §6 Q, shown on the club night page). 0.40 is a rating gap of 0.47 between
#: two well-known players (RD 100 each; the weaker wins one match in thirteen) or 0.34 between
#: two new ones (RD 250; one in five): a match either side can win. The lopsided rounds
#: this floor rules out measured 0.03-0.12.
QUALITY_FLOOR = 0.4
#: Per match below the floor (promise 1): more than any number of repeats can cost.
BELOW_FLOOR = 1e5
#: Per unit of Q a match below the floor misses it by: the nearer miss is the better one.
#: At most 2 a match, so it stays below one repeat (TONIGHT_OPPONENT) for any hall of up to
#: about 30 matches.
SHORTFALL = 2.0
#: Per earlier meeting tonight of two opponents (promise 2): more than the score of any
#: round (Q <= 1 and SHORTFALL a match), so a pairing of tonight comes back only when
#: every round that keeps the floor has it.
TONIGHT_OPPONENT = 100.0
#: Per earlier partnership tonight: rotating partners is what a doubles night is for.
TONIGHT_PARTNER = 100.0
#: Per step of the sit-out order (who sits out 2.) broken by a player who plays: more than
#: the quality of two matches, so the order holds unless a promise needs it broken.
SIT_OUT_STEP = 5.0
#: What breaking the sit-out order may cost at most in all: less than one repeat
#: (TONIGHT_OPPONENT), so the order never brings a pairing back.
SIT_OUT_BUDGET = 90.0
#: Weight of the lookback-window discount for opponents: one earlier meeting (0.17 x 0.3
#: = 0.05) costs as much as a 100-point rating gap between well-known players
#: (Q 0.93 → 0.88), ten meetings (0.67 x 0.3 = 0.2) about a 250-point gap. A fresh
#: pairing is preferred when it is nearly as even, never at the price of a lopsided match.
WINDOW_OPPONENT = 0.3
#: Regular partners are normal in a club; variety is nice but worth half as much.
WINDOW_PARTNER = 0.15
#: alpha of the window discount: RATINGS.md §2's default repetition_alpha. Fixed here, not
#: read from the ladder, so that a ladder which switches damping off in its ratings
#: still gets varied club nights.
REPEAT_DAMPING = 0.2

# ---- search --------------------------------------------------------------------------------

#: Halls up to this size are solved exactly (doubles, 12 present: 5,775 partitions into
#: matches x 27 splits into sides; the bitmask DP visits ~1,000 states).
EXACT_MAX_PLAYERS = 12
#: Players nearest the pivot's rating considered for its match in the greedy start.
GREEDY_NEIGHBOURS = 8
#: Matches a match trades players with in the local search: the nearest in mean rating
#: (a good trade between a strong and a weak match is rare; skipping the rest makes a
#: pass over a 100-player hall several times cheaper).
NEIGHBOUR_MATCHES = 4
#: Ways to re-deal two matches' players (or a match and the bench) tried in full; beyond,
#: one-for-one swaps. 35 covers doubles: C(7, 3) deals of two matches' eight players.
REGROUP_MAX = 35
#: Kick-and-repair iterations of the local search after the greedy start, at most; the
#: search also stops once it has evaluated EVALUATIONS distinct matches, its real cost
#: (~13 µs each): a small hall, whose few matches are soon all known, gets every
#: iteration; 40 players in doubles get ~10. More buys little: on six 40-player doubles
#: halls, 10,000 evaluations came within 0.25% of the objective that running the search
#: to the end reached, in a sixth of the time (0.15 s against 0.9 s of CPU).
ILS_ITERATIONS = 300
EVALUATIONS = 10_000
#: ... and once this many iterations in a row found nothing better.
STALL = 100
#: Hard stop for the local search, in seconds of this thread's CPU time: a guard for a
#: slow machine; otherwise the budgets above end the search first. CPU, not wall time,
#: so that other work on a busy server cannot change the proposal (or fail a test).
TIME_BUDGET = 0.6
#: Random generator seed: the same hall always gets the same proposal.
SEED = 20240601
# A hall with more courts than this is not a club night this page is for.
MAX_COURTS = 30
#: Team sizes whose side splits are all enumerated in the heuristic (10 splits at 3 a side,
#: 35 at 4, 126 at 5); larger teams split by a swap search from a snake draft.
FULL_SPLIT_MAX_TEAM = 3
QUALITY_SCALE_SQ = QUALITY_SCALE * QUALITY_SCALE
#: Improvements smaller than this are rounding noise.
EPS = 1e-12


class ClubNightError(DomainError, ValueError):
    """The hall cannot make a round (too few players, an unknown player, ...)."""


class ClubNightPermissionError(ClubNightError, DomainPermissionError):
    """The person asking may not do this to tonight's club night (start it over)."""


@dataclass(frozen=True, slots=True)
class Present:
    """A player in the hall: an id (username), a name to show, rating state and ladder games."""

    id: str
    name: str
    state: PlayerState
    games: int = 0


Pairing = tuple[tuple[str, ...], tuple[str, ...]]
PairCounts = Mapping[frozenset[str], int]


def _empty_counts() -> PairCounts:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class History:
    """How often pairs of players met as opponents and as partners (the lookback window)."""

    opponents: PairCounts = field(default_factory=_empty_counts)
    partners: PairCounts = field(default_factory=_empty_counts)

    @classmethod
    def from_pairings(cls, pairings: Iterable[Pairing]) -> History:
        """Count every cross pair as opponents and every same-side pair as partners."""
        opponents: dict[frozenset[str], int] = {}
        partners: dict[frozenset[str], int] = {}
        for side_a, side_b in pairings:
            for x in side_a:
                for y in side_b:
                    key = frozenset((x, y))
                    opponents[key] = opponents.get(key, 0) + 1
            for side in (side_a, side_b):
                for x, y in combinations(side, 2):
                    key = frozenset((x, y))
                    partners[key] = partners.get(key, 0) + 1
        return cls(MappingProxyType(opponents), MappingProxyType(partners))


@dataclass(frozen=True, slots=True)
class ProposedMatch:
    """One proposed match: side A is the favourite (win probability ≥ 0.5)."""

    side_a: tuple[str, ...]
    side_b: tuple[str, ...]
    quality: float
    win_probability: float
    #: Pairs of this match (opponents or partners, ids sorted) who met so earlier tonight:
    #: none unless every round keeping the floor had one (promise 2).
    repeats: tuple[tuple[str, str], ...] = ()

    @property
    def pairing(self) -> Pairing:
        return (self.side_a, self.side_b)

    @property
    def players(self) -> tuple[str, ...]:
        return self.side_a + self.side_b


@dataclass(frozen=True, slots=True)
class Round:
    """A proposed round: its matches (best Q first), who sits out, and the objective reached."""

    matches: tuple[ProposedMatch, ...]
    byes: tuple[str, ...]
    score: float
    exact: bool
    floor: float = QUALITY_FLOOR

    @property
    def pairings(self) -> tuple[Pairing, ...]:
        return tuple(m.pairing for m in self.matches)

    @property
    def below_floor(self) -> tuple[ProposedMatch, ...]:
        """The matches below the quality floor: none unless the players present allow no better."""
        return tuple(m for m in self.matches if m.quality < self.floor)

    @property
    def repeats(self) -> tuple[tuple[str, str], ...]:
        """The pairs of tonight meeting again in this round (the floor forced them)."""
        return tuple(pair for m in self.matches for pair in m.repeats)

    @property
    def mean_quality(self) -> float:
        return sum(m.quality for m in self.matches) / len(self.matches)


def propose(
    present: Sequence[Present],
    team_size: int,
    params: Params,
    on: date | None = None,
    history: History | None = None,
    previous_rounds: Sequence[Sequence[Pairing]] = (),
    search: str = "auto",
    seed: int = SEED,
    floor: float = QUALITY_FLOOR,
    courts: int | None = None,
) -> Round:
    """The best round for the players present (see the module docstring for the objective).

    ``courts``: at most that many matches at once; everyone else sits out, those who
    played most tonight (then in all) first, as with any player left over.

    ``history`` counts pairings within the ladder's lookback window; ``previous_rounds``
    are tonight's earlier rounds, each a sequence of ``(side_a, side_b)`` ids. ``search``
    is ``"auto"`` (exact up to ``EXACT_MAX_PLAYERS``), ``"exact"`` or ``"heuristic"``;
    ``floor`` the match quality every match keeps to where the players allow it.
    Raises ClubNightError when there are not enough players for one match.
    """
    if team_size < 1:
        raise ClubNightError("A team needs at least one player.")
    if not 0 <= floor <= 1:
        raise ClubNightError("The match quality floor must be between 0 and 1.")
    if search not in ("auto", "exact", "heuristic"):
        raise ClubNightError(f"Unknown search {search!r}.")
    if courts is not None and not 1 <= courts <= MAX_COURTS:
        raise ClubNightError(f"The number of courts is a whole number from 1 to {MAX_COURTS}.")
    ids = [p.id for p in present]
    if len(set(ids)) != len(ids):
        raise ClubNightError("A player is listed twice.")
    size = 2 * team_size
    if len(present) < size:
        raise ClubNightError(
            f"A match needs {size} players; {len(present)} "
            f"{'is' if len(present) == 1 else 'are'} present."
        )
    if search == "exact" and len(present) > EXACT_MAX_PLAYERS:
        raise ClubNightError(f"Exact search is for halls of up to {EXACT_MAX_PLAYERS} players.")

    hall = _Hall(
        present, team_size, params, on, history or History(), previous_rounds, floor, courts
    )
    playing, tie, benched_from_tie, byes = hall.who_plays()
    exact = search == "exact" or (search == "auto" and len(present) <= EXACT_MAX_PLAYERS)
    if exact:
        groups, bench = _exact(hall, playing, tie, benched_from_tie)
    else:
        groups, bench = _heuristic(hall, playing, tie, benched_from_tie, random.Random(seed))
    return hall.round(groups, byes + bench, exact)


Take = Callable[[tuple[int, ...]], tuple[int, ...]]


@cache
def halves(total: int, part: int) -> tuple[tuple[Take, Take], ...]:
    """Every way to split a sorted tuple of ``total`` into ``part`` (holding the first
    element, so each split is seen once) and the rest, as pairs of functions that pick
    the two parts (still sorted) from a tuple."""

    def taker(indices: tuple[int, ...]) -> Take:
        if len(indices) == 1:
            k = indices[0]
            return lambda t: (t[k],)
        return itemgetter(*indices)

    ways = []
    for others in combinations(range(1, total), part - 1):
        chosen = (0, *others)
        rest = tuple(k for k in range(total) if k not in chosen)
        ways.append((taker(chosen), taker(rest)))
    return tuple(ways)


# ---- the hall: players by index, precomputed penalties, cached match values -------------------


@dataclass(frozen=True, slots=True)
class _Side:
    r_eff: float  # mean rating + the certainty boost b(RD_team) (RATINGS.md §6)
    rd_sq: float  # the team's RMS RD, squared
    penalty: float  # partner repeats within the side, and the sit-out order's cost


@dataclass(frozen=True, slots=True)
class _Split:
    value: float
    side_a: tuple[int, ...]
    side_b: tuple[int, ...]


class _Hall:
    """Players by index (sorted by id, so the order they are listed in does not matter)."""

    def __init__(
        self,
        present: Sequence[Present],
        team_size: int,
        params: Params,
        on: date | None,
        history: History,
        previous_rounds: Sequence[Sequence[Pairing]],
        floor: float = QUALITY_FLOOR,
        courts: int | None = None,
    ) -> None:
        self.players = sorted(present, key=lambda p: p.id)
        self.floor = floor
        self.courts = courts
        self.team_size = team_size
        self.size = 2 * team_size
        self.params = params
        index = {p.id: i for i, p in enumerate(self.players)}
        n = len(self.players)
        # RD grown for inactivity once, up to the date; the engine then needs no date.
        self.states = [
            replace(p.state, rd=inflated_rd(p.state, on, params), last_played=None)
            for p in self.players
        ]
        self.ratings = [s.rating for s in self.states]

        tonight = History.from_pairings(pairing for r in previous_rounds for pairing in r)
        self.games_tonight = [0] * n
        for r in previous_rounds:
            for side_a, side_b in r:
                for pid in (*side_a, *side_b):
                    if pid in index:
                        self.games_tonight[index[pid]] += 1

        def penalties(
            window: PairCounts, now: PairCounts, w_window: float, w_now: float
        ) -> list[list[float]]:
            matrix = [[0.0] * n for _ in range(n)]
            for counts, lost in ((window, True), (now, False)):
                for pair, k in counts.items():
                    if len(pair) != 2 or k <= 0:
                        continue
                    x, y = tuple(pair)
                    if x not in index or y not in index:
                        continue
                    i, j = index[x], index[y]
                    cost = (
                        w_window * (1.0 - 1.0 / (1.0 + REPEAT_DAMPING * k)) if lost else w_now * k
                    )
                    matrix[i][j] += cost
                    matrix[j][i] += cost
            return matrix

        self.opp_penalty = penalties(
            history.opponents, tonight.opponents, WINDOW_OPPONENT, TONIGHT_OPPONENT
        )
        self.partner_penalty = penalties(
            history.partners, tonight.partners, WINDOW_PARTNER, TONIGHT_PARTNER
        )
        self.tonight = tonight
        self.play_cost = [0.0] * n  # who sits out, 2.: set by who_plays
        self._splits: dict[tuple[int, ...], _Split] = {}
        self._sides: dict[tuple[int, ...], _Side] = {}
        self._full_split = team_size <= FULL_SPLIT_MAX_TEAM

    # -- who plays ---------------------------------------------------------------------------

    def who_plays(self) -> tuple[list[int], list[int], int, list[int]]:
        """(certain to play, tied at the cut, how many of the tied sit out, certain byes)."""
        n = len(self.players)
        matches = n // self.size
        if self.courts is not None:
            matches = min(matches, self.courts)
        byes = n - matches * self.size
        everyone = list(range(n))
        if byes == 0:
            return everyone, [], 0, []
        tonight = self.games_tonight
        cut = sorted(tonight, reverse=True)[byes - 1]
        certain_byes = [i for i in everyone if tonight[i] > cut]
        tie = [i for i in everyone if tonight[i] == cut]
        playing = [i for i in everyone if tonight[i] < cut]
        benched = byes - len(certain_byes)
        if benched:
            self._order_tie(tie, benched)
        return playing, tie, benched, certain_byes

    def _order_tie(self, tie: list[int], benched: int) -> None:
        """The sit-out order among the tied (who sits out, 2.): each costs, for playing, a
        step per tied player with fewer games in total; steps small enough that the most
        the order can be broken by (each swap of one who sits out and one who plays moves
        at most ``len(tie) - 1`` steps) stays within the budget."""
        swaps = min(benched, len(tie) - benched)
        if not swaps:
            return
        total = {i: self.players[i].games + self.games_tonight[i] for i in tie}
        step = min(SIT_OUT_STEP, SIT_OUT_BUDGET / (swaps * (len(tie) - 1)))
        for i in tie:
            self.play_cost[i] = step * sum(total[j] < total[i] for j in tie)

    # -- values ------------------------------------------------------------------------------

    def side(self, members: tuple[int, ...]) -> _Side:
        """A side's effective rating, squared RD and partner penalty; cached, as the search
        meets the same sides again and again."""
        cached = self._sides.get(members)
        if cached is not None:
            return cached
        rd = rms([self.states[i].rd for i in members])
        rating = sum(self.ratings[i] for i in members) / len(members)
        par = self.partner_penalty
        penalty = sum(par[x][y] for x, y in combinations(members, 2))
        penalty += sum(self.play_cost[i] for i in members)
        side = self._sides[members] = _Side(rating + g1_boost(rd), rd * rd, penalty)
        return side

    def match_value(self, side_a: tuple[int, ...], side_b: tuple[int, ...]) -> float:
        """Q minus the repeat penalties of one match, and the floor's if it falls below
        (sides as sorted tuples of indices).

        Q is ``ratings.engine.predict.match_quality`` written out on the cached side
        aggregates: the search evaluates ~100,000 matches for a 40-player doubles hall and
        the engine's call, which re-aggregates both sides each time, would take 5x longer.
        tests/clubnight/test_clubnight.py pins that the two agree.
        """
        a, b = self.side(side_a), self.side(side_b)
        gap = (a.r_eff - b.r_eff) / QUALITY_SCALE
        quality = 1.0 / (1.0 + gap * gap + (a.rd_sq + b.rd_sq) / QUALITY_SCALE_SQ)
        value = quality - a.penalty - b.penalty
        if quality < self.floor:
            value -= BELOW_FLOOR + SHORTFALL * (self.floor - quality)
        opp = self.opp_penalty
        for i in side_a:
            row = opp[i]
            for j in side_b:
                value -= row[j]
        return value

    @property
    def evaluated(self) -> int:
        """Distinct matches evaluated so far."""
        return len(self._splits)

    def best_split(self, group: tuple[int, ...]) -> _Split:
        """The best split of a group (sorted tuple of indices) into two sides; cached."""
        cached = self._splits.get(group)
        if cached is not None:
            return cached
        split = self._enumerate_splits(group) if self._full_split else self._swap_split(group)
        self._splits[group] = split
        return split

    def best_split_exact(self, group: tuple[int, ...]) -> _Split:
        """Every split enumerated, whatever the team size (exact search)."""
        if self._full_split:
            return self.best_split(group)
        key = (-1, *group)  # a separate cache slot from the heuristic split
        cached = self._splits.get(key)
        if cached is None:
            cached = self._splits[key] = self._enumerate_splits(group)
        return cached

    def _enumerate_splits(self, group: tuple[int, ...]) -> _Split:
        best: _Split | None = None
        for take_a, take_b in halves(len(group), self.team_size):
            side_a, side_b = take_a(group), take_b(group)
            value = self.match_value(side_a, side_b)
            if best is None or value > best.value + EPS:
                best = _Split(value, side_a, side_b)
        assert best is not None
        return best

    def _swap_split(self, group: tuple[int, ...]) -> _Split:
        # Snake draft by rating (1st, 4th, 5th, 8th, ... on one side), then swap pairs across.
        by_rating = sorted(group, key=lambda i: (-self.ratings[i], i))
        side_a = [i for k, i in enumerate(by_rating) if k % 4 in (0, 3)]
        side_b = [i for k, i in enumerate(by_rating) if k % 4 in (1, 2)]
        value = self.match_value(tuple(sorted(side_a)), tuple(sorted(side_b)))
        improved = True
        while improved:
            improved = False
            for x in range(len(side_a)):
                for y in range(len(side_b)):
                    side_a[x], side_b[y] = side_b[y], side_a[x]
                    candidate = self.match_value(tuple(sorted(side_a)), tuple(sorted(side_b)))
                    if candidate > value + EPS:
                        value, improved = candidate, True
                    else:
                        side_a[x], side_b[y] = side_b[y], side_a[x]
        return _Split(value, tuple(sorted(side_a)), tuple(sorted(side_b)))

    # -- the result --------------------------------------------------------------------------

    def round(self, groups: Sequence[tuple[int, ...]], byes: Sequence[int], exact: bool) -> Round:
        matches = []
        score = 0.0
        for group in groups:
            split = self.best_split_exact(group) if exact else self.best_split(group)
            score += split.value
            a = [self.states[i] for i in split.side_a]
            b = [self.states[i] for i in split.side_b]
            p = win_probability(a, b, self.params)
            side_a, side_b = split.side_a, split.side_b
            if p < 0.5:
                side_a, side_b, p = side_b, side_a, 1.0 - p
            matches.append(
                ProposedMatch(
                    side_a=self._ids(side_a),
                    side_b=self._ids(side_b),
                    quality=match_quality(a, b, self.params),
                    win_probability=p,
                    repeats=self._repeats(split.side_a, split.side_b),
                )
            )
        matches.sort(key=lambda m: (-m.quality, m.players))
        bye_ids = tuple(sorted(self.players[i].id for i in byes))
        return Round(tuple(matches), bye_ids, score, exact, self.floor)

    def _repeats(
        self, side_a: tuple[int, ...], side_b: tuple[int, ...]
    ) -> tuple[tuple[str, str], ...]:
        ids = [p.id for p in self.players]
        met = [(x, y, self.tonight.opponents) for x in side_a for y in side_b]
        met += [
            (x, y, self.tonight.partners) for s in (side_a, side_b) for x, y in combinations(s, 2)
        ]
        pairs = {
            tuple(sorted((ids[x], ids[y])))
            for x, y, counts in met
            if counts.get(frozenset((ids[x], ids[y])))
        }
        return tuple(sorted((a, b) for a, b in pairs))

    def _ids(self, side: Iterable[int]) -> tuple[str, ...]:
        ordered = sorted(side, key=lambda i: (-self.ratings[i], self.players[i].id))
        return tuple(self.players[i].id for i in ordered)


# ---- exact search ---------------------------------------------------------------------------


def _exact(
    hall: _Hall, playing: list[int], tie: list[int], benched: int
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Best partition into matches over every admissible choice of who sits out."""
    size = hall.size
    memo: dict[int, tuple[float, tuple[tuple[int, ...], ...]]] = {0: (0.0, ())}

    def solve(mask: int) -> tuple[float, tuple[tuple[int, ...], ...]]:
        known = memo.get(mask)
        if known is not None:
            return known
        members = [i for i in range(mask.bit_length()) if mask >> i & 1]
        first, rest = members[0], members[1:]
        best: tuple[float, tuple[tuple[int, ...], ...]] | None = None
        for others in combinations(rest, size - 1):
            group = (first, *others)
            group_mask = 0
            for i in group:
                group_mask |= 1 << i
            tail_value, tail_groups = solve(mask & ~group_mask)
            value = hall.best_split_exact(group).value + tail_value
            if best is None or value > best[0] + EPS:
                best = (value, (group, *tail_groups))
        assert best is not None
        memo[mask] = best
        return best

    base = 0
    for i in playing:
        base |= 1 << i
    best_choice: tuple[float, tuple[tuple[int, ...], ...], tuple[int, ...]] | None = None
    for sitting in combinations(tie, benched):
        mask = base
        for i in tie:
            if i not in sitting:
                mask |= 1 << i
        value, groups = solve(mask)
        if best_choice is None or value > best_choice[0] + EPS:
            best_choice = (value, groups, sitting)
    assert best_choice is not None
    return list(best_choice[1]), list(best_choice[2])


# ---- heuristic search -----------------------------------------------------------------------


def _heuristic(
    hall: _Hall, playing: list[int], tie: list[int], benched: int, rng: random.Random
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Greedy pivots, then an iterated local search (swaps across matches and with the bench)."""
    deadline = time.thread_time() + TIME_BUDGET
    # The tied are equal for the bench; the last by id start there, the search may swap them.
    bench = tie[len(tie) - benched :] if benched else []
    groups = _greedy(hall, playing + tie[: len(tie) - benched])
    search = _LocalSearch(hall, groups, bench, set(tie))
    search.descend(set(range(len(groups))))
    best_value, best_groups, best_bench = search.total(), list(search.groups), list(search.bench)
    stalled = 0
    for _ in range(ILS_ITERATIONS):
        if stalled >= STALL or hall.evaluated > EVALUATIONS or time.thread_time() > deadline:
            break
        touched = search.perturb(rng)
        search.descend(touched)
        value = search.total()
        stalled = 0 if value > best_value + EPS else stalled + 1
        if value > best_value - EPS:  # sideways moves too: they cross plateaus
            best_value, best_groups, best_bench = value, list(search.groups), list(search.bench)
        else:
            search.groups, search.bench = list(best_groups), list(best_bench)
    return best_groups, best_bench


def _greedy(hall: _Hall, players: list[int]) -> list[tuple[int, ...]]:
    """Match after match around the player with the fewest games (the thesis' pivot)."""
    size = hall.size
    ratings = hall.ratings
    left = sorted(players, key=lambda i: (hall.players[i].games + hall.games_tonight[i], i))
    groups = []
    while left:
        pivot, others = left[0], left[1:]
        near = sorted(others, key=lambda i: (abs(ratings[i] - ratings[pivot]), i))
        near = near[: max(GREEDY_NEIGHBOURS, size - 1)]
        if comb(len(near), size - 1) <= 4 * comb(GREEDY_NEIGHBOURS, 3):
            best = max(
                (tuple(sorted((pivot, *c))) for c in combinations(near, size - 1)),
                key=lambda g: hall.best_split(g).value,
            )
        else:
            best = tuple(sorted((pivot, *near[: size - 1])))
        groups.append(best)
        chosen = set(best)
        left = [i for i in left if i not in chosen]
    return groups


class _LocalSearch:
    def __init__(
        self, hall: _Hall, groups: list[tuple[int, ...]], bench: list[int], tie: set[int]
    ) -> None:
        self.hall = hall
        self.groups = groups
        self.bench = bench
        self.tie = tie

    def total(self) -> float:
        return sum(self.hall.best_split(g).value for g in self.groups)

    def descend(self, dirty: set[int]) -> None:
        """Apply improving moves until none is left, starting from the matches in ``dirty``."""
        groups = self.groups
        while dirty:
            gi = min(dirty)
            dirty.discard(gi)
            improved = True
            while improved:
                improved = False
                for hi in self._neighbours(gi):
                    better = self._regroup(groups[gi], groups[hi])
                    if better is not None:
                        groups[gi], groups[hi] = better
                        dirty.add(hi)
                        improved = True
                        break
                if not improved and self.bench:
                    rebenched = self._rebench(groups[gi])
                    if rebenched is not None:
                        groups[gi], self.bench = rebenched
                        improved = True

    def _regroup(
        self, g: tuple[int, ...], h: tuple[int, ...]
    ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """A better way to deal the players of two matches into two matches, or None.

        Every way for singles and doubles (3 and 35 of them); for bigger teams (462 at 3 a
        side) one-for-one swaps and whole sides traded.
        """
        best_split = self.hall.best_split
        size = self.hall.size
        best_value = best_split(g).value + best_split(h).value + EPS
        best = None
        if comb(2 * size - 1, size - 1) <= REGROUP_MAX:
            union = tuple(sorted(g + h))
            for take_g, take_h in halves(2 * size, size):
                new_g, new_h = take_g(union), take_h(union)
                value = best_split(new_g).value + best_split(new_h).value
                if value > best_value:
                    best_value, best = value, (new_g, new_h)
            return best
        trades: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((x,), (y,)) for x in g for y in h]
        split_g, split_h = best_split(g), best_split(h)
        trades += [
            (side_g, side_h)
            for side_g in (split_g.side_a, split_g.side_b)
            for side_h in (split_h.side_a, split_h.side_b)
        ]
        for out_g, out_h in trades:
            new_g = tuple(sorted([i for i in g if i not in out_g] + list(out_h)))
            new_h = tuple(sorted([i for i in h if i not in out_h] + list(out_g)))
            value = best_split(new_g).value + best_split(new_h).value
            if value > best_value:
                best_value, best = value, (new_g, new_h)
        return best

    def _rebench(self, g: tuple[int, ...]) -> tuple[tuple[int, ...], list[int]] | None:
        """A better choice, among the tied players of a match and those sitting out, of who
        plays in it; or None."""
        best_split = self.hall.best_split
        fixed = [i for i in g if i not in self.tie]
        pool = sorted([i for i in g if i in self.tie] + self.bench)
        need = len(g) - len(fixed)
        best_value = best_split(g).value + EPS
        best = None
        if comb(len(pool), need) <= REGROUP_MAX:
            choices: Iterable[tuple[int, ...]] = combinations(pool, need)
        else:  # one for one
            mine = [i for i in g if i in self.tie]
            choices = (tuple(i for i in mine if i != x) + (y,) for x in mine for y in self.bench)
        for chosen in choices:
            new_g = tuple(sorted(fixed + list(chosen)))
            value = best_split(new_g).value
            if value > best_value:
                best_value, best = value, new_g
        if best is None:
            return None
        return best, [i for i in pool if i not in best]

    def _neighbours(self, gi: int) -> list[int]:
        """The other matches, nearest in mean rating first, at most NEIGHBOUR_MATCHES of them."""
        ratings = self.hall.ratings
        means = [sum(ratings[i] for i in g) for g in self.groups]
        others = sorted(
            (hi for hi in range(len(self.groups)) if hi != gi),
            key=lambda hi: (abs(means[hi] - means[gi]), hi),
        )
        return others[:NEIGHBOUR_MATCHES]

    def perturb(self, rng: random.Random) -> set[int]:
        """Two or three random moves among nearby matches (and the bench): one move alone
        would be undone by the next descent."""
        groups = self.groups
        touched: set[int] = set()
        for _ in range(rng.randint(2, 3)):
            # Matches trade with a neighbour in level: kicks across the hall make lopsided
            # matches that the descent then spends long repairing.
            if len(groups) >= 2 and (not self.bench or rng.random() < 0.7):
                gi = rng.randrange(len(groups))
                hi = rng.choice(self._neighbours(gi))
                x, y = rng.choice(groups[gi]), rng.choice(groups[hi])
                groups[gi] = tuple(sorted([i for i in groups[gi] if i != x] + [y]))
                groups[hi] = tuple(sorted([i for i in groups[hi] if i != y] + [x]))
                touched.update((gi, hi))
            elif self.bench:
                candidates = [(gi, x) for gi, g in enumerate(groups) for x in g if x in self.tie]
                if not candidates:
                    continue
                gi, x = rng.choice(candidates)
                bi = rng.randrange(len(self.bench))
                groups[gi] = tuple(sorted([i for i in groups[gi] if i != x] + [self.bench[bi]]))
                self.bench[bi] = x
                touched.add(gi)
        return touched
