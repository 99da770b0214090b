"""Search the engine's parameters on the first half of a history; report on the second.

The split, exactly (PRODUCT.md "tune", RATINGS.md §7):

- The history's first half (``N // 2`` matches, the part ``backtest`` uses to
  warm up) is the training half. A setting's score is the log-loss of the §7
  protocol run on the training half alone: predict then rate, the training
  half's own first half warming up. The second half of the history is never
  seen by the search.
- The report then runs the whole history once per system (the tuned setting,
  the defaults, every peer) and scores the second half, exactly as ``backtest``.

The search is deterministic for a seed: a batch of random settings over the
box in :data:`SEARCH_SPACE` (about a third of the budget, the ladder's current
setting first), then coordinate descent from the best one (each parameter a
step and a half-step up and down; a parameter's step halves when that finds
nothing better), then a last pass that puts back the ladder's value of every
parameter that does not earn its change (:func:`search`). Batches run on
``workers`` processes; the result does not depend on how many.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from ratings.engine.evaluate import (
    Progress,
    build_system,
    format_table,
    log_loss,
    metrics,
    run_online,
    time_order,
    unavailable_metrics,
    warmup_size,
)
from ratings.engine.formats import ScoringFormat
from ratings.engine.peers import PEERS, Default, PeerUnavailable, actual_result
from ratings.engine.replay import Replayer
from ratings.engine.types import Match, Params


@dataclass(frozen=True, slots=True)
class Dimension:
    """One searched parameter: its box and how finely its values are rounded."""

    low: float
    high: float
    digits: int  # 0 rounds to an integer

    def clip(self, value: float) -> float | int:
        value = round(min(max(value, self.low), self.high), self.digits)
        return int(value) if self.digits == 0 else value


#: The searched parameters and their ranges: wide enough to hold every sensible
#: setting (the badminton seed's ranges, widened where the data may want more margin).
SEARCH_SPACE: dict[str, Dimension] = {
    "tau": Dimension(0.2, 1.5, 3),
    "scale_factor": Dimension(100.0, 800.0, 0),
    "repetition_alpha": Dimension(0.0, 1.0, 3),
    "diversity_threshold": Dimension(0.0, 0.5, 3),
    "match_win_bonus": Dimension(0.0, 0.5, 3),
    "margin_weight": Dimension(0.0, 2.0, 3),
    "margin_clamp": Dimension(0.05, 1.0, 3),
    "initial_rd": Dimension(50.0, 500.0, 0),
    "rating_period_days": Dimension(1.0, 90.0, 0),
}
#: Settings tried when no budget is given: above the 200 the product promises.
DEFAULT_BUDGET = 240
#: Share of the budget spent on random settings before coordinate descent.
RANDOM_SHARE = 1 / 3
#: First coordinate-descent step, as a share of each parameter's range.
FIRST_STEP = 0.125
#: Steps shrink to this share of the range before the descent stops early.
MIN_STEP = 1 / 256
#: Log-loss a parameter may cost and still go back to the ladder's value: below the
#: noise of a training half (a few thousandths on ~900 scored matches).
SIMPLIFY_TOLERANCE = 0.0005

Overrides = dict[str, float | int]


def train_split(matches: Sequence[Match]) -> Sequence[Match]:
    """The training half: the matches ``backtest`` uses to warm up."""
    return matches[: warmup_size(len(matches))]


def train_score(matches: Sequence[Match], params: Params, scoring_format: ScoringFormat) -> float:
    """Log-loss of §7 run on ``matches`` alone (its first half warms up).

    The same protocol as :func:`evaluate.run_online` with the ``default`` system (a
    Replayer: predict, then rate), cut to what the score needs: warm-up matches are
    only rated (their predictions would not count). Both halves go through the
    Replayer's batch methods, so singles run in C when ``ratings.engine._native`` is built.
    """
    replayer = Replayer(params, scoring_format)
    start = warmup_size(len(matches))
    replayer.rate_all(matches[:start])
    probs, _ = replayer.predict_rate_all(matches[start:])
    return log_loss(probs, [actual_result(m) for m in matches[start:]])


@dataclass(frozen=True, slots=True)
class _Validated(ScoringFormat):
    """A scoring format whose matches :func:`tune` has already validated once.

    Every setting tried replays the training half with a fresh Replayer, which
    would validate each distinct score line again (a seventh of the work).
    """

    def validate_games(self, games: Sequence[tuple[int, int]]) -> None:
        return None


def _validated(matches: Sequence[Match], scoring_format: ScoringFormat) -> ScoringFormat:
    """Validate every match's games once; the format to replay them with from then on."""
    for games in {m.games for m in matches}:
        scoring_format.validate_games(games)
    return _Validated(**{f.name: getattr(scoring_format, f.name) for f in fields(scoring_format)})


