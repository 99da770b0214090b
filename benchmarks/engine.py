"""Rating engine benchmarks, all measured in one run: `python benchmarks/engine.py`.

1. One player's Glicko-2 update: ours in pure Python (`ratings.engine.glicko2.update`)
   and in C (`ratings.engine._native.update_one`, called from Python) against the PyPI
   `glicko2` package's `Player.update_player` (speed only, same inputs).
2. A replay of 1,000,000 singles matches among 10,000 players with full context:
   each player meets a neighbourhood of ~40 players over two years, so repeat
   opponents (repetition weight), opponent variety (diversity gate) and gaps
   between matches (inactivity) all come into play. `Replayer.rate_all` with the C
   module (`_native`), then the same in pure Python (`use_native = False`); both
   build every PlayerChange, and their final states must be equal.
3. `tune` over 240 settings on bwf_mens_singles_2018_2021.csv (2 processes).

Prints a markdown table (copy it into docs/BENCHMARKS.md). `--matches`,
`--players` and `--budget` shrink the work for a quick look; `--no-pure` skips the
pure-Python replay.
"""

from __future__ import annotations

import argparse
import gc
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
from ratings.engine.replay import NATIVE, Replayer  # noqa: E402
from ratings.engine.types import Match, Params, PlayerChange  # noqa: E402
from ratings.lab.importfmt import parse_matches  # noqa: E402
from ratings.lab.simulate import play_match  # noqa: E402
from ratings.lab.tune import tune  # noqa: E402

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


def time_native_update(n: int) -> float | None:
    if NATIVE is None:
        return None
    constants = (
        glicko2.THREE_OVER_PI_SQUARED,
        glicko2.VOLATILITY_EPSILON,
        glicko2.MAX_VOLATILITY_ITERATIONS,
        glicko2.MAX_BRACKET_STEPS,
    )

    def run() -> float:
        mu, phi, sigma = 0.0, 200 / 173.7178, 0.06
        opp_mu, opp_phi = 100 / 173.7178, 150 / 173.7178
        update = NATIVE.update_one
        start = time.perf_counter()
        for i in range(n):
            mu, phi, sigma, _ = update(
                mu, phi, sigma, opp_mu, opp_phi, float(i & 1), 1.0, 0.5, 1.0, True, *constants
            )
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


def time_replay(history: list[Match], native: bool) -> tuple[float, Replayer, list]:  # type: ignore[type-arg]
    """Seconds for `Replayer.rate_all` over the whole history (every PlayerChange built)."""
    replayer = Replayer(Params(), get_format("badminton_21"))
    replayer.use_native = native
    gc.collect()
    start = time.perf_counter()
    changes: list[tuple[PlayerChange, ...]] = replayer.rate_all(history)
    return time.perf_counter() - start, replayer, changes


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
    parser.add_argument("--no-pure", action="store_true", help="skip the pure-Python replay")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]

    ours = time_our_update(UPDATES)
    ours_c = time_native_update(UPDATES)
    theirs = time_pypi_update(UPDATES // 4)

    history = synthetic_history(args.matches, args.players)
    tail = min(len(history) // 2, 100_000)
    native_seconds = pure_seconds = None
    if NATIVE is not None:
        native_seconds, replayer, changes = time_replay(history, native=True)
        native_states = dict(replayer.states)
        context = context_share(changes[-tail:])
        del changes
    if not args.no_pure:
        pure_seconds, replayer, changes = time_replay(history, native=False)
        if NATIVE is None:
            context = context_share(changes[-tail:])
        elif dict(replayer.states) != native_states:
            raise SystemExit("native and pure-Python replays disagree")
        del changes
    del history

    tune_seconds, tuned = time_tune(args.budget)

    def per_update(seconds: float | None) -> str:
        return "n/a" if seconds is None else f"{seconds * 1e6:.2f} µs"

    def ratio(slow: float | None, fast: float | None) -> str:
        return "n/a" if slow is None or fast is None else f"{slow / fast:.1f}x"

    def replay_time(seconds: float | None, why: str) -> str:
        if seconds is None:
            return why
        return f"{seconds:.2f} s ({seconds / args.matches * 1e6:.2f} µs/match)"

    replay_label = f"replay {args.matches:,} singles matches, {args.players:,} players"
    rows = [
        ("measure", "result", "target"),
        ("---", "---", "---"),
        ("our Glicko-2 update (one opponent), pure Python", per_update(ours), ""),
        ("our Glicko-2 update (one opponent), C via `_native`", per_update(ours_c), ""),
        (
            "PyPI `glicko2` `Player.update_player`",
            "not installed" if theirs is None else per_update(theirs),
            "",
        ),
        ("speed-up (PyPI time / ours), pure Python", ratio(theirs, ours), "≥ 2x"),
        ("speed-up (PyPI time / ours), C", ratio(theirs, ours_c), "≥ 2x"),
        (
            f"{replay_label}, C (`rate_all`, native)",
            replay_time(native_seconds, "not built"),
            "≤ 10 s for 1,000,000",
        ),
        (
            f"{replay_label}, pure Python (`rate_all`)",
            replay_time(pure_seconds, "skipped"),
            "≤ 10 s for 1,000,000",
        ),
        ("replay speed-up (pure Python / C)", ratio(pure_seconds, native_seconds), ""),
        (
            f"`tune` on the BWF file, {args.budget} settings, 2 processes",
            f"{tune_seconds:.1f} s",
            "≤ 30 s for ≥ 200",
        ),
    ]
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs ({platform.processor() or platform.platform()}); "
        f"C module ratings.engine._native {'built' if NATIVE is not None else 'NOT built'}; "
        f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after\n"
    )
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(
        f"\nreplay: {args.players:,} players; "
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
