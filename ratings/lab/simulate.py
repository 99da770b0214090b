"""The synthetic mode of RATINGS.md §7: players of known skill, matches played rally by rally.

Each player gets a true skill drawn from a standard normal. A match pairs
random players (doubles: four random players, random partners) and is played
point by point under badminton rules (best of 3 games to 21, win by 2, capped
at 30): side A wins each rally with probability
``logistic(RALLY_SLOPE * (skill_A - skill_B))``, a side's skill being its
players' mean. A one-standard-deviation gap wins about 54% of rallies and
three matches in four, about what club players see. In doubles each rally a
side wins is credited to one of its players, chosen with odds ``e^skill``, as
the ``rallies`` stat, so ``performance_weighted`` has real performance to weigh.

Every team method of §5 (and the peers) then rates the same history; the
report gives, per method, Spearman's rank correlation between final rating and
true skill (all players), §7's convergence (median matches until the rating
stays within ±50 of its final value, players with ≥ 10 matches), and the §7
log-loss over the last half. Everything is deterministic for a seed.

A **club season** (``club_season``) is the same rally-by-rally play arranged the way a
club plays: weekly club nights, each member coming most weeks, a few rounds a night,
opponents of about one's own level (as a club-night organiser pairs them) and no
repeat pairing within an evening while another is possible. True levels are on the
ladder's display scale (4.5 is a rating of 4500), and the rally edge per level is
calibrated to the rating scale (``level_slope``), so ratings settle near the true
levels. It is what ``python -m ratings.engine season`` writes in the import format,
and what ``manage.py seed_demo`` plays for the demo club.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache, lru_cache
from typing import Any

from ratings.engine.formats import BADMINTON_21, ScoringFormat, get_format
from ratings.engine.types import MatchResult, Params
from ratings.lab.evaluate import Progress, Trace, metrics, run_online, spearman
from ratings.lab.peers import PEERS, Default, PeerUnavailable, make_peers

#: Rally win probability per unit of skill gap, in logits (see the module docstring).
RALLY_SLOPE = 0.15
#: Badminton to 21: win by 2, capped at 30 (best of 3: ``BADMINTON_21``).
POINTS, WIN_BY, CAP = 21, 2, 30
#: The simulated season's length; matches are spread evenly over it.
SEASON_DAYS = 365
FIRST_DAY = date(2024, 1, 1)
#: The stat credited to doubles players and its weight for performance_weighted.
STAT = "rallies"

DEFAULT_PLAYERS = 100
DEFAULT_MATCHES = 3000
DEFAULT_SEED = 1

#: The rows of the report: a label and the parameters that select the method.
METHODS: tuple[tuple[str, Mapping[str, object]], ...] = (
    ("composite_opponent (mean)", {"team_method": "composite_opponent", "composite_rd": "mean"}),
    (
        "composite_opponent (rms_of_mean)",
        {"team_method": "composite_opponent", "composite_rd": "rms_of_mean"},
    ),
    ("composite_opponent (rms)", {"team_method": "composite_opponent", "composite_rd": "rms"}),
    ("individual", {"team_method": "individual"}),
    ("composite_team", {"team_method": "composite_team"}),
    ("performance_weighted", {"team_method": "performance_weighted"}),
    ("glicko1_team", {"team_method": "glicko1_team"}),
)


@dataclass(frozen=True, slots=True)
class World:
    """A simulated history: each player's true skill and the matches they played."""

    skills: dict[str, float]
    matches: tuple[MatchResult, ...]


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def play_game(
    rng: random.Random,
    p_rally: float,
    points: int = POINTS,
    win_by: int = WIN_BY,
    cap: int | None = CAP,
) -> tuple[int, int]:
    """One game, side A winning each rally with ``p_rally``: to ``points``, ``win_by``
    clear, or the first to ``cap`` (badminton to 21 by default; ``win_by=1, cap=None``
    is a plain race to ``points``, as the generic format's games are)."""
    a = b = 0
    while True:
        if rng.random() < p_rally:
            a += 1
        else:
            b += 1
        high, low = max(a, b), min(a, b)
        if (high >= points and high - low >= win_by) or high == cap:
            return a, b