# Worker state: set before the pool forks, so nothing (Params holds a mapping proxy
# that does not pickle) has to travel to the workers but override dicts and names.
# (whole history in time order, its training half, the starting params, the format)
_WORK: tuple[Sequence[Match], Sequence[Match], Params, ScoringFormat] | None = None


def _score_overrides(overrides: Overrides) -> float:
    assert _WORK is not None
    _, train, base, scoring_format = _WORK
    return train_score(train, base.with_overrides(**overrides), scoring_format)


def _held_out(job: tuple[str, Overrides | None]) -> dict[str, float | None]:
    """§7 metrics on the whole history for one system: tuned/default (with overrides) or a peer."""
    assert _WORK is not None
    matches, _, base, scoring_format = _WORK
    name, overrides = job
    if overrides is not None:
        system: Any = Default(base.with_overrides(**overrides), scoring_format, name=name)
    else:
        system = build_system(name, base, scoring_format)
    if isinstance(system, PeerUnavailable):
        return unavailable_metrics()
    return metrics(run_online(matches, system))


class _Workers:
    """Maps the worker functions above, in a process pool when there is more than one worker."""

    def __init__(self, workers: int) -> None:
        self.pool = None
        if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
            self.pool = multiprocessing.get_context("fork").Pool(workers)

    def map(self, fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        if self.pool is None:
            return [fn(item) for item in items]
        return self.pool.map(fn, items, chunksize=1)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()


def keep_wins_above_half(overrides: Overrides) -> Overrides:
    """Project a setting so that a match winner's outcome is never below 0.5.

    ``s_w = 0.5 + match_win_bonus + margin_weight * margin_ratio`` with the ratio
    down to ``-margin_clamp`` (a match won on games but lost on points), so the
    floor holds when ``match_win_bonus >= margin_weight * margin_clamp``: the
    bonus is raised to that, and where it would pass 0.5 the clamp is lowered.
    """
    o = dict(overrides)
    weight, clamp = float(o["margin_weight"]), float(o["margin_clamp"])
    need = weight * clamp
    if need > o["match_win_bonus"]:
        o["match_win_bonus"] = min(math.ceil(need * 1000) / 1000, 0.5)
        if need > o["match_win_bonus"]:
            o["margin_clamp"] = math.floor(0.5 / weight * 1000) / 1000
    return o


def _key(overrides: Overrides) -> tuple[tuple[str, float], ...]:
    return tuple(sorted(overrides.items()))


def search(
    score: Callable[[list[Overrides]], list[float]],
    start: Overrides,
    budget: int,
    seed: int = 0,
    progress: Progress | None = None,
    project: Callable[[Overrides], Overrides] | None = None,
) -> tuple[Overrides, float, int]:
    """Random batch, coordinate descent, then a pass back to ``start`` where it costs nothing.

    Returns (best setting, its score, settings scored); never scores more than
    ``budget`` settings. ``project`` maps every candidate into the allowed region.
    The last pass resets each parameter to its ``start`` value when that keeps
    the score within :data:`SIMPLIFY_TOLERANCE` of the best, so parameters that
    do not matter on this history keep the ladder's values instead of noise.
    """
    rng = random.Random(seed)
    seen: dict[tuple[tuple[str, float], ...], float] = {}

    def run(batch: list[Overrides], limit: int = budget) -> None:
        fresh: list[Overrides] = []
        for o in batch:
            if project is not None:
                o = project(o)
            if _key(o) not in seen and len(seen) + len(fresh) < limit:
                seen[_key(o)] = math.nan  # reserved, so duplicates in a batch run once
                fresh.append(o)
        for o, value in zip(fresh, score(fresh) if fresh else [], strict=True):
            seen[_key(o)] = value
        if progress is not None and fresh:
            progress(len(fresh))

    def best() -> tuple[Overrides, float]:
        key, value = min(seen.items(), key=lambda kv: (kv[1], kv[0]))
        return dict(key), value

    start = {name: SEARCH_SPACE[name].clip(v) for name, v in start.items()}
    if project is not None:
        start = project(start)
    simplify_reserve = min(len(SEARCH_SPACE), budget // 4)
    descent_budget = budget - simplify_reserve
    randoms = [start] + [
        {name: dim.clip(rng.uniform(dim.low, dim.high)) for name, dim in SEARCH_SPACE.items()}
        for _ in range(max(int(budget * RANDOM_SHARE) - 1, 0))
    ]
    run(randoms, descent_budget)

    steps = {name: FIRST_STEP * (dim.high - dim.low) for name, dim in SEARCH_SPACE.items()}
    while len(seen) < descent_budget:
        before = len(seen)
        for name, dim in SEARCH_SPACE.items():
            current, current_value = best()
            batch = []
            for factor in (-1.0, 1.0, -0.5, 0.5):
                candidate = dict(current)
                candidate[name] = dim.clip(current[name] + factor * steps[name])
                batch.append(candidate)
            run(batch, descent_budget)
            if best()[1] >= current_value:
                steps[name] /= 2.0
        if len(seen) == before or all(
            steps[n] < MIN_STEP * (d.high - d.low) for n, d in SEARCH_SPACE.items()
        ):
            break  # nothing new left to try, or every step is already tiny

    chosen, chosen_value = best()
    ceiling = chosen_value + SIMPLIFY_TOLERANCE
    for name in SEARCH_SPACE:
        if chosen[name] == start[name]:
            continue
        candidate = {**chosen, name: start[name]}
        if project is not None:
            candidate = project(candidate)
        run([candidate])
        value = seen.get(_key(candidate), math.inf)
        if value <= ceiling:
            chosen, chosen_value = candidate, value
    return chosen, chosen_value, len(seen)


def tune(
    matches: Sequence[Match],
    params: Params,
    scoring_format: ScoringFormat,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    workers: int | None = None,
    progress: Progress | None = None,
    win_floor: bool = False,
) -> dict[str, Any]:
    """Tune on the first half, then score tuned, default and peers on the second.

    ``win_floor`` keeps the search where winning a match never scores below 0.5
    (:func:`keep_wins_above_half`); without it a match won on games but lost
    clearly on points may count as less than half a win, which predicts better
    but can lower a winner's rating.

    Returns ``{"params": {name: value}, "test": {system: metrics}}`` where
    ``test`` has ``tuned``, ``default`` and each peer (``None`` metrics when a
    peer's package is missing). ``params`` are the searched parameters only.
    """
    global _WORK
    matches = time_order(matches)
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    start: Overrides = {name: getattr(params, name) for name in SEARCH_SPACE}
    _WORK = (matches, train_split(matches), params, _validated(matches, scoring_format))
    pool = _Workers(workers)
    try:
        tuned, _, _ = search(
            lambda batch: pool.map(_score_overrides, batch),
            start,
            budget,
            seed=seed,
            progress=progress,
            project=keep_wins_above_half if win_floor else None,
        )
        tuned = {name: tuned[name] for name in SEARCH_SPACE}
        # The slowest peer first, so two processes finish together.
        jobs: list[tuple[str, Overrides | None]] = [
            ("trueskill", None),
            ("tuned", tuned),
            ("default", {}),
            *((name, None) for name in PEERS if name != "trueskill"),
        ]
        report = dict(zip((name for name, _ in jobs), pool.map(_held_out, jobs), strict=True))
    finally:
        pool.close()
        _WORK = None
    order = ("tuned", "default", *PEERS)
    return {"params": tuned, "test": {name: report[name] for name in order}}


def format_tune(result: dict[str, Any], params: Params, matches: int) -> str:
    """The human report of :func:`tune`: the setting found, then the held-out table."""
    half = warmup_size(matches)
    lines = [
        f"Tuned on the first {half} of {matches} matches; scored on the last "
        f"{matches - half}, which the search never saw.",
        "",
        "| parameter | start | tuned |",
        "| --- | --- | --- |",
    ]
    for name, value in result["params"].items():
        lines.append(f"| {name} | {getattr(params, name):g} | {value:g} |")
    lines += ["", format_table(result["test"]), ""]
    tuned = result["params"]
    if tuned["match_win_bonus"] < tuned["margin_weight"] * tuned["margin_clamp"]:
        lines.append(
            "Note: with this setting a match won on games but lost clearly on points "
            "counts as less than half a win for the winner "
            "(match_win_bonus < margin_weight x margin_clamp); --win-floor rules that out."
        )
    return "\n".join(lines).rstrip("\n")
