"""Search the engine's parameters on the first half of a history; report on the second.

The split, exactly (RULES.md "Commands", RATINGS.md §7):

- The history's first half (``N // 2`` matches, the part ``backtest`` uses to
  warm up) is the training half. A setting's score is the log-loss of the §7
  protocol run on the training half alone: predict then rate, the training
  half's own first half warming up. The second half of the history is never
  seen by the search.
- The report then runs the whole history once per system (the tuned setting,
  the best setting of the other outcome model, the defaults, every peer) and
  scores the second half, exactly as ``backtest``.

Both outcome models of RATINGS.md §3 step 2 are searched, each in its own box
(:func:`search_space`): the parameters every model uses, plus ``margin_boost``
for ``margin_information`` or ``match_win_bonus`` and ``margin_weight`` for
``score``; on a team history also the team method and how a side's RD is
combined. The budget is shared between the models. The wrong-way floor (§3 step 9)
is on in every setting tried, as it is on every ladder; ``floor=False`` searches
without it, only to show what it changes.

What a setting must do to be chosen (:func:`objective`): the scored training matches
are cut into time-ordered folds, and a setting scores its training log-loss plus a
standard error of its fold-by-fold difference from the setting it would replace. So
a change is chosen only when it beats the ladder's setting steadily across the folds,
not when it wins on a few lucky matches: a short history (CS:GO, 50 scored training
matches) stays close to the measured defaults, a long one moves. The search goes in
two stages per model (:func:`_search_model`): first the model's margin parameters,
``margin_clamp`` and ``scale_factor`` (and the team choices), against the ladder's
setting; then the other numbers from that choice, against that choice, with a
stricter margin (more parameters, more chances to fit noise), kept only when they gain
at least 1% of the training log-loss. The model whose final
setting scores better against the ladder's setting is chosen.

Each stage is deterministic for a seed: a batch of random settings over its box
(about a third of its budget, the current setting first), then coordinate descent
from the best one (each number a step and a half-step up and down, the step halving
when that finds nothing better; each other choice of a choice), then a last pass that
puts back the current value of every parameter that does not earn its change
(:func:`search`). Batches run on ``workers`` processes; the result does not depend on
how many. Nothing of the second half is read until the setting is chosen.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from ratings.engine.formats import ScoringFormat
from ratings.engine.replay import History, Replayer, encode
from ratings.engine.types import OUTCOME_MODELS, EngineError, MatchResult, Params
from ratings.lab.evaluate import (
    LOGLOSS_CLIP,
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
from ratings.lab.peers import PEERS, Default, PeerUnavailable, actual_result, game_result


@dataclass(frozen=True, slots=True)
class Dimension:
    """One searched number: its box and how finely its values are rounded."""

    low: float
    high: float
    digits: int  # 0 rounds to an integer

    def clip(self, value: Any) -> float | int:
        value = round(min(max(float(value), self.low), self.high), self.digits)
        return int(value) if self.digits == 0 else value

    def draw(self, rng: random.Random) -> float | int:
        return self.clip(rng.uniform(self.low, self.high))


@dataclass(frozen=True, slots=True)
class Choice:
    """One searched choice among names (a team method, a composite RD)."""

    options: tuple[str, ...]

    def clip(self, value: Any) -> str:
        return value if value in self.options else self.options[0]

    def draw(self, rng: random.Random) -> str:
        return rng.choice(self.options)


Space = Mapping[str, Dimension | Choice]

#: The numbers every outcome model uses, and their ranges: wide enough to hold every
#: sensible setting (the badminton seed's ranges, widened where the data may want more).
COMMON_SPACE: dict[str, Dimension] = {
    "tau": Dimension(0.2, 1.5, 3),
    "scale_factor": Dimension(100.0, 800.0, 0),
    "repetition_alpha": Dimension(0.0, 1.0, 3),
    "diversity_threshold": Dimension(0.0, 0.5, 3),
    "margin_clamp": Dimension(0.05, 1.0, 3),
    "initial_rd": Dimension(50.0, 500.0, 0),
    "rating_period_days": Dimension(1.0, 90.0, 0),
}
#: What only one outcome model uses (RATINGS.md §3 step 2).
MODEL_SPACE: dict[str, dict[str, Dimension]] = {
    "margin_information": {"margin_boost": Dimension(0.0, 3.0, 3)},
    "score": {
        "match_win_bonus": Dimension(0.0, 0.5, 3),
        "margin_weight": Dimension(0.0, 2.0, 3),
    },
}
#: Every searched number, whichever model uses it.
SEARCH_SPACE: dict[str, Dimension] = {
    **COMMON_SPACE,
    **{name: dim for space in MODEL_SPACE.values() for name, dim in space.items()},
}
#: Team methods tried on a team history. performance_weighted joins them when the
#: starting setting has stat weights (it refuses to run without).
TEAM_METHOD_CHOICES = ("composite_opponent", "individual", "composite_team", "glicko1_team")
COMPOSITE_RD_OPTIONS = ("mean", "rms_of_mean", "rms")
#: The fewest matches to tune on: the training half must score at least one match.
MIN_MATCHES = 4
#: Settings tried when no budget is given: above the 200 the product promises.
DEFAULT_BUDGET = 240
#: Share of the budget spent on random settings before coordinate descent.
RANDOM_SHARE = 1 / 3
#: First coordinate-descent step, as a share of each parameter's range.
FIRST_STEP = 0.125
#: Random settings that coordinate descent starts from (the best ones).
DESCENT_STARTS = 2
#: Steps shrink to this share of the range before the descent stops early.
MIN_STEP = 1 / 256
#: Log-loss a parameter may cost and still go back to the ladder's value: below the
#: noise of a training half (a few thousandths on ~900 scored matches).
SIMPLIFY_TOLERANCE = 0.0005
#: The common numbers the first stage searches with each model's own margin parameters
#: (and the team choices): the margin's reach and the slope of the expected score, which
#: is also the calibration of P (docs/RATINGS_EVALUATION.md, "Calibration").
CORE = ("margin_clamp", "scale_factor")
#: Share of each model's budget for the first stage; the second searches the rest.
FIRST_STAGE_SHARE = 0.6
#: Time-ordered folds of the scored training matches (:func:`objective`).
FOLDS = 4
#: Standard errors (of the fold means) a change must win by: about one keeps a short
#: history near the ladder's setting and lets a long one move (measured, see
#: docs/RATINGS_EVALUATION.md "Tuning").
SHRINK_STANDARD_ERRORS = 1.0
#: The second stage's margin: it searches five or more numbers at once.
SECOND_STAGE_STANDARD_ERRORS = 2.0
#: What the second stage's choice must gain over the first stage's, as a share of its
#: training log-loss, to be kept. Its numbers act through gaps between matches and through
#: newcomers, which change from one half of a history to the next (BWF's held-out half
#: holds the 2020 pause, its training half nothing like it): a change that clears the
#: fold margin by a few thousandths did not carry there (`rating_period_days` 7 → 1 gained
#: 0.7–0.8% in training and cost 1.3–1.9% held out); on the tennis doubles the second
#: stage's choices gained 1.2–1.6% in training and were kept.
#: Measured, see docs/RATINGS_EVALUATION.md "Tuning".
SECOND_STAGE_MIN_GAIN = 0.01

Overrides = dict[str, Any]


def search_space(
    outcome_model: str, teams: bool = False, stat_weights: bool = False, stage: int | None = None
) -> Space:
    """The box searched for one outcome model; with ``teams`` the team method and composite RD too.

    ``stage`` 1 is the first stage's part of it (:data:`CORE`, the model's own margin
    parameters and, on a team history, the team choices), ``stage`` 2 the rest; None
    the whole box, in the order the report prints it.
    """
    if outcome_model not in MODEL_SPACE:
        raise EngineError(f"outcome_model must be one of {', '.join(OUTCOME_MODELS)}")
    space: dict[str, Dimension | Choice] = {**COMMON_SPACE, **MODEL_SPACE[outcome_model]}
    if teams:
        methods = TEAM_METHOD_CHOICES + (("performance_weighted",) if stat_weights else ())
        space["team_method"] = Choice(methods)
        space["composite_rd"] = Choice(COMPOSITE_RD_OPTIONS)
    if stage is None:
        return space
    first = {name for name in space if name in CORE or name not in COMMON_SPACE}
    return {name: dim for name, dim in space.items() if (name in first) == (stage == 1)}


def train_split(matches: Sequence[MatchResult]) -> Sequence[MatchResult]:
    """The training half: the matches ``backtest`` uses to warm up."""
    return matches[: warmup_size(len(matches))]


def train_losses(
    matches: Sequence[MatchResult] | History, params: Params, scoring_format: ScoringFormat
) -> list[float]:
    """Each scored match's log-loss under §7 run on ``matches`` alone (its first half warms up).

    The same protocol as :func:`evaluate.run_online` with the ``default`` system (a
    Replayer: predict, then rate), cut to what the score needs: warm-up matches are
    only rated (their predictions would not count). Both halves go through the
    Replayer's batch methods; given the matches encoded (``replay.encode``, as
    :func:`tune` does once for every setting), its columnar ones.
    """
    replayer = Replayer(params, scoring_format)
    start = warmup_size(len(matches))
    if isinstance(matches, History):
        replayer.rate_history(matches, 0, start)
        probs, _ = replayer.predict_rate_history(matches, start)
        results = _results(matches)[start:]
    else:
        replayer.rate_all(matches[:start])
        probs, _ = replayer.predict_rate_all(matches[start:])
        results = [actual_result(m) for m in matches[start:]]
    return [_match_loss(p, y) for p, y in zip(probs, results, strict=True)]


def _match_loss(p: float, y: float) -> float:
    """One match's term of :func:`evaluate.log_loss`, without building lists for it."""
    if y == 1 or y == 0:
        q = p if y == 1 else 1.0 - p
        return -math.log(min(max(q, LOGLOSS_CLIP), 1.0 - LOGLOSS_CLIP))
    return log_loss([p], [y])