def game_rules(scoring_format: ScoringFormat) -> tuple[int, int, int | None]:
    """``(points, win_by, cap)`` of one game in ``scoring_format`` (for :func:`play_game`)."""
    if scoring_format.cap is None:
        return scoring_format.points_per_game, 1, None
    return scoring_format.points_per_game, WIN_BY, scoring_format.cap


def play_match(
    rng: random.Random, p_rally: float, scoring_format: ScoringFormat = BADMINTON_21
) -> tuple[tuple[int, int], ...]:
    """A whole match in ``scoring_format`` (best of 3 games to 21 by default)."""
    rules = game_rules(scoring_format)
    games: list[tuple[int, int]] = []
    won_a = won_b = 0
    while max(won_a, won_b) < scoring_format.games_to_win:
        a, b = play_game(rng, p_rally, *rules)
        games.append((a, b))
        if a > b:
            won_a += 1
        else:
            won_b += 1
    return tuple(games)


def make_world(players: int, matches: int, team_size: int, seed: int) -> World:
    """A deterministic synthetic history of ``matches`` among ``players``."""
    if players < 2 * team_size:
        raise ValueError(f"{team_size}v{team_size} needs at least {2 * team_size} players")
    rng = random.Random(seed)
    names = [f"P{i:04d}" for i in range(players)]
    skills = {name: rng.gauss(0.0, 1.0) for name in names}
    history = []
    for i in range(matches):
        drawn = rng.sample(names, 2 * team_size)
        side_a, side_b = tuple(drawn[:team_size]), tuple(drawn[team_size:])
        gap = (
            sum(skills[p] for p in side_a) / team_size - sum(skills[p] for p in side_b) / team_size
        )
        games = play_match(rng, _logistic(RALLY_SLOPE * gap))
        stats = _rally_stats(rng, side_a, side_b, games, skills) if team_size > 1 else None
        history.append(
            MatchResult(
                played_on=FIRST_DAY + timedelta(days=i * SEASON_DAYS // max(matches, 1)),
                side_a=side_a,
                side_b=side_b,
                games=games,
                stats=stats,
                id=i + 1,
            )
        )
    return World(skills=skills, matches=tuple(history))


# -- a club season ------------------------------------------------------------------

#: Rating points per level of the display scale (4.5 is 4500).
POINTS_PER_LEVEL = 1000.0
#: The level gap at which ``level_slope`` matches the rating scale: about the gap
#: between neighbours on a club ladder, where most club-night matches are played.
CALIBRATION_GAP = 0.2
#: How far off a club-night organiser's idea of a player's level is, in levels: pairs
#: are made from these guesses, so opponents are near one's level but vary.
PAIRING_NOISE = 0.3
#: Steps of the search for a round without a repeat pairing before plain neighbours do.
PAIRING_SEARCH_STEPS = 5000
#: Bisection steps of ``level_slope`` (the slope is found to well under 1e-9).
_BISECTION_STEPS = 60

CLUB_DEFAULT_PLAYERS = 18
CLUB_DEFAULT_WEEKS = 12
CLUB_DEFAULT_SPREAD = 1.1
CLUB_DEFAULT_CENTRE = 4.5
CLUB_DEFAULT_ATTENDANCE = 0.8
CLUB_DEFAULT_ROUNDS = 4
#: Tuesday (date.weekday()).
CLUB_DEFAULT_NIGHTS = (1,)

Lineup = tuple[tuple[str, ...], tuple[str, ...]]


def game_win_probability(p_rally: float, scoring_format: ScoringFormat = BADMINTON_21) -> float:
    """Exact chance that side A wins one game of ``scoring_format``, rally edge ``p_rally``."""
    points, win_by, cap = game_rules(scoring_format)

    @cache
    def from_score(a: int, b: int) -> float:
        high = max(a, b)
        if (high >= points and abs(a - b) >= win_by) or high == cap:
            return 1.0 if a > b else 0.0
        return p_rally * from_score(a + 1, b) + (1 - p_rally) * from_score(a, b + 1)

    return from_score(0, 0)


def match_win_probability(p_rally: float, scoring_format: ScoringFormat = BADMINTON_21) -> float:
    """Exact chance that side A wins a match of ``scoring_format``, rally edge ``p_rally``."""
    g, need = game_win_probability(p_rally, scoring_format), scoring_format.games_to_win
    return sum(math.comb(need - 1 + lost, lost) * g**need * (1 - g) ** lost for lost in range(need))


@lru_cache(maxsize=32)
def level_slope(scoring_format: ScoringFormat = BADMINTON_21, scale_factor: float = 400.0) -> float:
    """Rally edge per level of true-level gap, in logits, such that a match between sides
    ``CALIBRATION_GAP`` levels apart is won as often as RATINGS.md §3 expects for that gap
    in rating points: true levels and ratings then share one scale (about 0.7 for
    badminton to 21, where one level is two rallies in three)."""
    gap_points = CALIBRATION_GAP * POINTS_PER_LEVEL
    target = 1.0 / (1.0 + 10 ** (-gap_points / scale_factor))
    low, high = 0.0, 20.0
    for _ in range(_BISECTION_STEPS):
        mid = (low + high) / 2
        won = match_win_probability(_logistic(mid * CALIBRATION_GAP), scoring_format)
        low, high = (mid, high) if won < target else (low, mid)
    return (low + high) / 2


def spread_levels(
    players: int,
    centre: float = CLUB_DEFAULT_CENTRE,
    spread: float = CLUB_DEFAULT_SPREAD,
    seed: int = DEFAULT_SEED,
) -> dict[str, float]:
    """``players`` named P01, P02, ... with true levels evenly from ``centre - spread`` to
    ``centre + spread``, dealt to the names in a random (seeded) order."""
    if players < 2:
        raise ValueError("a club season needs at least 2 players")
    steps = [centre + spread * (2 * i / (players - 1) - 1) for i in range(players)]
    random.Random(seed).shuffle(steps)
    width = max(2, len(str(players)))
    return {f"P{i + 1:0{width}d}": round(level, 3) for i, level in enumerate(steps)}


def club_night(
    rng: random.Random,
    present: Sequence[str],
    levels: Mapping[str, float],
    team_size: int = 1,
    rounds: int = CLUB_DEFAULT_ROUNDS,
    pairing_noise: float = PAIRING_NOISE,
) -> list[Lineup]:
    """One evening's lineups, round by round: each round the organiser sorts the players
    by a guess of their level and sets near neighbours against each other, two sides of
    about equal strength; those who played most tonight sit out when numbers are odd.
    Opponents already met tonight are avoided while another near one is free."""
    per_match = 2 * team_size
    played = dict.fromkeys(present, 0)
    met: set[frozenset[str]] = set()
    lineups: list[Lineup] = []
    for _ in range(rounds):
        playing_count = len(present) // per_match * per_match
        if playing_count == 0:
            break
        # The bench: who played most tonight (ties drawn at random).
        order = sorted(present, key=lambda p: (played[p], rng.random()))
        playing = order[:playing_count]
        guess = {p: levels[p] + rng.gauss(0.0, pairing_noise) for p in playing}
        playing.sort(key=guess.__getitem__)
        for group in _groups(playing, per_match, met):
            side_a, side_b = _balanced_sides(group, guess)
            if rng.random() < 0.5:
                side_a, side_b = side_b, side_a
            lineups.append((side_a, side_b))
            met.update(frozenset((p, q)) for p in side_a for q in side_b)
            for p in group:
                played[p] += 1
    return lineups


def _groups(ranked: list[str], size: int, met: set[frozenset[str]]) -> list[list[str]]:
    """Consecutive groups of ``size`` from players sorted by level. In singles (groups of
    two) each player meets the nearest player not met tonight, while such a pairing of
    everyone exists (a short search, nearest first); otherwise plain neighbours."""
    if size > 2:
        return [ranked[i : i + size] for i in range(0, len(ranked), size)]
    budget = [PAIRING_SEARCH_STEPS]

    def pair_up(rest: list[str]) -> list[list[str]] | None:
        if not rest:
            return []
        first, others = rest[0], rest[1:]
        for other in others:
            budget[0] -= 1
            if budget[0] < 0:
                return None
            if frozenset((first, other)) in met:
                continue
            tail = pair_up([p for p in others if p != other])
            if tail is not None:
                return [[first, other], *tail]
        return None

    fresh = pair_up(ranked)
    return fresh if fresh is not None else [ranked[i : i + 2] for i in range(0, len(ranked), 2)]


def _balanced_sides(group: list[str], guess: Mapping[str, float]) -> Lineup:
    """Two sides from a group sorted by level: the organiser's snake draft (A B B A A B ...),
    so in doubles the best and the weakest of the four pair up against the middle two."""
    if len(group) == 2:
        return (group[0],), (group[1],)
    ordered = sorted(group, key=guess.__getitem__, reverse=True)
    side_a: list[str] = []
    side_b: list[str] = []
    for i, player in enumerate(ordered):
        (side_a if i % 4 in (0, 3) else side_b).append(player)
    return tuple(side_a), tuple(side_b)


def club_season(
    levels: Mapping[str, float],
    end: date,
    weeks: int = CLUB_DEFAULT_WEEKS,
    team_size: int = 1,
    scoring_format: ScoringFormat = BADMINTON_21,
    nights: Sequence[int] = CLUB_DEFAULT_NIGHTS,
    rounds: int = CLUB_DEFAULT_ROUNDS,
    attendance: float | Mapping[str, float] = CLUB_DEFAULT_ATTENDANCE,
    seed: int = DEFAULT_SEED,
    scale_factor: float = 400.0,
    pairing_noise: float = PAIRING_NOISE,
    rally_slope: float | None = None,
) -> World:
    """Club nights on the weekdays ``nights`` (0 = Monday) over the ``weeks`` weeks that end
    on ``end`` (included): who came (each player with their ``attendance`` chance), who
    played whom (:func:`club_night`), and every match played rally by rally from the true
    ``levels`` (display scale) in ``scoring_format``. Deterministic for a seed; matches
    are in play order, ids 1, 2, ..."""
    if len(levels) < 2 * team_size:
        raise ValueError(f"{team_size}v{team_size} needs at least {2 * team_size} players")
    rng = random.Random(seed)
    slope = level_slope(scoring_format, scale_factor) if rally_slope is None else rally_slope
    players = sorted(levels)
    chance = (
        dict.fromkeys(players, attendance)
        if isinstance(attendance, int | float)
        else {p: attendance[p] for p in players}
    )
    history: list[MatchResult] = []
    day = end - timedelta(days=7 * weeks - 1)
    while day <= end:
        if day.weekday() in nights:
            present = [p for p in players if rng.random() < chance[p]]
            lineups = club_night(rng, present, levels, team_size, rounds, pairing_noise)
            for side_a, side_b in lineups:
                gap = _mean(levels, side_a) - _mean(levels, side_b)
                games = play_match(rng, _logistic(slope * gap), scoring_format)
                history.append(
                    MatchResult(day, side_a, side_b, games, stats=None, id=len(history) + 1)
                )
        day += timedelta(days=1)
    return World(skills=dict(levels), matches=tuple(history))


def _mean(levels: Mapping[str, float], side: Sequence[str]) -> float:
    return sum(levels[p] for p in side) / len(side)


def _rally_stats(
    rng: random.Random,
    side_a: Sequence[str],
    side_b: Sequence[str],
    games: Sequence[tuple[int, int]],
    skills: dict[str, float],
) -> dict[str, dict[str, float]]:
    """Credit each side's rallies to its players, the stronger more often."""
    stats: dict[str, dict[str, float]] = {}
    for side, won in ((side_a, sum(a for a, _ in games)), (side_b, sum(b for _, b in games))):
        odds = [math.exp(skills[p]) for p in side]
        counts = dict.fromkeys(side, 0)
        for player in rng.choices(list(side), weights=odds, k=won):
            counts[player] += 1
        stats.update({p: {STAT: float(c)} for p, c in counts.items()})
    return stats


def _score(trace: Trace, skills: dict[str, float]) -> dict[str, float | None]:
    scores = metrics(trace)
    players = sorted(trace.trajectories)
    return {
        "spearman_true": spearman(
            [trace.trajectories[p][-1] for p in players], [skills[p] for p in players]
        ),
        "convergence": scores["convergence"],
        "logloss": scores["logloss"],
    }


def simulate(
    players: int = DEFAULT_PLAYERS,
    matches: int = DEFAULT_MATCHES,
    seed: int = DEFAULT_SEED,
    params: Params | None = None,
    modes: Iterable[str] = ("singles", "doubles"),
    peers: Iterable[str] = PEERS,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Play a synthetic season per mode and rate it with every team method and peer.

    Returns ``{"players", "matches", "seed", "singles": {row: scores}, "doubles": {...}}``
    where scores are ``spearman_true``, ``convergence`` and ``logloss``.
    """
    base = params or Params()
    fmt = get_format("badminton_21")
    out: dict[str, Any] = {"players": players, "matches": matches, "seed": seed}
    for mode in modes:
        team_size = {"singles": 1, "doubles": 2}[mode]
        world = make_world(players, matches, team_size, seed)
        rows: dict[str, dict[str, float | None]] = {}
        for label, overrides in METHODS:
            if overrides["team_method"] == "performance_weighted":
                overrides = {**overrides, "stat_weights": {STAT: 1.0}}
            system = Default(base.with_overrides(**overrides), fmt, name=label)
            rows[label] = _score(run_online(world.matches, system, progress=progress), world.skills)
        for name, peer in make_peers(peers).items():
            if isinstance(peer, PeerUnavailable):
                rows[name] = {"spearman_true": None, "convergence": None, "logloss": None}
            else:
                rows[name] = _score(
                    run_online(world.matches, peer, progress=progress), world.skills
                )
        out[mode] = rows
    return out


def work_size(matches: int, modes: int = 2, peers: int = len(PEERS)) -> int:
    """How many match ratings :func:`simulate` does (the length of its progress bar)."""
    return matches * modes * (len(METHODS) + peers)


def format_simulation(result: dict[str, Any]) -> str:
    """Markdown tables, one per mode."""
    parts = [
        f"{result['players']} players, {result['matches']} matches per mode, seed {result['seed']}."
    ]
    for mode in ("singles", "doubles"):
        if mode not in result:
            continue
        rows = [
            f"### {mode}",
            "",
            "| method | Spearman vs true skill | convergence | log-loss |",
            "| --- | --- | --- | --- |",
        ]
        for label, s in result[mode].items():
            if s["spearman_true"] is None and s["logloss"] is None:
                rows.append(f"| {label} | unavailable | | |")
                continue
            rows.append(
                f"| {label} | {_fmt(s['spearman_true'])} | {_fmt(s['convergence'], 'g')} "
                f"| {_fmt(s['logloss'])} |"
            )
        parts.append("\n".join(rows))
    return "\n\n".join(parts)


def _fmt(value: float | None, spec: str = ".4f") -> str:
    return "n/a" if value is None else format(value, spec)
