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
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from ratings.engine.evaluate import Progress, Trace, metrics, run_online, spearman
from ratings.engine.formats import get_format
from ratings.engine.peers import PEERS, Default, PeerUnavailable, make_peers
from ratings.engine.types import Match, Params

#: Rally win probability per unit of skill gap, in logits (see the module docstring).
RALLY_SLOPE = 0.15
#: Badminton to 21: win by 2, capped at 30; best of 3.
POINTS, WIN_BY, CAP, GAMES_TO_WIN = 21, 2, 30, 2
#: The simulated season's length; matches are spread evenly over it.
SEASON_DAYS = 365
FIRST_DAY = date(2024, 1, 1)
#: The stat credited to doubles players and its weight for performance_weighted.
STAT = "rallies"

DEFAULT_PLAYERS = 100
DEFAULT_MATCHES = 3000
DEFAULT_SEED = 1

#: The rows of the report: a label and the parameters that select the method.
METHODS: tuple[tuple[str, dict[str, Any]], ...] = (
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
    matches: tuple[Match, ...]


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def play_game(rng: random.Random, p_rally: float) -> tuple[int, int]:
    """One game to 21 (win by 2, capped at 30), side A winning each rally with ``p_rally``."""
    a = b = 0
    while True:
        if rng.random() < p_rally:
            a += 1
        else:
            b += 1
        high, low = max(a, b), min(a, b)
        if (high >= POINTS and high - low >= WIN_BY) or high == CAP:
            return a, b


def play_match(rng: random.Random, p_rally: float) -> tuple[tuple[int, int], ...]:
    """Best of 3 games."""
    games: list[tuple[int, int]] = []
    won_a = won_b = 0
    while won_a < GAMES_TO_WIN and won_b < GAMES_TO_WIN:
        a, b = play_game(rng, p_rally)
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
            Match(
                played_on=FIRST_DAY + timedelta(days=i * SEASON_DAYS // max(matches, 1)),
                side_a=side_a,
                side_b=side_b,
                games=games,
                stats=stats,
                id=i + 1,
            )
        )
    return World(skills=skills, matches=tuple(history))


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
