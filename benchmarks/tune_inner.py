"""How `tune`'s search was chosen without the held-out halves: `tune` run on each history's
training half as a history of its own (its "held-out" half is the history's second quarter,
which the real `tune` trains on), for variants of the search.
`python benchmarks/tune_inner.py --histories bwf,bwf_h1,csgo,tennis --variants A,B,K`.

Prints one JSON line per history, variant and seed: the inner held-out log-loss of the tuned
setting, the defaults', the best peer's, the gain over it, the seconds and the setting.
Variants (docs/RATINGS_EVALUATION.md "The search's box and its consensus"):
A the first pass (the wide box, the best incumbent); B the sensible box; C only tau, scale,
initial RD and period narrowed; E only the core numbers searched; F B with 12 random
settings first; K B with each model's consensus of its ten best (today's `tune`); K2 B with
the consensus only when its validation fold is better.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tune_histories import histories  # noqa: E402

from ratings.lab import tune as tune_  # noqa: E402
from ratings.lab.tune import Dimension  # noqa: E402

SENSIBLE = dict(tune_.COMMON_SPACE)
WIDE = {
    "tau": Dimension(0.2, 1.5, 3),
    "scale_factor": Dimension(100.0, 800.0, 0),
    "repetition_alpha": Dimension(0.0, 1.0, 3),
    "diversity_threshold": Dimension(0.0, 0.5, 3),
    "margin_clamp": Dimension(0.05, 1.0, 3),
    "initial_rd": Dimension(50.0, 500.0, 0),
    "rating_period_days": Dimension(1.0, 90.0, 0),
}
NARROWED = ("tau", "scale_factor", "initial_rd", "rating_period_days")
CORE = ("scale_factor", "margin_clamp", "initial_rd")
DEFAULTS = (tune_.STARTUP_TRIALS, tune_.CONSENSUS)


def use(variant: str) -> None:
    """Set the search's module constants for ``variant`` (K is today's search)."""
    box = {
        "A": WIDE,
        "C": {**WIDE, **{k: SENSIBLE[k] for k in NARROWED}},
        "E": {k: SENSIBLE[k] for k in CORE},
    }.get(variant, SENSIBLE)
    tune_.COMMON_SPACE.clear()
    tune_.COMMON_SPACE.update(box)
    tune_.STARTUP_TRIALS = 12 if variant == "F" else DEFAULTS[0]
    tune_.CONSENSUS = DEFAULTS[1] if variant in ("K", "K2") else 0
    tune_.CONSENSUS_BY_VALIDATION = variant == "K2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--histories", default="bwf,bwf_h1,csgo,tennis")
    parser.add_argument("--variants", default="A,B,K")
    parser.add_argument("--seeds", default="0,1,2")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    for name, matches, fmt, params in histories(set(args.histories.split(","))):
        inner = tune_.train_split(matches)
        for variant in args.variants.split(","):
            use(variant)
            for seed in seeds:
                start = time.perf_counter()
                result = tune_.tune(inner, params, fmt, seed=seed, workers=2)
                peer = tune_.gain_over_best_peer(result)
                assert peer is not None
                row = {
                    "history": name,
                    "variant": variant,
                    "seed": seed,
                    "tuned": result["test"]["tuned"]["logloss"],
                    "default": result["test"]["default"]["logloss"],
                    "peer": peer[0],
                    "peer_logloss": peer[1],
                    "gain": peer[2],
                    "s": round(time.perf_counter() - start, 1),
                    "params": result["params"],
                }
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
