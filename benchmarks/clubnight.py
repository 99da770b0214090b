"""Club night proposal time: `python benchmarks/clubnight.py`.

For 12, 40 and 100 present players, singles and doubles: the time `ladder.clubnight.propose`
takes for a first round and for a next round (one round already played tonight, and a
lookback window with ~3 earlier matches per player), over several random halls (ratings
3.00–7.00, RD 60–250, 0–40 ladder games). Reports the median and the worst wall
time, the median and worst CPU time of this process (unaffected by other work on the
machine), the search used, the mean Q of the proposed rounds and, for comparison, of random rounds
of the same halls. Prints a markdown table for docs/BENCHMARKS.md; `--halls` changes
the number of halls per size (default 10).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# ladder.clubnight also holds the site's service, so Django is set up (no database is used).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")
os.environ.setdefault("DEBUG", "1")  # a local measurement: development settings
import django  # noqa: E402

django.setup()

from ladder.clubnight.matchmaking import History, Pairing, Present, propose  # noqa: E402
from ratings.engine.predict import match_quality  # noqa: E402
from ratings.engine.types import Params, PlayerState  # noqa: E402

SIZES = (12, 40, 100)
TARGET_SECONDS = {40: 1.0}


def make_hall(n: int, team_size: int, seed: int) -> tuple[list[Present], History]:
    rng = random.Random(seed)
    players = [
        Present(
            id=f"p{i:03d}",
            name=f"Player {i}",
            state=PlayerState(rng.uniform(3000, 7000), rng.uniform(60, 250), 0.06),
            games=rng.randint(0, 40),
        )
        for i in range(n)
    ]
    ids = [p.id for p in players]
    pairings = []
    for _ in range(3 * n // (2 * team_size)):
        chosen = rng.sample(ids, 2 * team_size)
        pairings.append((tuple(chosen[:team_size]), tuple(chosen[team_size:])))
    return players, History.from_pairings(pairings)


@dataclass(frozen=True)
class Result:
    median: float
    worst: float
    cpu: float
    worst_cpu: float
    search: str
    quality: float
    random_quality: float


def measure(n: int, team_size: int, halls: int) -> Result:
    params = Params()
    walls: list[float] = []
    cpus: list[float] = []
    qualities: list[float] = []
    exact: set[bool] = set()
    baseline: list[float] = []
    for seed in range(halls):
        players, history = make_hall(n, team_size, seed)
        baseline.append(random_quality(players, team_size, params, random.Random(seed)))
        previous: list[tuple[Pairing, ...]] = []
        for _ in range(2):  # a first round, then the next one
            wall, cpu = time.perf_counter(), time.process_time()
            rnd = propose(players, team_size, params, history=history, previous_rounds=previous)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            qualities.append(rnd.mean_quality)
            exact.add(rnd.exact)
            previous.append(rnd.pairings)
    return Result(
        median=statistics.median(walls),
        worst=max(walls),
        cpu=statistics.median(cpus),
        worst_cpu=max(cpus),
        search="exact" if exact == {True} else "heuristic",
        quality=statistics.mean(qualities),
        random_quality=statistics.mean(baseline),
    )


def random_quality(
    players: list[Present], team_size: int, params: Params, rng: random.Random, rounds: int = 50
) -> float:
    """Mean Q of random rounds of the same hall (the baseline a proposal should beat)."""
    size = 2 * team_size
    values = []
    for _ in range(rounds):
        order = players[:]
        rng.shuffle(order)
        for k in range(0, len(order) - size + 1, size):
            a = [p.state for p in order[k : k + team_size]]
            b = [p.state for p in order[k + team_size : k + size]]
            values.append(match_quality(a, b, params))
    return statistics.mean(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--halls", type=int, default=10, help="random halls per size")
    args = parser.parse_args()
    print(
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f}; {args.halls} halls x 2 rounds per row"
    )
    print()
    print(
        "| present | team | search | median | worst | median CPU | worst CPU "
        "| mean Q | random Q | target |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for team_size in (1, 2):
        for n in SIZES:
            r = measure(n, team_size, args.halls)
            target = TARGET_SECONDS.get(n)
            print(
                f"| {n} | {'singles' if team_size == 1 else 'doubles'} | {r.search} "
                f"| {r.median * 1000:.0f} ms | {r.worst * 1000:.0f} ms "
                f"| {r.cpu * 1000:.0f} ms | {r.worst_cpu * 1000:.0f} ms "
                f"| {r.quality:.3f} | {r.random_quality:.3f} "
                f"| {f'≤ {target:.0f} s' if target else ''} |"
            )


if __name__ == "__main__":
    main()