def train_score(
    matches: Sequence[MatchResult] | History, params: Params, scoring_format: ScoringFormat
) -> float:
    """Log-loss of §7 run on ``matches`` alone (its first half warms up)."""
    return statistics.fmean(train_losses(matches, params, scoring_format))


# The actual result of each match of the last encoded history asked about (tune asks
# about one history, once per setting).
_RESULTS: tuple[History, list[float]] | None = None


def _results(history: History) -> list[float]:
    """Each match's actual result (peers.actual_result), from its score line."""
    global _RESULTS
    if _RESULTS is None or _RESULTS[0] is not history:
        by_line = [game_result(games) for games in history.lines]
        _RESULTS = (history, [by_line[k] for k in history.column("line")])
    return _RESULTS[1]


@dataclass(frozen=True, slots=True)
class _Validated(ScoringFormat):
    """A scoring format whose matches :func:`tune` has already validated once.

    Every setting tried replays the training half with a fresh Replayer, which
    would validate each distinct score line again (a seventh of the work).
    """

    def validate_games(self, games: Sequence[tuple[int, int]]) -> None:
        return None


def _validated(matches: Sequence[MatchResult], scoring_format: ScoringFormat) -> ScoringFormat:
    """Validate every match's games once; the format to replay them with from then on."""
    for games in {m.games for m in matches}:
        scoring_format.validate_games(games)
    return _Validated(**{f.name: getattr(scoring_format, f.name) for f in fields(scoring_format)})


