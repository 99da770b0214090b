"""Rating engine benchmarks, all measured in one run: `python benchmarks/engine.py`.

1. One player's Glicko-2 update: ours (`ratings.engine.glicko2.update`) against the
   PyPI `glicko2` package's `Player.update_player` (speed only, same inputs).
2. A replay of 1,000,000 singles matches among 10,000 players with full context:
   each player meets a neighbourhood of ~40 players over two years, so repeat
   opponents (repetition weight), opponent variety (diversity gate) and gaps
   between matches (inactivity) all come into play.
3. `tune` over 240 settings on bwf_mens_singles_2018_2021.csv (2 processes).

Prints a markdown table (copy it into docs/BENCHMARKS.md). `--matches`,
`--players` and `--budget` shrink the work for a quick look.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import sys
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ratings.engine import glicko2  # noqa: E402
from ratings.engine.formats import get_format  # noqa: E402
from ratings.engine.importfmt import parse_matches  # noqa: E402
from ratings.engine.replay import Replayer  # noqa: E402
from ratings.engine.simulate import play_match  # noqa: E402
from ratings.engine.tune import tune  # noqa: E402
from ratings.engine.types import Match, Params, PlayerChange  # noqa: E402

BWF = ROOT / "tests" / "data" / "bwf_mens_singles_2018_2021.csv"
UPDATES = 200_000
#: Each player's opponents come from the next this-many players (wrapping round).
NEIGHBOURHOOD = 20
SEASON_DAYS = 730
#: Distinct score lines drawn per result (real ladders repeat score lines a lot too).
SCORE_LINES = 4000


def best_of(runs: int, fn) -> float:  # type: ignore[no-untyped-def]
    """The fastest of a few runs: the least disturbed by other work on the machine."""
    return min(fn() for _ in range(runs))


def time_our_update(n: int) -> float:
    def run() -> float:
        mu, phi, sigma = 0.0, 200 / 173.7178, 0.06
        opp_mu, opp_phi = 100 / 173.7178, 150 / 173.7178
        update = glicko2.update
        start = time.perf_counter()
        for i in range(n):
            mu, phi, sigma = update(mu, phi, sigma, ((opp_mu, opp_phi, float(i & 1), 1.0),), 0.5)
        return (time.perf_counter() - start) / n

    return best_of(3, run)


def time_pypi_update(n: int) -> float | None:
    try:
        from glicko2 import glicko2 as pypi
    except ImportError:
        return None

    def run() -> float:
        player = pypi.Player(rating=1500, rd=200, vol=0.06)
        update = player.update_player
        start = time.perf_counter()
        for i in range(n):
            update([1600], [150], [i & 1])
        return (time.perf_counter() - start) / n

    return best_of(3, run)


def synthetic_history(matches: int, players: int, seed: int = 1) -> list[Match]:
    """Singles among `players` of normal skill; scores played rally by rally (pooled)."""
    rng = random.Random(seed)
    skills = [rng.gauss(0.0, 1.0) for _ in range(players)]
    names = [f"player{i:05d}" for i in range(players)]
    # A pool of real-looking score lines per side of the result, from close to lopsided.
    lines = [play_match(rng, 0.44 + 0.12 * rng.random()) for _ in range(SCORE_LINES)]
    won = [g for g in lines if sum(a > b for a, b in g) >= 2]
    lost = [g for g in lines if sum(a > b for a, b in g) < 2]
    first = date(2023, 1, 1)
    history = []
    for i in range(matches):
        a = rng.randrange(players)
        b = (a + 1 + rng.randrange(NEIGHBOURHOOD)) % players
        p = 1.0 / (1.0 + math.exp(-(skills[a] - skills[b])))
        games = rng.choice(won) if rng.random() < p else rng.choice(lost)
        day = first + timedelta(days=i * SEASON_DAYS // matches)
        history.append(Match(day, (names[a],), (names[b],), games, id=i + 1))
    return history


def time_replay(history: list[Match], tail: int) -> tuple[float, Replayer, list]:  # type: ignore[type-arg]
    """Seconds to rate the whole history; also the changes of its last `tail` matches."""
    replayer = Replayer(Params(), get_format("badminton_21"))
    rate = replayer.rate
    split = len(history) - tail
    kept: list[tuple[PlayerChange, ...]] = []
    keep = kept.append
    start = time.perf_counter()
    for match in history[:split]:
        rate(match)
    for match in history[split:]:
        keep(rate(match))
    return time.perf_counter() - start, replayer, kept


def context_share(changes: list) -> dict[str, float]:  # type: ignore[type-arg]
    """How often the context rules applied, to show the replay exercised them."""
    last_rd: dict[str, float] = {}
    repeated = closed = inflated = total = 0
    for match_changes in changes:
        for change in match_changes:
            total += 1
            repeated += change.repetition_weight < 1.0
            closed += not change.gate_open
            inflated += change.rd_before > last_rd.get(change.player, math.inf)
            last_rd[change.player] = change.rd_after
    return {
        "repeat opponent": repeated / total,
        "diversity gate closed": closed / total,
        "RD grown for inactivity": inflated / total,
    }


def time_tune(budget: int) -> tuple[float, dict]:  # type: ignore[type-arg]
    fmt = get_format("badminton_21")
    matches = parse_matches(BWF.read_text(encoding="utf-8"), fmt)
    start = time.perf_counter()
    result = tune(matches, Params(), fmt, budget=budget, workers=2)
    return time.perf_counter() - start, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--budget", type=int, default=240)
    args = parser.parse_args(argv)

    ours = time_our_update(UPDATES)
    theirs = time_pypi_update(UPDATES // 4)

    history = synthetic_history(args.matches, args.players)
    tail = min(len(history) // 2, 100_000)
    replay_seconds, replayer, last_changes = time_replay(history, tail)
    context = context_share(last_changes)
    del history, last_changes

    tune_seconds, tuned = time_tune(args.budget)

    rows = [
        ("measure", "result", "target"),
        ("---", "---", "---"),
        ("our Glicko-2 update (one opponent)", f"{ours * 1e6:.2f} µs", ""),
        (
            "PyPI `glicko2` `Player.update_player`",
            "not installed" if theirs is None else f"{theirs * 1e6:.2f} µs",
            "",
        ),
        (
            "speed-up (PyPI time / ours)",
            "n/a" if theirs is None else f"{theirs / ours:.1f}x",
            "≥ 2x",
        ),
        (
            f"replay {args.matches:,} singles matches, {args.players:,} players",
            f"{replay_seconds:.1f} s ({replay_seconds / args.matches * 1e6:.1f} µs/match)",
            "≤ 10 s for 1,000,000",
        ),
        (
            f"`tune` on the BWF file, {args.budget} settings, 2 processes",
            f"{tune_seconds:.1f} s",
            "≤ 30 s for ≥ 200",
        ),
    ]
    compiled = not glicko2.__file__.endswith(".py")
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs ({platform.processor() or platform.platform()}); "
        f"glicko2 {'compiled (build-native)' if compiled else 'pure Python'}\n"
    )
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(
        f"\nreplay: {len(replayer.states):,} players rated; "
        f"tuned held-out log-loss {tuned['test']['tuned']['logloss']:.4f}"
    )
    print(
        f"context in the replay's last {tail:,} matches: "
        + ", ".join(f"{name} {share:.1%}" for name, share in context.items())
        + " of player updates"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
