"""Rating engine benchmarks, all measured in one run: `python benchmarks/engine.py`.

1. One player's Glicko-2 update: ours (`ratings.engine.glicko2.update`, the C kernel called
   from Python) against the PyPI `glicko2` package's `Player.update_player` (speed only,
   same inputs).
2. A replay of 1,000,000 singles matches among 10,000 players with full context: each
   player meets a neighbourhood of ~40 players over two years, so repeat opponents
   (repetition weight), opponent variety (diversity gate) and gaps between matches
   (inactivity) all come into play. The replay is timed from the list of MatchResult to
   the Replayer's final states: `replay.encode` (the history in columns) and
   `Replayer.rate_history` (the changes in columns, PlayerChange built only when asked
   for), beside `_native.plain_loop`: the same arithmetic (steps 1, 4 and 7 on the same
   windows, the same kernel) as a plain C loop over arrays built before its clock starts,
   no Python object in or out. Issue 14's target: the replay within 2x of the plain loop.
   The encoding is also timed alone, and `Replayer.rate_all` (every PlayerChange built)
   once for comparison.
3. The same for doubles (every team method; 2 v 2 from 4 neighbours), target within 3x.
4. `tune` on a 24,000-match doubles history (2 processes; target under 60 s) and on
   bwf_mens_singles_2018_2021.csv.
5. `python -m ratings.engine rate FILE.csv` on 200,000 singles rows (issue 27), the whole
   command in a child process (CPU seconds: interpreter start, reading and checking the
   file, the replay, the output) against `_native.plain_loop` over the same matches; target
   within 10x.

`--sections rate,tune,...` runs only some of them (update, singles, doubles, tune, rate).

Prints a markdown table (copy it into docs/BENCHMARKS.md). `--matches`, `--players`,
`--doubles` and `--budget` shrink the work for a quick look.
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
from array import array
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ratings.engine import _native, glicko2  # noqa: E402
from ratings.engine.formats import get_format  # noqa: E402
from ratings.engine.replay import Replayer, encode  # noqa: E402
from ratings.engine.scales import rd_ceiling  # noqa: E402
from ratings.engine.teams import native_rules  # noqa: E402
from ratings.engine.types import MatchResult, Params, PlayerChange  # noqa: E402
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
        start = time.thread_time()
        for i in range(n):
            mu, phi, sigma = update(mu, phi, sigma, ((opp_mu, opp_phi, float(i & 1), 1.0),), 0.5)
        return (time.thread_time() - start) / n

    return best_of(3, run)


def time_pypi_update(n: int) -> float | None:
    try:
        from glicko2 import glicko2 as pypi
    except ImportError:
        return None

    def run() -> float:
        player = pypi.Player(rating=1500, rd=200, vol=0.06)
        update = player.update_player
        start = time.thread_time()
        for i in range(n):
            update([1600], [150], [i & 1])
        return (time.thread_time() - start) / n

    return best_of(3, run)


def synthetic_history(
    matches: int, players: int, seed: int = 1, team: int = 1
) -> list[MatchResult]:
    """Matches among `players` of normal skill; scores played rally by rally (pooled).

    Singles: a player against one of the next NEIGHBOURHOOD players. Teams: `2 * team`
    players from one neighbourhood, split into two sides at random.
    """
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
        if team == 1:
            side_a, side_b = [a], [(a + 1 + rng.randrange(NEIGHBOURHOOD)) % players]
        else:
            others = rng.sample(range(1, NEIGHBOURHOOD + 1), 2 * team - 1)
            picked = [a, *((a + k) % players for k in others)]
            rng.shuffle(picked)
            side_a, side_b = picked[:team], picked[team:]
        gap = sum(skills[x] for x in side_a) / team - sum(skills[x] for x in side_b) / team
        p = 1.0 / (1.0 + math.exp(-gap))
        games = rng.choice(won) if rng.random() < p else rng.choice(lost)
        day = first + timedelta(days=i * SEASON_DAYS // matches)
        history.append(
            MatchResult(
                day,
                tuple(names[x] for x in side_a),
                tuple(names[x] for x in side_b),
                games,
                id=i + 1,
            )
        )
    return history


def time_replay(
    history: list[MatchResult], params: Params
) -> tuple[float, float, Replayer, Sequence[tuple[PlayerChange, ...]]]:
    """CPU seconds for encoding the history and rating it (`encode` + `rate_history`),
    and of that for the encoding alone.

    Everything a caller holding the matches does to get every change and the final
    states: encode, validate each distinct score line, rate, and write the players'
    states and windows back to the Replayer (the changes stay in columns; indexing them
    builds PlayerChange). CPU time of this thread (`time.thread_time`), not the wall
    clock: on a shared machine the wall clock counts the time other processes hold the
    CPU, and moved by 3x between runs; the CPU time still counts every cache miss of the
    replay itself (and the page faults of the memory it fills).
    """
    replayer = Replayer(params, get_format("badminton_21"))
    gc.collect()
    start = time.thread_time()
    encoded = encode(history)
    encoded_at = time.thread_time()
    changes = replayer.rate_history(encoded)
    return time.thread_time() - start, encoded_at - start, replayer, changes


def time_rate_all(history: list[MatchResult], params: Params) -> float:
    """CPU seconds for `Replayer.rate_all` (a tuple of PlayerChange built for every match)."""
    replayer = Replayer(params, get_format("badminton_21"))
    gc.collect()
    start = time.thread_time()
    changes = replayer.rate_all(history)
    seconds = time.thread_time() - start
    del changes
    return seconds


def time_plain_loop(history: list[MatchResult], params: Params) -> tuple[float, float]:
    """CPU seconds for `_native.plain_loop` over the same history, and its checksum.

    The history is turned into arrays (indices, ordinals, outcomes) before the clock starts.
    """
    fmt = get_format("badminton_21")
    replayer = Replayer(params, fmt)  # for the outcome of each score line, as the replay has it
    index: dict[str, int] = {}
    a, b, ordinals, outcomes = array("i"), array("i"), array("i"), array("d")
    team = len(history[0].side_a)
    for m in history:
        a.extend(index.setdefault(n, len(index)) for n in m.side_a)
        b.extend(index.setdefault(n, len(index)) for n in m.side_b)
        ordinals.append(m.played_on.toordinal())
        s_a, mult, a_won, s_b, _ = replayer._outcomes.get(m.games) or replayer._outcome(m.games)
        outcomes.extend((s_a, s_b, mult, float(a_won)))
    start_state = replayer.state("nobody")
    window = (
        params.lookback_days,
        params.repetition_alpha,
        params.diversity_threshold,
        params.rating_period_days,
        rd_ceiling(params) / 173.7178,
        start_state.rating,
        start_state.rd,
        start_state.volatility,
    )
    rules = native_rules(params)
    start = time.thread_time()
    checksum = _native.plain_loop(len(index), a, b, ordinals, outcomes, team, rules, window)
    return time.thread_time() - start, checksum


def context_share(changes: Sequence[tuple[PlayerChange, ...]], last: int) -> dict[str, float]:
    """How often the context rules applied in the last matches, to show the replay exercised them."""
    last_rd: dict[str, float] = {}
    repeated = closed = inflated = total = 0
    for i in range(len(changes) - last, len(changes)):
        match_changes = changes[i]
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


def time_tune(matches: list[MatchResult], budget: int) -> tuple[float, dict]:  # type: ignore[type-arg]
    start = time.perf_counter()
    result = tune(matches, Params(), get_format("badminton_21"), budget=budget, workers=2)
    return time.perf_counter() - start, result


def compare(
    history: list[MatchResult], params: Params, runs: int
) -> tuple[float, float, float, dict[str, float]]:
    """Best of `runs` for the replay (encoding included), for the encoding alone and for the
    plain loop, alternating; checks the replay and the plain loop end with the same ratings.

    Also how often the context rules applied in the last 100,000 matches.
    """
    replay_times, encode_times, plain_times = [], [], []
    replayer: Replayer | None = None
    checksum = math.nan
    context: dict[str, float] = {}
    for _ in range(runs):
        seconds, encoding, replayer, changes = time_replay(history, params)
        replay_times.append(seconds)
        encode_times.append(encoding)
        context = context_share(changes, min(len(changes) // 2, 100_000))
        del changes
        seconds, checksum = time_plain_loop(history, params)
        plain_times.append(seconds)
    assert replayer is not None
    total = sum(s.rating for s in replayer.states.values())
    if not math.isclose(total, checksum, rel_tol=0, abs_tol=1e-6 * len(replayer.states)):
        raise SystemExit(f"replay and plain loop disagree: {total} against {checksum}")
    return min(replay_times), min(encode_times), min(plain_times), context


def time_rate_command(rows: int, runs: int) -> tuple[float, float, float]:
    """CPU and wall seconds of `python -m ratings.engine rate` on a file of `rows` singles rows
    (best of `runs`), and the plain loop's CPU seconds over the same matches."""
    import resource
    import subprocess
    import tempfile

    from ratings.lab.importfmt import write_matches

    history = synthetic_history(rows, max(rows // 20, 40), seed=7)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "singles.csv"
        path.write_text(write_matches(history), encoding="utf-8")
        cpu, wall = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "ratings.engine", "rate", str(path)],
                cwd=ROOT,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            wall.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        matches = parse_matches(path.read_text(encoding="utf-8"), get_format("badminton_21"))
    plain = min(time_plain_loop(matches, Params())[0] for _ in range(runs))
    return min(cpu), min(wall), plain


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--doubles", type=int, default=24_000, help="matches of the doubles tune")
    parser.add_argument("--budget", type=int, default=240)
    parser.add_argument("--runs", type=int, default=2, help="best of this many, alternating")
    parser.add_argument("--rate-rows", type=int, default=200_000, help="rows of the rate file")
    parser.add_argument(
        "--sections",
        default="update,singles,doubles,tune,rate",
        help="which measurements (default all): update, singles, doubles, tune, rate",
    )
    args = parser.parse_args(argv)
    sections = set(args.sections.split(","))
    load_before = os.getloadavg()[0]

    rows = [("measure", "result", "target"), ("---", "---", "---")]
    tuned: dict = {}  # type: ignore[type-arg]
    tuned_doubles: dict = {}  # type: ignore[type-arg]

    def per_update(seconds: float | None) -> str:
        return "n/a" if seconds is None else f"{seconds * 1e6:.2f} µs"

    def per_match(seconds: float, n: int) -> str:
        return f"{seconds:.2f} s ({seconds / n * 1e6:.2f} µs/match)"

    if "update" in sections:
        ours = time_our_update(UPDATES)
        theirs = time_pypi_update(UPDATES // 4)
        rows += _update_rows(ours, theirs, per_update)
    if "singles" in sections:
        rows += _singles_rows(args, per_match)
    if "doubles" in sections:
        rows += _doubles_rows(args, per_match)
    if "tune" in sections:
        tune_rows, tuned, tuned_doubles = _tune_rows(args)
        rows += tune_rows
    if "rate" in sections:
        cpu, wall, plain = time_rate_command(args.rate_rows, args.runs)
        rows += [
            (
                f"`python -m ratings.engine rate` on {args.rate_rows:,} singles rows (whole "
                "command, CPU)",
                f"{cpu:.2f} s (wall {wall:.2f} s)",
                "",
            ),
            ("the same matches, plain C loop (CPU)", f"{plain:.3f} s", ""),
            ("**rate / plain loop**", f"**{cpu / plain:.1f}x**", "≤ 10x"),
        ]
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs ({platform.processor() or platform.platform()}); "
        f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after; "
        f"best of {args.runs} runs\n"
    )
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if tuned:
        print(
            f"\ntuned held-out log-loss: BWF {tuned['test']['tuned']['logloss']:.4f}, "
            f"doubles {tuned_doubles['test']['tuned']['logloss']:.4f}"
        )
    return 0


def _update_rows(ours, theirs, per_update):  # type: ignore[no-untyped-def]
    return [
        ("our Glicko-2 update (one opponent), C kernel from Python", per_update(ours), ""),
        (
            "PyPI `glicko2` `Player.update_player`",
            "not installed" if theirs is None else per_update(theirs),
            "",
        ),
        (
            "speed-up (PyPI time / ours)",
            "n/a" if theirs is None else f"{theirs / ours:.1f}x",
            "≥ 2x",
        ),
    ]


def _singles_rows(args, per_match):  # type: ignore[no-untyped-def]
    singles = synthetic_history(args.matches, args.players)
    replay_s, encode_s, plain_s, context = compare(singles, Params(), args.runs)
    objects_s = time_rate_all(singles, Params())
    del singles
    label = f"{args.matches:,} singles, {args.players:,} players"
    rows = [
        (
            f"replay {label}: `encode` + `Replayer.rate_history`",
            per_match(replay_s, args.matches),
            "",
        ),
        ("of which `encode` (the history in columns)", per_match(encode_s, args.matches), ""),
        ("the same arithmetic, plain C loop", per_match(plain_s, args.matches), ""),
        ("**singles: replay / plain loop**", f"**{replay_s / plain_s:.2f}x**", "≤ 2x"),
        (
            "for comparison: `Replayer.rate_all` (a PlayerChange per player and match)",
            f"{per_match(objects_s, args.matches)} = {objects_s / plain_s:.2f}x",
            "",
        ),
    ]
    shares = ", ".join(f"{name} {share:.1%}" for name, share in context.items())
    rows.append(("context in the last 100,000 singles matches (of player updates)", shares, ""))
    return rows


def _doubles_rows(args, per_match):  # type: ignore[no-untyped-def]
    rows = []
    team_matches = args.matches // 4
    doubles = synthetic_history(team_matches, args.players, team=2)
    for method in ("composite_opponent", "individual", "composite_team", "glicko1_team"):
        replay_s, encode_s, plain_s, _ = compare(doubles, Params(team_method=method), args.runs)
        rows.append(
            (
                f"replay {team_matches:,} doubles, {method}: encode + rate_history / plain loop",
                f"{per_match(replay_s, team_matches)} (encode {encode_s:.2f} s) / "
                f"{per_match(plain_s, team_matches)} = **{replay_s / plain_s:.2f}x**",
                "≤ 3x",
            )
        )
    return rows


def _tune_rows(args):  # type: ignore[no-untyped-def]
    history = synthetic_history(args.doubles, max(args.doubles // 24, 40), seed=3, team=2)
    tune_doubles_s, tuned_doubles = time_tune(history, args.budget)
    rows = [
        (
            f"`tune` on {args.doubles:,} doubles, {args.budget} settings, 2 processes",
            f"{tune_doubles_s:.1f} s",
            "< 60 s",
        )
    ]
    bwf = parse_matches(BWF.read_text(encoding="utf-8"), get_format("badminton_21"))
    tune_s, tuned = time_tune(bwf, args.budget)
    rows.append(
        (
            f"`tune` on the BWF file, {args.budget} settings, 2 processes",
            f"{tune_s:.1f} s",
            "≤ 30 s",
        )
    )
    return rows, tuned, tuned_doubles


if __name__ == "__main__":
    raise SystemExit(main())
