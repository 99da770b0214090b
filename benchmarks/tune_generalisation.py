"""How well `tune` generalises: held-out log-loss of the tuned setting on several histories
and seeds, against the best peer of the same run. `python benchmarks/tune_generalisation.py`.

For each history (benchmarks/tune_histories.py: the three files in tests/data, each half
of the BWF file as a history of its own, synthetic singles, generated club seasons) and
each seed, runs `tune` (240 settings, 2 processes, floor on) exactly as the command does,
and prints a markdown table (copy it into docs/RATINGS_EVALUATION.md): the range and
median of the tuned held-out log-loss over the seeds, the best peer, the gain over it per
seed, whether every seed is 2% better, the defaults and plain Glicko-2, and the models
chosen. `--histories a,b` and `--seeds 0,1` pick fewer.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tune_histories import histories  # noqa: E402

from ratings.lab.tune import DEFAULT_BUDGET, gain_over_best_peer, tune  # noqa: E402

TARGET = 0.02


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--histories", help="comma-separated names (default: all)")
    parser.add_argument("--seeds", default="0,1,2,3")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    args = parser.parse_args()
    names = set(args.histories.split(",")) if args.histories else None
    seeds = [int(s) for s in args.seeds.split(",")]
    print(
        "| history | matches | tuned held out (min–max, median) | best peer | gain per seed (%) "
        "| 95% interval per seed (%) | beats the best peer by its interval | ≥ 2% every seed? "
        "| defaults | plain Glicko-2 | model chosen | s per tune |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, matches, fmt, params in histories(names):
        tuned, gains, models, times, intervals = [], [], [], [], []
        result = None
        for seed in seeds:
            start = time.perf_counter()
            result = tune(matches, params, fmt, budget=args.budget, seed=seed, workers=2)
            times.append(time.perf_counter() - start)
            tuned.append(result["test"]["tuned"]["logloss"])
            gain = gain_over_best_peer(result)
            assert gain is not None
            gains.append(gain[2])
            ci = result["gain"]["best_peer"]
            intervals.append((ci["low"], ci["high"]))
            model = result["params"]["outcome_model"]
            method = result["params"].get("team_method")
            models.append(model if method is None else f"{model}/{method}")
        assert result is not None and gain is not None
        test = result["test"]
        chosen = ", ".join(f"{m} ×{models.count(m)}" for m in sorted(set(models)))
        print(
            f"| {name} | {len(matches)} | {min(tuned):.4f}–{max(tuned):.4f} "
            f"({statistics.median(tuned):.4f}) | {gain[0]} {gain[1]:.4f} "
            f"| {', '.join(f'{g * 100:+.1f}' for g in gains)} "
            f"| {', '.join(f'{lo * 100:+.1f}..{hi * 100:+.1f}' for lo, hi in intervals)} "
            f"| {sum(lo > 0 for lo, _ in intervals)} of {len(intervals)} "
            f"| {'yes' if min(gains) >= TARGET else 'no'} "
            f"| {test['default']['logloss']:.4f} | {test['glicko2']['logloss']:.4f} "
            f"| {chosen} | {statistics.median(times):.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
