"""How `tune`'s search was chosen without the held-out halves: `tune` run on each history's
training half as a history of its own (its "held-out" half is the history's second quarter,
which the real `tune` trains on), for variants of the search.
`python benchmarks/tune_inner.py --histories bwf,bwf_h1,csgo,tennis --variants K+b240,K`.

Prints one JSON line per history, variant and seed: the inner held-out log-loss of the tuned
setting, the defaults', the best peer's, the gain over it, the seconds, the settings asked
for and the setting chosen. A variant is a base letter and modifiers joined by ``+``.

Bases (docs/RATINGS_EVALUATION.md "The search's box and its consensus"): A the first pass
(the wide box, the best incumbent); B the sensible box; C only tau, scale, initial RD and
period narrowed; E only the core numbers searched; F B with 12 random settings first; K B
with each model's consensus of its ten best (today's `tune`); K2 B with the consensus only
when its validation fold is better.

Modifiers (docs/RATINGS_EVALUATION.md "The search's budget scaled to the history"; all
measured and not kept, so they live here, not in `tune`): ``b720`` the budget, with patience
a third of it (without it, `tune`'s own: 240 settings, patience 80);
``c20`` the consensus of the 20 best; ``s2`` 2 standard errors of fold margin; ``l75`` the
training half's first 75% warms up (not 50%); ``w`` later folds weigh more (1, 2, 3, 4);
``g`` scale_factor searched in log space; ``r3`` three searches (seeds apart), the budget
split, the consensus over all; ``a`` the consensus ranked on every fold, the validation
fold too; ``f5`` five folds; ``t48`` 48 random settings first; ``x0`` the put-back pass's
tolerance; ``e3`` only matches whose players have each played 3 before are scored.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tune_histories import histories  # noqa: E402

from ratings.engine.replay import History, Replayer  # noqa: E402
from ratings.engine.types import MatchResult  # noqa: E402
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
# What `use` may change, as `tune` has it, to put back before each variant.
ORIGINAL: dict[str, Any] = {
    name: getattr(tune_, name)
    for name in (
        "STARTUP_TRIALS",
        "PATIENCE",
        "CONSENSUS",
        "CONSENSUS_BY_VALIDATION",
        "SHRINK_STANDARD_ERRORS",
        "FOLDS",
        "SIMPLIFY_TOLERANCE",
        "train_losses",
        "objective",
        "search",
        "_suggest",
        "_score_overrides",
    )
}


def warmed_up_for(share: float) -> Callable[..., list[float]]:
    """`tune.train_losses` with the first ``share`` of the training half warming up."""

    def train_losses(matches: History, params: Any, scoring_format: Any) -> list[float]:
        replayer = Replayer(params, scoring_format)
        start = int(len(matches) * share)
        replayer.rate_history(matches, 0, start)
        probs, _ = replayer.predict_rate_history(matches, start)
        results = tune_._results(matches)[start:]
        return [tune_._match_loss(p, y) for p, y in zip(probs, results, strict=True)]

    return train_losses


def later_folds_weigh_more(
    losses: Sequence[float], reference: Sequence[float], errors: float | None = None
) -> float:
    """`tune.objective` with fold k's mean log-loss weighted k (1, 2, 3, 4)."""
    plain = ORIGINAL["objective"](losses, reference, errors)
    k = min(tune_.FOLDS, len(losses))
    if k < 2:
        return plain
    edges = [len(losses) * i // k for i in range(k + 1)]
    means = [statistics.fmean(losses[edges[i] : edges[i + 1]]) for i in range(k)]
    weighted = sum((i + 1) * m for i, m in enumerate(means)) / sum(range(1, k + 1))
    return plain - statistics.fmean(losses) + weighted


def scale_in_log_space(trial: Any, spaces: Any) -> tune_.Overrides:
    """`tune._suggest` with scale_factor drawn evenly in log space."""
    model = trial.suggest_categorical("outcome_model", list(spaces))
    setting: tune_.Overrides = {"outcome_model": model}
    for name, dim in spaces[model].items():
        if isinstance(dim, tune_.Choice):
            setting[name] = trial.suggest_categorical(name, list(dim.options))
        elif dim.digits == 0:
            log = name == "scale_factor"
            setting[name] = dim.clip(trial.suggest_int(name, int(dim.low), int(dim.high), log=log))
        else:
            setting[name] = dim.clip(trial.suggest_float(name, dim.low, dim.high))
    return setting


def searched(restarts: int, rank_on_all: bool) -> Callable[..., tune_.Searched]:
    """`tune.search` run ``restarts`` times (seeds 1000 apart, the budget split), merged; with
    ``rank_on_all`` each setting's score is its objective on every fold, the validation one too."""

    def search(score, starts, spaces, reference, budget, seed=0, progress=None):  # type: ignore[no-untyped-def]
        found = tune_.Searched({}, {}, [])
        for i in range(restarts):
            one = ORIGINAL["search"](
                score, starts, spaces, reference, budget // restarts, seed + 1000 * i, progress
            )
            found.losses.update(one.losses)
            found.scores.update(one.scores)
            found.incumbents.extend(one.incumbents)
        if rank_on_all:
            objective = tune_.objective
            found.scores = {k: objective(found.losses[k], reference) for k in found.scores}
        return found

    return search


# Which scored training matches count (``e``): set per inner history before its tune forks.
_ESTABLISHED: list[bool] = []


def established_only(overrides: tune_.Overrides) -> list[float]:
    """`tune._score_overrides` keeping only the matches :data:`_ESTABLISHED` marks."""
    losses = ORIGINAL["_score_overrides"](overrides)
    return [loss for loss, keep in zip(losses, _ESTABLISHED, strict=True) if keep]


def mark_established(train: Sequence[MatchResult], matches: int) -> list[bool]:
    """For each scored match of ``train`` (its second half), whether every player in it had
    played ``matches`` matches before it."""
    seen: dict[str, int] = {}
    marks = []
    for i, m in enumerate(train):
        players = (*m.side_a, *m.side_b)
        if i >= len(train) // 2:
            marks.append(min(seen.get(p, 0) for p in players) >= matches)
        for p in players:
            seen[p] = seen.get(p, 0) + 1
    return marks


def use(variant: str, inner: Sequence[MatchResult]) -> int | None:
    """Set the search's module constants and functions for ``variant``; its budget (None:
    `tune`'s default)."""
    base, *mods = variant.split("+")
    for name, value in ORIGINAL.items():
        setattr(tune_, name, value)
    box = {
        "A": WIDE,
        "C": {**WIDE, **{k: SENSIBLE[k] for k in NARROWED}},
        "E": {k: SENSIBLE[k] for k in CORE},
    }.get(base, SENSIBLE)
    tune_.COMMON_SPACE.clear()
    tune_.COMMON_SPACE.update(box)
    tune_.STARTUP_TRIALS = 12 if base == "F" else ORIGINAL["STARTUP_TRIALS"]
    tune_.CONSENSUS = ORIGINAL["CONSENSUS"] if base in ("K", "K2") else 0
    tune_.CONSENSUS_BY_VALIDATION = base == "K2"
    budget, restarts, rank_on_all = None, 1, False
    for mod in mods:
        kind, number = mod[0], mod[1:]
        if kind == "b":
            budget = int(number)
            tune_.PATIENCE = budget // 3
        elif kind == "c":
            tune_.CONSENSUS = int(number)
        elif kind == "s":
            tune_.SHRINK_STANDARD_ERRORS = float(number)
        elif kind == "l":
            tune_.train_losses = warmed_up_for(int(number) / 100)
        elif mod == "w":
            tune_.objective = later_folds_weigh_more
        elif mod == "g":
            tune_._suggest = scale_in_log_space
        elif kind == "r":
            restarts = int(number)
        elif mod == "a":
            rank_on_all = True
        elif kind == "f":
            tune_.FOLDS = int(number)
        elif kind == "t":
            tune_.STARTUP_TRIALS = int(number)
        elif kind == "x":
            tune_.SIMPLIFY_TOLERANCE = float(number)
        elif kind == "e":
            _ESTABLISHED[:] = mark_established(tune_.train_split(inner), int(number))
            tune_._score_overrides = established_only
        else:
            raise SystemExit(f"unknown modifier {mod!r} in {variant!r}")
    if restarts > 1 or rank_on_all:
        tune_.search = searched(restarts, rank_on_all)
    return budget


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--histories", default="bwf,bwf_h1,csgo,tennis")
    parser.add_argument("--variants", default="K+b240,K")
    parser.add_argument("--seeds", default="0,1,2")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    for name, matches, fmt, params in histories(set(args.histories.split(","))):
        inner = tune_.train_split(matches)
        for variant in args.variants.split(","):
            budget = use(variant, inner)
            for seed in seeds:
                start = time.perf_counter()
                asked: list[int] = []
                result = tune_.tune(
                    inner,
                    params,
                    fmt,
                    budget=budget or tune_.DEFAULT_BUDGET,
                    seed=seed,
                    workers=2,
                    progress=asked.append,
                )
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
                    "asked": sum(asked),
                    "params": result["params"],
                }
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