# Worker state: set before the pool forks, so nothing (Params holds a mapping proxy
# that does not pickle) has to travel to the workers but override dicts and names.
# (whole history in time order, its training half, the starting params, the format)
# The training half goes encoded (replay.encode): every setting replays the same columns.
_WORK: tuple[Sequence[MatchResult], History, Params, ScoringFormat] | None = None


def _score_overrides(overrides: Overrides) -> list[float]:
    assert _WORK is not None
    _, train, base, scoring_format = _WORK
    return train_losses(train, base.with_overrides(**overrides), scoring_format)


def objective(
    losses: Sequence[float], reference: Sequence[float], errors: float | None = None
) -> float:
    """A setting's training score: its log-loss, plus a margin unless it clearly beats ``reference``.

    ``losses`` and ``reference`` are per-match log-losses of the same scored training
    matches, in time order, under the setting and under the reference setting (the
    ladder's current one, or the first stage's choice). The scored matches are cut into
    :data:`FOLDS` consecutive folds (rolling origin: each fold is predicted after
    everything before it); the score is the mean log-loss plus
    :data:`SHRINK_STANDARD_ERRORS` standard errors of the fold means of the difference
    from the reference. The reference itself scores its plain log-loss, so a change must
    beat it on the folds by more than their noise to be chosen: on a short history the
    search keeps the reference, on a long one it moves where the gain is steady.
    """
    if len(losses) != len(reference):
        raise ValueError("losses and reference must score the same matches")
    diffs = [a - b for a, b in zip(losses, reference, strict=True)]
    k = min(FOLDS, len(diffs))
    if k < 2:
        return statistics.fmean(losses)
    edges = [len(diffs) * i // k for i in range(k + 1)]
    folds = [statistics.fmean(diffs[edges[i] : edges[i + 1]]) for i in range(k)]
    standard_error = statistics.stdev(folds) / math.sqrt(k)
    errors = SHRINK_STANDARD_ERRORS if errors is None else errors
    return statistics.fmean(losses) + errors * standard_error


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


def _key(overrides: Overrides) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(overrides.items()))


