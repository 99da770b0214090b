"""Club night: propose a round of balanced matches for the players in the hall.

The core (``propose``) is pure: frozen dataclasses in, a ``Round`` out, no Django.
The Django-facing service that loads ratings and recent matches from the database
comes after it (``propose_round``).

Who plays
---------
A round has ``len(present) // (2 * team_size)`` matches; the rest sit out. Who sits
out is not traded against match quality, it follows a strict order (the thesis'
pivot idea: the player with the fewest games is served first):

1. most games played *tonight* first (so whoever sat out, or arrived late, plays
   next: nobody sits out twice before everyone present all night has sat out once);
2. then most games in total (ladder games + tonight);
3. among players equal on both, the search picks whoever gives the best round.

Scoring (the objective, maximised)
----------------------------------
The total over the round's matches of ``Q - penalties``, where ``Q`` is the match
quality of RATINGS.md §6 (``ratings.engine.predict.match_quality``, in (0, 1]; RDs
inflated for inactivity up to the date) and the penalties are, for every pair of
players who would meet as opponents (every cross pair of the two sides) or play as
partners (every pair within a side):

- ``TONIGHT_OPPONENT`` / ``TONIGHT_PARTNER`` times the number of times that pair
  already met that way in an earlier round tonight;
- ``WINDOW_OPPONENT`` / ``WINDOW_PARTNER`` times ``1 - 1 / (1 + REPEAT_DAMPING * k)``
  with ``k`` the pair's meetings that way within the ladder's lookback window.

The window term is the share of a match the ratings would discount for a repeat
opponent (RATINGS.md §3 step 4's weight with the default alpha): 0.17 after one
meeting, 0.38 after three, approaching 1; it grows ever slower, because in a small
club everyone has met everyone and balance should still win. See the constants
for the weights.

Search
------
Up to ``EXACT_MAX_PLAYERS`` present: exact, a dynamic programme over bitmasks of the
players still to place (the lowest one always starts the next match, so every
partition is seen once), for every admissible choice of who sits out. Beyond: a
greedy start around pivots (fewest games first, each with the best match among the
players nearest in rating), then an iterated local search: swap any two players of
different matches, swap a player for an equally-placed one sitting out, and
perturb with a seeded random generator (deterministic); each match's split into
sides is the best of all splits (teams up to 3; a local search for 4 and 5).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import combinations
from math import comb
from types import MappingProxyType

from ratings.engine.predict import inflated_rd, match_quality, win_probability
from ratings.engine.teams import rms
from ratings.engine.types import Params, PlayerState

# ---- scoring weights ------------------------------------------------------------------------

#: Per earlier meeting tonight of two opponents. Q < 1 for any match, so meeting
#: someone again tonight costs more than the best rebalancing could gain: it happens
#: only when every alternative repeats as much or sits someone out unfairly.
TONIGHT_OPPONENT = 2.0
#: Per earlier partnership tonight: rotating partners is what a doubles night is for.
TONIGHT_PARTNER = 2.0
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
#: (a good swap between a strong and a weak match is rare; skipping the rest makes a pass
#: over a 100-player hall several times cheaper). Halls of up to 12 see every match.
NEIGHBOUR_MATCHES = 5
#: Perturb-and-repair iterations of the local search after the greedy start.
ILS_ITERATIONS = 150
#: Hard stop for the local search (seconds): a guard for very large halls or slow
#: machines; at the sizes of a club hall the iteration count ends the search first.
TIME_BUDGET = 0.8
#: Random generator seed: the same hall always gets the same proposal.
SEED = 20240601
#: Team sizes whose side splits are all enumerated in the heuristic (10 splits at 3 a side,
#: 35 at 4, 126 at 5); larger teams split by a swap search from a snake draft.
FULL_SPLIT_MAX_TEAM = 3
#: Improvements smaller than this are rounding noise.
EPS = 1e-12


class ClubNightError(ValueError):
    """The hall cannot make a round (too few players, an unknown player, ...)."""


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

    @property
    def pairings(self) -> tuple[Pairing, ...]:
        return tuple(m.pairing for m in self.matches)

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
) -> Round:
    """The best round for the players present (see the module docstring for the objective).

    ``history`` counts pairings within the ladder's lookback window; ``previous_rounds``
    are tonight's earlier rounds, each a sequence of ``(side_a, side_b)`` ids. ``search``
    is ``"auto"`` (exact up to ``EXACT_MAX_PLAYERS``), ``"exact"`` or ``"heuristic"``.
    Raises ClubNightError when there are not enough players for one match.
    """
    if team_size < 1:
        raise ClubNightError("A team needs at least one player.")
    if search not in ("auto", "exact", "heuristic"):
        raise ClubNightError(f"Unknown search {search!r}.")
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

    hall = _Hall(present, team_size, params, on, history or History(), previous_rounds)
    playing, tie, benched_from_tie, byes = hall.who_plays()
    exact = search == "exact" or (search == "auto" and len(present) <= EXACT_MAX_PLAYERS)
    if exact:
        groups, bench = _exact(hall, playing, tie, benched_from_tie)
    else:
        groups, bench = _heuristic(hall, playing, tie, benched_from_tie, random.Random(seed))
    return hall.round(groups, byes + bench, exact)


# ---- the hall: players by index, precomputed penalties, cached match values -------------------


@dataclass(frozen=True, slots=True)
class _Side:
    state: PlayerState
    penalty: float


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
    ) -> None:
        self.players = sorted(present, key=lambda p: p.id)
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

        def penalties(window: PairCounts, now: PairCounts, w_window: float, w_now: float):  # type: ignore[no-untyped-def]
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
                        w_window * (1.0 - 1.0 / (1.0 + REPEAT_DAMPING * k))
                        if lost
                        else w_now * k
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
        self._splits: dict[tuple[int, ...], _Split] = {}
        self._sides: dict[tuple[int, ...], _Side] = {}
        self._full_split = team_size <= FULL_SPLIT_MAX_TEAM

    # -- who plays ---------------------------------------------------------------------------

    def who_plays(self) -> tuple[list[int], list[int], int, list[int]]:
        """(certain to play, tied at the cut, how many of the tied sit out, certain byes)."""
        n = len(self.players)
        byes = n % self.size
        everyone = list(range(n))
        if byes == 0:
            return everyone, [], 0, []
        key = [
            (self.games_tonight[i], self.players[i].games + self.games_tonight[i])
            for i in everyone
        ]
        by_sitting_out = sorted(everyone, key=lambda i: key[i], reverse=True)
        cut = key[by_sitting_out[byes - 1]]
        certain_byes = [i for i in everyone if key[i] > cut]
        tie = [i for i in everyone if key[i] == cut]
        playing = [i for i in everyone if key[i] < cut]
        return playing, tie, byes - len(certain_byes), certain_byes

    # -- values ------------------------------------------------------------------------------

    def side(self, members: tuple[int, ...]) -> _Side:
        """A side as one state (mean rating, RMS RD: how §6 combines a team) and its partner
        penalty; cached, as the same sides come back again and again in the search."""
        cached = self._sides.get(members)
        if cached is not None:
            return cached
        states = [self.states[i] for i in members]
        state = PlayerState(
            rating=sum(s.rating for s in states) / len(states),
            rd=rms([s.rd for s in states]),
            volatility=0.0,
        )
        par = self.partner_penalty
        penalty = sum(par[x][y] for x, y in combinations(members, 2))
        side = self._sides[members] = _Side(state, penalty)
        return side

    def match_value(self, side_a: tuple[int, ...], side_b: tuple[int, ...]) -> float:
        """Q minus the repeat penalties of one match (sides as sorted tuples of indices)."""
        a, b = self.side(side_a), self.side(side_b)
        # A side of one with the team's mean rating and RMS RD gives the engine's team Q.
        value = match_quality((a.state,), (b.state,), self.params) - a.penalty - b.penalty
        opp = self.opp_penalty
        for i in side_a:
            row = opp[i]
            for j in side_b:
                value -= row[j]
        return value

    def best_split(self, group: tuple[int, ...]) -> _Split:
        """The best split of a group (sorted tuple of indices) into two sides; cached."""
        cached = self._splits.get(group)
        if cached is not None:
            return cached
        if self._full_split:
            split = self._enumerate_splits(group)
        else:
            split = self._swap_split(group)
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
        first, rest = group[0], group[1:]
        best: _Split | None = None
        # The first player is always on side A: each split is seen once.
        for partners in combinations(rest, self.team_size - 1):
            side_a = (first, *partners)
            side_b = tuple(i for i in rest if i not in partners)
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
                )
            )
        matches.sort(key=lambda m: (-m.quality, m.players))
        bye_ids = tuple(sorted(self.players[i].id for i in byes))
        return Round(tuple(matches), bye_ids, score, exact)

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
    deadline = time.perf_counter() + TIME_BUDGET
    # Among the tied, the ones with most games (then the last by id) start on the bench.
    order = sorted(tie, key=lambda i: (hall.players[i].games, i))
    bench = order[len(order) - benched :] if benched else []
    groups = _greedy(hall, playing + order[: len(order) - benched])
    search = _LocalSearch(hall, groups, bench, set(tie))
    search.descend(set(range(len(groups))))
    best_value, best_groups, best_bench = search.total(), list(search.groups), list(search.bench)
    for _ in range(ILS_ITERATIONS):
        if time.perf_counter() > deadline:
            break
        touched = search.perturb(rng)
        search.descend(touched)
        value = search.total()
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
        best_split = self.hall.best_split
        groups = self.groups
        while dirty:
            gi = min(dirty)
            dirty.discard(gi)
            improved = True
            while improved:
                improved = False
                g = groups[gi]
                g_value = best_split(g).value
                for hi in self._neighbours(gi):
                    h = groups[hi]
                    h_value = best_split(h).value
                    before = g_value + h_value
                    for x in g:
                        for y in h:
                            new_g = tuple(sorted([i for i in g if i != x] + [y]))
                            new_h = tuple(sorted([i for i in h if i != y] + [x]))
                            if best_split(new_g).value + best_split(new_h).value > before + EPS:
                                groups[gi], groups[hi] = new_g, new_h
                                dirty.add(hi)
                                improved = True
                                break
                        if improved:
                            break
                    if improved:
                        break
                if improved or not self.bench:
                    continue
                for x in g:
                    if x not in self.tie:
                        continue
                    for bi, y in enumerate(self.bench):
                        new_g = tuple(sorted([i for i in g if i != x] + [y]))
                        if best_split(new_g).value > g_value + EPS:
                            groups[gi] = new_g
                            self.bench[bi] = x
                            improved = True
                            break
                    if improved:
                        break

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
        """Rotate one random player along a few random matches (and maybe with the bench)."""
        groups = self.groups
        touched: set[int] = set()
        if len(groups) >= 2:
            chosen = rng.sample(range(len(groups)), min(3, len(groups)))
            picked = [rng.choice(groups[gi]) for gi in chosen]
            for k, gi in enumerate(chosen):
                incoming = picked[k - 1]
                groups[gi] = tuple(sorted([i for i in groups[gi] if i != picked[k]] + [incoming]))
            touched.update(chosen)
        if self.bench and (len(groups) < 2 or rng.random() < 0.5):
            candidates = [(gi, x) for gi, g in enumerate(groups) for x in g if x in self.tie]
            if candidates:
                gi, x = rng.choice(candidates)
                bi = rng.randrange(len(self.bench))
                y = self.bench[bi]
                groups[gi] = tuple(sorted([i for i in groups[gi] if i != x] + [y]))
                self.bench[bi] = x
                touched.add(gi)
        return touched
