"""A generated club season with planted integrity cases, to measure the detectors.

Plain Python (no Django): an honest club (``ratings.lab.simulate.club_season``: weekly
nights, players paired by level, every match played rally by rally from true levels),
with four planted cases added:

- a **win-trading pair**: two regulars who also meet on their own, twelve times in the
  season, taking turns to win by a close score, each report confirmed within seconds;
- a **farmer**: a strong player (true level 5.8) who brings three new accounts (true level
  3.0, no self-assessment) in the second half and beats each of them five times;
- a **closed pool** of four (true levels 3.0-3.5) who say they are 6.0 and play only
  among themselves, twice a week;
- a **sandbagger**: a 5.5 player who says they are 3.0 and plays the club nights.

Honest members assess themselves at their true level give or take a little (a quarter
do not answer); they report a match the evening it was played or the next day, and
their opponent confirms it minutes to a day later. The season is rated by the engine
(default parameters), so the detectors read what the site would store.
``benchmarks/integrity.py`` measures; ``tests/integrity/test_planted.py`` holds the line.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from ladder.integrity.detectors import Member, Played, margin_of
from ratings.engine import MatchResult, Replayer
from ratings.engine.formats import BADMINTON_21
from ratings.engine.initial import initial_state
from ratings.engine.types import Params
from ratings.lab.simulate import _logistic, club_season, level_slope, play_match, spread_levels

HONEST_PLAYERS = 40
WEEKS = 16
TRADERS = ("TradeA", "TradeB")
FARMER = "Farmer"
FARMED = ("Alt1", "Alt2", "Alt3")
FARMED_WINS = 5  # the farmer beats each new account this many times
POOL = ("Pool1", "Pool2", "Pool3", "Pool4")
SANDBAGGER = "Sandbag"
CASES = {
    "win_trading": frozenset(TRADERS),
    "farming": frozenset((FARMER, *FARMED)),
    "closed_pool": frozenset(POOL),
    "sandbagging": frozenset((SANDBAGGER,)),
}
SELF_LEVEL_NOISE = 0.3  # how far honest members misjudge themselves (sd, levels)
NO_ANSWER = 0.25  # share of honest members who skip the self-assessment


@dataclass(frozen=True)
class Season:
    played: list[Played]
    members: list[Member]
    matches: list[MatchResult]
    levels: dict[str, float]  # true levels
    self_levels: dict[str, float | None]
    honest: frozenset[str]  # players in no planted case

    @property
    def planted(self) -> dict[str, frozenset[str]]:
        return dict(CASES)


def _self_level(value: float) -> float:
    """The nearest level a member can pick (2.0-6.0 in halves)."""
    return min(6.0, max(2.0, round(value * 2) / 2))


def planted_season(seed: int = 1, end: date = date(2026, 6, 30)) -> Season:
    """The season for ``seed``: deterministic."""
    rng = random.Random(seed)
    levels = spread_levels(HONEST_PLAYERS, seed=seed)
    trader_names = sorted(levels)[:2]  # two regulars become the traders
    levels = {
        TRADERS[trader_names.index(p)] if p in trader_names else p: v for p, v in levels.items()
    }
    levels[SANDBAGGER] = 5.5
    club = club_season(levels, end, weeks=WEEKS, seed=seed)
    matches: list[MatchResult] = list(club.matches)
    start = end - timedelta(days=7 * WEEKS - 1)

    def add(
        day: date, side_a: Sequence[str], side_b: Sequence[str], games: Sequence[tuple[int, int]]
    ) -> None:
        matches.append(MatchResult(day, tuple(side_a), tuple(side_b), tuple(games)))

    close_win = ((21, 19), (19, 21), (22, 20))
    for week in range(12):  # the traders: turn about, close scores
        day = start + timedelta(days=7 * week + 4)
        winner, loser = (TRADERS[0], TRADERS[1]) if week % 2 == 0 else (TRADERS[1], TRADERS[0])
        add(day, (winner,), (loser,), close_win)
    levels[FARMER] = 5.8
    for week in range(WEEKS):  # the farmer's honest side: a weekly game against strong players
        strong = sorted(p for p in club.skills if club.skills[p] >= 5.0)
        opponent = strong[week % len(strong)]
        day = start + timedelta(days=7 * week + 2)
        add(day, (FARMER,), (opponent,), play_match(rng, _p(levels[FARMER] - levels[opponent])))
    for i, alt in enumerate(FARMED):
        levels[alt] = 3.0
        for k in range(FARMED_WINS):
            day = start + timedelta(days=7 * (WEEKS // 2 + k) + 5 + i % 2)
            add(day, (FARMER,), (alt,), play_match(rng, _p(levels[FARMER] - levels[alt])))
    for j, p in enumerate(POOL):
        levels[p] = 3.0 + 0.15 * j
    for week in range(WEEKS):  # the pool: twice a week, among themselves
        for d, (x, y) in enumerate(((0, 1), (2, 3))):
            for shift in (0, 3):
                a, b = POOL[(x + week + shift) % 4], POOL[(y + week) % 4]
                if a == b:
                    b = POOL[(y + week + 1) % 4]
                day = start + timedelta(days=7 * week + 1 + shift + d % 2)
                add(day, (a,), (b,), play_match(rng, _p(levels[a] - levels[b])))

    matches.sort(key=lambda m: m.played_on)
    matches = [
        MatchResult(m.played_on, m.side_a, m.side_b, m.games, None, i)
        for i, m in enumerate(matches, 1)
    ]
    self_levels: dict[str, float | None] = {}
    for p, true_level in sorted(levels.items()):
        if p in FARMED:
            self_levels[p] = None
        elif p in POOL:
            self_levels[p] = 6.0
        elif p == SANDBAGGER:
            self_levels[p] = 3.0
        elif rng.random() < NO_ANSWER:
            self_levels[p] = None
        else:
            self_levels[p] = _self_level(true_level + rng.gauss(0.0, SELF_LEVEL_NOISE))

    params = Params()
    starts = {
        p: initial_state(params, lv, "regular" if lv is not None else None)
        for p, lv in self_levels.items()
    }
    replayer = Replayer(params, BADMINTON_21, starts)
    changes = replayer.rate_all(matches)
    played = []
    for m, change in zip(matches, changes, strict=True):
        winner, margin = margin_of(m.games)
        reporter = m.side_a[0] if rng.random() < 0.5 else m.side_b[0]
        confirmer = (m.side_b if reporter in m.side_a else m.side_a)[0]
        evening = datetime.combine(m.played_on, time(21, 30))
        reported = evening + timedelta(minutes=rng.uniform(0, 26 * 60))
        confirmed = reported + timedelta(minutes=rng.uniform(5, 24 * 60))
        if set(m.side_a + m.side_b) == set(TRADERS):
            confirmed = reported + timedelta(seconds=rng.uniform(5, 40))
        played.append(
            Played(
                id=m.id or 0,
                played_on=m.played_on,
                side_a=m.side_a,
                side_b=m.side_b,
                winner=winner,
                margin=margin,
                before={c.player: c.rating_before for c in change},
                change={c.player: c.change for c in change},
                reporter=reporter,
                reported_at=reported,
                confirmed_by=confirmer,
                confirmed_at=confirmed,
            )
        )
    ratings = {p: s.rating for p, s in replayer.states.items()}
    members = [
        Member(p, p, self_levels[p], ratings.get(p, starts[p].rating)) for p in sorted(levels)
    ]
    planted = set().union(*CASES.values())
    return Season(
        played=played,
        members=members,
        matches=matches,
        levels=levels,
        self_levels=self_levels,
        honest=frozenset(set(levels) - planted),
    )


def _p(gap: float) -> float:
    """The chance to win a rally for a level ``gap`` (the simulation's own slope)."""
    return _logistic(level_slope() * gap)