def search(
    score: Callable[[list[Overrides]], list[float]],
    start: Overrides,
    budget: int,
    seed: int = 0,
    progress: Progress | None = None,
    space: Space | None = None,
) -> tuple[Overrides, float, int]:
    """Random batch, coordinate descent, then a pass back to ``start`` where it costs nothing.

    Searches ``space`` (default :data:`SEARCH_SPACE`); returns (best setting, its
    score, settings scored) and never scores more than ``budget`` settings. The
    last pass resets each parameter to its ``start`` value when that keeps the
    score within :data:`SIMPLIFY_TOLERANCE` of the best, so parameters that do
    not matter on this history keep the ladder's values instead of noise.
    """
    space = SEARCH_SPACE if space is None else space
    rng = random.Random(seed)
    seen: dict[tuple[tuple[str, Any], ...], float] = {}

    def run(batch: list[Overrides], limit: int = budget) -> None:
        fresh: list[Overrides] = []
        for o in batch:
            if _key(o) not in seen and len(seen) + len(fresh) < limit:
                seen[_key(o)] = math.nan  # reserved, so duplicates in a batch run once
                fresh.append(o)
        for o, value in zip(fresh, score(fresh) if fresh else [], strict=True):
            seen[_key(o)] = value
        if progress is not None and fresh:
            progress(len(fresh))

    def best() -> tuple[Overrides, float]:
        key, value = min(seen.items(), key=lambda kv: (kv[1], repr(kv[0])))
        return dict(key), value

    start = {name: dim.clip(start[name]) for name, dim in space.items()}
    simplify_reserve = min(len(space), budget // 4)
    descent_budget = budget - simplify_reserve
    randoms = [start] + [
        {name: dim.draw(rng) for name, dim in space.items()}
        for _ in range(max(int(budget * RANDOM_SHARE) - 1, 0))
    ]
    run(randoms, descent_budget)

    numbers = {name: dim for name, dim in space.items() if isinstance(dim, Dimension)}

    def descend(current: Overrides, current_value: float, limit: int) -> None:
        steps = {name: FIRST_STEP * (dim.high - dim.low) for name, dim in numbers.items()}
        while len(seen) < limit:
            before = len(seen)
            for name, dim in space.items():
                if isinstance(dim, Choice):
                    batch = [{**current, name: option} for option in dim.options]
                else:
                    batch = [
                        {**current, name: dim.clip(current[name] + factor * steps[name])}
                        for factor in (-1.0, 1.0, -0.5, 0.5)
                    ]
                run(batch, limit)
                scored = [(seen[_key(o)], repr(_key(o)), o) for o in batch if _key(o) in seen]
                value, _, point = min(
                    scored, key=lambda t: (t[0], t[1]), default=(math.inf, "", {})
                )
                if value < current_value:
                    current, current_value = point, value
                elif name in steps:
                    steps[name] /= 2.0
            if len(seen) == before or all(
                steps[n] < MIN_STEP * (d.high - d.low) for n, d in numbers.items()
            ):
                return  # nothing new left to try, or every step is already tiny

    # Coordinate descent from the best few random settings (distinct starts), the rest
    # of the budget shared between them: one valley's floor is not always the lowest.
    ranked = sorted(((v, repr(k), k) for k, v in seen.items()), key=lambda t: (t[0], t[1]))
    starts = [dict(k) for _, _, k in ranked[:DESCENT_STARTS]]
    first_seen = len(seen)
    for i, point in enumerate(starts):
        limit = first_seen + (descent_budget - first_seen) * (i + 1) // len(starts)
        descend(point, seen[_key(point)], limit)

    chosen, chosen_value = best()
    ceiling = chosen_value + SIMPLIFY_TOLERANCE
    for name in space:
        if chosen[name] == start[name]:
            continue
        candidate = {**chosen, name: start[name]}
        run([candidate])
        value = seen.get(_key(candidate), math.inf)
        if value <= ceiling:
            chosen, chosen_value = candidate, value
    return chosen, chosen_value, len(seen)


def _budgets(budget: int, parts: int) -> list[int]:
    """``budget`` shared out over ``parts`` searches, the first ones taking any remainder."""
    return [budget // parts + (1 if i < budget % parts else 0) for i in range(parts)]


def is_team_history(matches: Sequence[MatchResult]) -> bool:
    """Whether any side has more than one player (then team methods differ)."""
    return any(len(m.side_a) > 1 or len(m.side_b) > 1 for m in matches)


def _search_model(
    model: str,
    base: Params,
    teams: bool,
    budget: int,
    reference: Sequence[float],
    pool: _Workers,
    losses: dict[tuple[tuple[str, Any], ...], list[float]],
    seed: int = 0,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Both stages of one outcome model's search; its setting and training scores.

    Stage 1 searches the model's core (:func:`search_space` stage 1) from the ladder's
    setting, each candidate scored by :func:`objective` against the ladder's setting.
    Stage 2 searches the rest with stage 1's choice fixed, each candidate scored against
    stage 1's choice, so a parameter leaves the ladder's value only when the folds say
    it pays; and stage 2's choice is kept only when it gains at least
    :data:`SECOND_STAGE_MIN_GAIN` of stage 1's training log-loss. ``objective`` in the result is the final setting's score against the
    ladder's setting, which is how the two models are compared. ``losses`` keeps every
    setting's training losses (by its overrides), so none is replayed twice.
    """
    stat_weights = bool(base.stat_weights)
    fixed: Overrides = {"outcome_model": model}
    chosen = {name: getattr(base, name) for name in search_space(model, teams, stat_weights)}
    first = max(1, round(budget * FIRST_STAGE_SHARE)) if budget > 1 else budget
    against = list(reference)
    for stage, share in ((1, first), (2, budget - first)):
        space = search_space(model, teams, stat_weights, stage=stage)
        if share < 1 or not space:
            continue
        held = {**fixed, **{n: v for n, v in chosen.items() if n not in space}}
        errors = SHRINK_STANDARD_ERRORS if stage == 1 else SECOND_STAGE_STANDARD_ERRORS

        def score(
            batch: list[Overrides],
            held: Overrides = held,
            against: list[float] = against,
            errors: float = errors,
        ) -> list[float]:
            keys = [_key({**held, **o}) for o in batch]
            todo = [key for key in keys if key not in losses]
            runs = pool.map(_score_overrides, [dict(key) for key in todo])
            losses.update(zip(todo, runs, strict=True))
            return [objective(losses[key], against, errors) for key in keys]

        setting, _, _ = search(
            score,
            {name: chosen[name] for name in space},
            share,
            seed=seed + stage - 1,
            progress=progress,
            space=space,
        )
        found = losses[_key({**fixed, **chosen, **setting})]
        gain = 1.0 - statistics.fmean(found) / statistics.fmean(against)
        if stage == 2 and gain < SECOND_STAGE_MIN_GAIN:
            continue  # too small to trust across the halves: stage 1's choice stands
        chosen.update(setting)
        against = found
    params = {**fixed, **chosen}
    final = losses.get(_key(params)) or _score_overrides(params)
    return {
        "params": params,
        "train_logloss": statistics.fmean(final),
        "objective": objective(final, reference),
    }


def tune(
    matches: Sequence[MatchResult],
    params: Params,
    scoring_format: ScoringFormat,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    workers: int | None = None,
    progress: Progress | None = None,
    floor: bool = True,
) -> dict[str, Any]:
    """Tune both outcome models on the first half, then score on the second.

    Every setting tried has the wrong-way floor on (a ladder cannot switch it off);
    ``floor=False`` searches with it off instead, to show what it costs or gains.

    Returns ``{"params", "floor", "models", "test"}``: ``params`` is the chosen setting
    (``outcome_model`` and the parameters searched for it); ``models`` each outcome
    model's best setting, its training log-loss and its :func:`objective` against the
    ladder's setting (the lower one is chosen), best first; ``test`` the held-out
    metrics of ``tuned``, ``runner_up`` (the other model's best), ``default``
    (the starting setting) and each peer (``None`` metrics when a peer's package
    is missing).
    """
    global _WORK, _RESULTS
    if budget < 1:
        raise EngineError("the budget must be at least 1 setting")
    matches = time_order(matches)
    if len(matches) < MIN_MATCHES:
        raise EngineError(f"tune needs at least {MIN_MATCHES} matches, not {len(matches)}")
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    base = params.with_overrides(wrong_way_floor=floor)
    teams = is_team_history(matches)
    _WORK = (matches, encode(train_split(matches)), base, _validated(matches, scoring_format))
    pool = _Workers(workers)
    found: dict[str, dict[str, Any]] = {}
    try:
        # The ladder's current setting: what every change is measured against (and the
        # first setting its own model's search tries).
        reference = _score_overrides({})
        box = search_space(base.outcome_model, teams, stat_weights=bool(base.stat_weights))
        ladder = {"outcome_model": base.outcome_model, **{n: getattr(base, n) for n in box}}
        losses = {_key(ladder): reference}
        for model, share in zip(OUTCOME_MODELS, _budgets(budget, len(OUTCOME_MODELS)), strict=True):
            if share < 1:
                continue
            found[model] = _search_model(
                model, base, teams, share, reference, pool, losses, seed=seed, progress=progress
            )
        ranked = sorted(found, key=lambda m: (found[m]["objective"], m))
        tuned = found[ranked[0]]["params"]
        # The slowest peer first, so two processes finish together.
        jobs: list[tuple[str, Overrides | None]] = [
            ("trueskill", None),
            ("tuned", tuned),
            *(("runner_up", found[m]["params"]) for m in ranked[1:2]),
            ("default", {}),
            *((name, None) for name in PEERS if name != "trueskill"),
        ]
        report = dict(zip((name for name, _ in jobs), pool.map(_held_out, jobs), strict=True))
    finally:
        pool.close()
        _WORK = _RESULTS = None
    order = [name for name in ("tuned", "runner_up", "default", *PEERS) if name in report]
    return {
        "params": tuned,
        "floor": floor,
        "models": {m: found[m] for m in ranked},
        "test": {name: report[name] for name in order},
    }


def best_peer(test: Mapping[str, Mapping[str, float | None]]) -> tuple[str, float] | None:
    """The peer with the lowest held-out log-loss (None when no peer could run)."""
    scores = [(test[p]["logloss"], p) for p in PEERS if test.get(p, {}).get("logloss") is not None]
    if not scores:
        return None
    value, name = min(scores)  # type: ignore[type-var]
    return name, float(value)  # type: ignore[arg-type]


def gain_over_best_peer(result: Mapping[str, Any]) -> tuple[str, float, float] | None:
    """(best peer, its log-loss, the tuned setting's relative gain over it: 0.02 is 2% better)."""
    peer = best_peer(result["test"])
    tuned = result["test"]["tuned"]["logloss"]
    if peer is None or tuned is None:
        return None
    return peer[0], peer[1], (peer[1] - tuned) / peer[1]


def _paste_value(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def ladder_settings(result: Mapping[str, Any]) -> str:
    """The tuned setting as ``name: value`` lines, named as the ladder's settings are."""
    return "\n".join(f"{name}: {_paste_value(v)}" for name, v in result["params"].items())


def format_tune(result: dict[str, Any], params: Params, matches: int) -> str:
    """The human report of :func:`tune`: the setting found, the held-out table, the paste block."""
    half = warmup_size(matches)
    models = result["models"]
    chosen = result["params"]["outcome_model"]
    lines = [
        f"Tuned on the first {half} of {matches} matches; scored on the last "
        f"{matches - half}, which the search never saw.",
        "Training log-loss by outcome model (with the fold margin against the start): "
        + ", ".join(
            f"{m} {models[m]['train_logloss']:.4f} ({models[m]['objective']:.4f})" for m in models
        )
        + f"; chosen: {chosen}."
        + ("" if result.get("floor", True) else " Searched with the wrong-way floor OFF."),
        "",
        "| parameter | start | tuned |",
        "| --- | --- | --- |",
    ]
    for name, value in result["params"].items():
        lines.append(f"| {name} | {_paste_value(getattr(params, name))} | {_paste_value(value)} |")
    lines += ["", format_table(result["test"])]
    if "runner_up" in result["test"]:
        other = next(m for m in models if m != chosen)
        lines.append(f"(runner_up: the best {other} setting.)")
    gain = gain_over_best_peer(result)
    if gain is not None:
        peer, value, share = gain
        word = "better" if share >= 0 else "worse"
        lines.append(
            f"Held out, tuned log-loss {result['test']['tuned']['logloss']:.4f} against the best "
            f"peer ({peer} {value:.4f}): {abs(share) * 100:.1f}% {word}."
        )
    lines.append("")
    if result.get("floor", True):
        lines += [
            "Ladder settings (paste into the ladder's rating settings, "
            "or apply them with manage.py tune ... --apply LADDER_SLUG):",
            ladder_settings(result),
        ]
    else:
        lines.append(
            "Not for a ladder: searched with the wrong-way floor off, which a ladder never is."
        )
    return "\n".join(lines).rstrip("\n")
