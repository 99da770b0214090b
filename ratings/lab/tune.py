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

Both outcome models of RATINGS.md §3 step 2 are searched **jointly** by one kept
optimiser, optuna's TPE sampler with a fixed seed (:func:`search`): the model is a choice of
the search, each model's own numbers (``margin_boost``; ``match_win_bonus`` and
``margin_weight``) are searched when it is chosen, and every number every model uses
(:data:`COMMON_SPACE`) always; on a team history also the team method and how a side's RD is
combined. The first settings tried are the ladder's own, under each model. The wrong-way
floor (§3 step 9) is on in every setting tried, as it is on every ladder; ``floor=False``
searches without it, only to show what it changes.

What a setting must do to be chosen (:func:`objective`): the scored training matches
are cut into time-ordered folds, and a setting scores its training log-loss plus a
standard error of its fold-by-fold difference from the ladder's setting. So a change is
chosen only when it beats the ladder's setting steadily across the folds, not when it
wins on a few lucky matches. The folds also stop the search early: each setting reports its
running log-loss fold by fold, and one worse than the median of the settings before it at
the same fold is pruned (optuna's median rule) and cannot be chosen; the whole search stops
when :data:`PATIENCE` settings in a row found nothing better. Each model's choice is then
the consensus of its :data:`CONSENSUS` best settings by that score (:func:`consensus`: each
number their median, each choice the commonest), not the single best, whose corner of the box
is partly luck; the validation fold picks between the models. A last pass puts back the
ladder's value of every parameter that does not earn its change.

Settings are asked for and scored :data:`BATCH` at a time (the sampler's "constant liar"
keeps a batch apart) on ``workers`` processes; the result does not depend on how many.
Nothing of the second half is read until the setting is chosen. The report then gives the
tuned setting's held-out gain over the defaults and over the best peer with a 95% paired
bootstrap interval over the held-out matches (:func:`paired_bootstrap`): when the interval
holds 0, the tuned setting is "no better" than that system.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import statistics
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, NotRequired, TypedDict, TypeVar

from ratings.engine.formats import ScoringFormat
from ratings.engine.replay import History, Replayer, encode
from ratings.engine.settings import (
    COMPOSITE_RD_CHOICES,
    NEWCOMER_STARTS,
    OUTCOME_MODELS,
    SETTING,
    TEAM_METHODS,
)
from ratings.engine.types import EngineError, MatchResult, Params
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
from ratings.lab.peers import (
    PEERS,
    Default,
    PeerUnavailable,
    RatingSystem,
    actual_result,
    game_result,
)

if TYPE_CHECKING:
    from optuna.trial import Trial


@dataclass(frozen=True, slots=True)
class Dimension:
    """One searched number: its box and how finely its values are rounded."""

    low: float
    high: float
    digits: int  # 0 rounds to an integer

    def clip(self, value: float) -> float | int:
        value = round(min(max(float(value), self.low), self.high), self.digits)
        return int(value) if self.digits == 0 else value


@dataclass(frozen=True, slots=True)
class Choice:
    """One searched choice among names (a team method, a composite RD)."""

    options: tuple[str, ...]

    def clip(self, value: str) -> str:
        return value if value in self.options else self.options[0]


Space = Mapping[str, Dimension | Choice]

#: The boxes the search tries each number in: the sensible ranges, not every
#: value the engine accepts. tau around §2's sensible 0.3–0.8 (to 1.2); the expected
#: score's slope from half to 1.75 times standard Glicko-2's; a new player's RD from a
#: sure self-assessment's to an unknown one's; damping, gate and inactivity period within
#: what a club would set. Wider boxes (tau 0.2–1.5, scale 100–800, initial RD 50–500, ...)
#: let the search pair a steep slope with a small RD, each undoing the other on the
#: training half only (chosen on the training halves alone: docs/RATINGS_EVALUATION.md
#: "The search's box and its consensus").
#: The outcome models' own numbers follow: margin_boost for margin_information, the match-win
#: bonus and the margin's weight for score (which model uses what is the engine's list's
#: to say, ``Setting.outcome_models``: RATINGS.md §3 step 2).
BOXES: dict[str, Dimension] = {
    "tau": Dimension(0.3, 1.2, 3),
    "scale_factor": Dimension(200.0, 700.0, 0),
    "repetition_alpha": Dimension(0.0, 0.5, 3),
    "diversity_threshold": Dimension(0.0, 0.3, 3),
    "margin_clamp": Dimension(0.1, 1.0, 3),
    "initial_rd": Dimension(150.0, 400.0, 0),
    "rating_period_days": Dimension(3.0, 60.0, 0),
    "margin_boost": Dimension(0.0, 3.0, 3),
    "match_win_bonus": Dimension(0.0, 0.5, 3),
    "margin_weight": Dimension(0.0, 2.0, 3),
}
#: The numbers every outcome model uses.
COMMON_SPACE: dict[str, Dimension] = {
    name: dim for name, dim in BOXES.items() if not SETTING[name].outcome_models
}
#: What only one outcome model uses.
MODEL_SPACE: dict[str, dict[str, Dimension]] = {
    model: {name: dim for name, dim in BOXES.items() if model in SETTING[name].outcome_models}
    for model in OUTCOME_MODELS
}
#: Every searched number, whichever model uses it.
SEARCH_SPACE: dict[str, Dimension] = {
    **COMMON_SPACE,
    **{name: dim for space in MODEL_SPACE.values() for name, dim in space.items()},
}
#: Team methods tried on a team history. performance_weighted joins them when the
#: starting setting has stat weights (it refuses to run without).
TEAM_METHOD_CHOICES = tuple(m for m in TEAM_METHODS if m != "performance_weighted")
COMPOSITE_RD_OPTIONS = COMPOSITE_RD_CHOICES
#: The fewest matches to tune on: the training half must score at least one match.
MIN_MATCHES = 4
#: Settings tried when no budget is given: above the 200 the product promises.
DEFAULT_BUDGET = 240
#: Log-loss a parameter may cost and still go back to the ladder's value: below the
#: noise of a training half (a few thousandths on ~900 scored matches).
SIMPLIFY_TOLERANCE = 0.0005
#: Time-ordered folds of the scored training matches (:func:`objective`, and the pruning).
FOLDS = 4
#: Standard errors (of the fold means) a change must win by: about one keeps a short
#: history near the ladder's setting and lets a long one move (measured, see
#: docs/RATINGS_EVALUATION.md "Tuning").
SHRINK_STANDARD_ERRORS = 1.0
#: Settings scored together (the process pool's batch); fixed, so the search does not
#: depend on how many processes run it.
BATCH = 2
#: Random settings before TPE models the scores (optuna's n_startup_trials).
STARTUP_TRIALS = 24
#: Completed settings before the median rule prunes any.
PRUNE_AFTER = 12
#: The search stops after this many settings in a row without a better score.
PATIENCE = 80
#: The best settings whose consensus (:func:`consensus`) is each model's choice; 0 takes the
#: incumbent with the lowest validation log-loss instead (chosen on the training halves
#: alone: docs/RATINGS_EVALUATION.md "The search's box and its consensus").
CONSENSUS = 10
#: Take the consensus only when its validation fold beats the best incumbent's (measured
#: and not kept: it nearly never did, and the search found no more).
CONSENSUS_BY_VALIDATION = False
#: The paired bootstrap of the held-out gain: resamples, interval, seed.
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_LEVEL = 0.95
BOOTSTRAP_SEED = 0

# A parameter's value in a setting: a number, or a name (a team method, an outcome model).
Value = float | int | str
Overrides = dict[str, Value]
SettingKey = tuple[tuple[str, Value], ...]  # a setting as a sorted, hashable key


def search_space(outcome_model: str, teams: bool = False, stat_weights: bool = False) -> Space:
    """The box searched for one outcome model; with ``teams`` the team method and composite RD too."""
    if outcome_model not in MODEL_SPACE:
        raise EngineError(f"outcome_model must be one of {', '.join(OUTCOME_MODELS)}")
    space: dict[str, Dimension | Choice] = {**COMMON_SPACE, **MODEL_SPACE[outcome_model]}
    space["newcomer_start"] = Choice(NEWCOMER_STARTS)
    if teams:
        methods = TEAM_METHOD_CHOICES + (("performance_weighted",) if stat_weights else ())
        space["team_method"] = Choice(methods)
        space["composite_rd"] = Choice(COMPOSITE_RD_OPTIONS)
    return space


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


def _held_out(job: tuple[str, Overrides | None]) -> tuple[dict[str, float | None], list[float]]:
    """§7 metrics on the whole history for one system (tuned/default with overrides, or a
    peer), and each held-out match's log-loss (empty when the peer cannot run)."""
    assert _WORK is not None
    matches, _, base, scoring_format = _WORK
    name, overrides = job
    if overrides is not None:
        system: RatingSystem | PeerUnavailable = Default(
            base.with_overrides(**overrides), scoring_format, name=name
        )
    else:
        system = build_system(name, base, scoring_format)
    if isinstance(system, PeerUnavailable):
        return unavailable_metrics(), []
    trace = run_online(matches, system)
    start = warmup_size(len(matches))
    losses = [
        _match_loss(p, y) for p, y in zip(trace.probs[start:], trace.outcomes[start:], strict=True)
    ]
    return metrics(trace), losses


_Job = TypeVar("_Job")
_Done = TypeVar("_Done")


class _Workers:
    """Maps the worker functions above, in a process pool when there is more than one worker."""

    def __init__(self, workers: int) -> None:
        self.pool = None
        if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
            self.pool = multiprocessing.get_context("fork").Pool(workers)

    def map(self, fn: Callable[[_Job], _Done], items: list[_Job]) -> list[_Done]:
        if self.pool is None:
            return [fn(item) for item in items]
        return self.pool.map(fn, items, chunksize=1)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()


def _key(overrides: Overrides) -> SettingKey:
    return tuple(sorted(overrides.items()))


def fold_means(losses: Sequence[float]) -> list[float]:
    """The running log-loss after each of the :data:`FOLDS` time-ordered folds (what a setting
    reports to the pruner, fold by fold)."""
    k = max(1, min(FOLDS, len(losses)))
    edges = [len(losses) * (i + 1) // k for i in range(k)]
    return [statistics.fmean(losses[:edge]) for edge in edges]


def _suggest(trial: Trial, spaces: Mapping[str, Space]) -> Overrides:
    """One setting from the trial: the outcome model, then the numbers and choices of its box."""
    model = trial.suggest_categorical("outcome_model", list(spaces))
    setting: Overrides = {"outcome_model": model}
    for name, dim in spaces[model].items():
        if isinstance(dim, Choice):
            setting[name] = trial.suggest_categorical(name, list(dim.options))
        elif dim.digits == 0:
            setting[name] = dim.clip(trial.suggest_int(name, int(dim.low), int(dim.high)))
        else:
            setting[name] = dim.clip(trial.suggest_float(name, dim.low, dim.high))
    return setting


def split_validation(losses: Sequence[float]) -> tuple[Sequence[float], Sequence[float]]:
    """The scored training matches cut in two at the last of :data:`FOLDS` time-ordered folds:
    the first folds, which the search minimises, and the last, which stops it."""
    cut = len(losses) * (FOLDS - 1) // FOLDS if len(losses) >= FOLDS else len(losses)
    return losses[:cut], losses[cut:]


@dataclass
class Searched:
    """What :func:`search` found: every setting's training losses, the search objective of
    each one not pruned, and the settings that were the best so far when they were scored
    (the incumbents, in order), each with its log-loss on the validation fold."""

    losses: dict[SettingKey, list[float]]
    scores: dict[SettingKey, float]
    incumbents: list[tuple[SettingKey, float]]

    def chosen(self, model: str | None = None) -> SettingKey | None:
        """The incumbent (of ``model``, if given) with the lowest validation log-loss."""
        mine = [
            (value, i, key)
            for i, (key, value) in enumerate(self.incumbents)
            if model is None or dict(key)["outcome_model"] == model
        ]
        return min(mine)[2] if mine else None


def search(
    score: Callable[[list[Overrides]], list[list[float]]],
    starts: Sequence[Overrides],
    spaces: Mapping[str, Space],
    reference: Sequence[float],
    budget: int,
    seed: int = 0,
    progress: Progress | None = None,
) -> Searched:
    """TPE over ``spaces`` (outcome model -> its box), ``starts`` first; never more than ``budget``.

    ``score`` maps a batch of settings to their per-match training losses. The search
    minimises :func:`objective` against ``reference`` on the first folds of the scored
    training matches (:func:`split_validation`); each setting reports its running log-loss
    fold by fold (:func:`fold_means`) and the median rule prunes one that falls behind.
    Early stopping on the last fold: each new best setting (an incumbent, per outcome
    model) is scored on the validation fold, which the search never minimises, and the
    search stops after :data:`PATIENCE` settings without a better validation log-loss.
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(
            seed=seed,
            n_startup_trials=STARTUP_TRIALS,
            multivariate=True,
            group=True,
            constant_liar=True,
        )
    pruner = optuna.pruners.MedianPruner(n_startup_trials=PRUNE_AFTER, n_warmup_steps=0)
    study = optuna.create_study(direction="minimize", sampler=sampler, pruner=pruner)
    for start in starts:
        study.enqueue_trial(dict(start), skip_if_exists=True)
    fit_reference, _ = split_validation(reference)
    found = Searched({}, {}, [])
    best: dict[Value, float] = {}  # by outcome model
    best_validation, since_best, asked = math.inf, 0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        while asked < budget and since_best < PATIENCE:
            trials = [study.ask() for _ in range(min(BATCH, budget - asked))]
            asked += len(trials)
            settings = [_suggest(trial, spaces) for trial in trials]
            todo = list({_key(s): s for s in settings if _key(s) not in found.losses}.values())
            found.losses.update(zip((_key(s) for s in todo), score(todo), strict=True))
            for trial, setting in zip(trials, settings, strict=True):
                key = _key(setting)
                fit, validation = split_validation(found.losses[key])
                since_best += 1
                if key not in found.scores and _pruned(trial, fold_means(fit)):
                    study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                    continue
                value = objective(fit, fit_reference)
                found.scores[key] = value
                study.tell(trial, value)
                model = setting["outcome_model"]
                if value < best.get(model, math.inf):
                    best[model] = value
                    held = statistics.fmean(validation) if validation else value
                    found.incumbents.append((key, held))
                    if held < best_validation:
                        best_validation, since_best = held, 0
            if progress is not None:
                progress(len(trials))
    return found


def consensus(found: Searched, model: str, space: Space, k: int) -> Overrides:
    """The setting the ``k`` best settings of ``model`` (by the search objective) agree on:
    each number their median, each choice the most common (the better-ranked on a tie)."""
    mine = sorted(
        (value, i, key)
        for i, (key, value) in enumerate(found.scores.items())
        if dict(key)["outcome_model"] == model
    )[:k]
    best = [dict(key) for _, _, key in mine]
    setting: Overrides = {"outcome_model": model}
    for name, dim in space.items():
        values = [b[name] for b in best]
        if isinstance(dim, Choice):
            setting[name] = max(values, key=lambda v: (values.count(v), -values.index(v)))
        else:
            setting[name] = dim.clip(statistics.median([float(v) for v in values]))
    return setting


def _pruned(trial: Trial, running: Sequence[float]) -> bool:
    """Report the running log-loss fold by fold; whether the median rule prunes the setting."""
    for step, value in enumerate(running):
        trial.report(value, step)
        if trial.should_prune():
            return True
    return False


class Bootstrap(TypedDict):
    """A relative log-loss gain (0.02 is 2% better) and its ``level`` percentile interval."""

    gain: float
    low: float
    high: float
    level: float


class PeerGain(Bootstrap):
    """The gain over the best peer, named."""

    peer: str


class Gains(TypedDict):
    """:func:`tune`'s held-out gains: over the defaults, and over the best peer (when one ran)."""

    defaults: Bootstrap
    best_peer: NotRequired[PeerGain]


class ModelBest(TypedDict):
    """An outcome model's best setting and its log-losses on the training half."""

    params: Overrides
    train_logloss: float
    objective: float  # :func:`objective` against the ladder's setting
    validation_logloss: float


Metrics = dict[str, float | None]  # §7's metrics of one system (``evaluate.metrics``)


class TuneResult(TypedDict):
    """What :func:`tune` returns (and ``tune --json`` prints)."""

    params: Overrides
    floor: bool
    models: dict[str, ModelBest]
    test: dict[str, Metrics]
    gain: Gains


def paired_bootstrap(
    candidate: Sequence[float],
    baseline: Sequence[float],
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = BOOTSTRAP_LEVEL,
    seed: int = BOOTSTRAP_SEED,
) -> Bootstrap:
    """The relative log-loss gain of ``candidate`` over ``baseline`` (per-match losses of the same
    matches, 0.02 is 2% better) and its percentile interval over matches resampled in pairs."""
    import numpy as np

    if len(candidate) != len(baseline) or not candidate:
        raise ValueError("the bootstrap needs the losses of the same matches, at least one")
    a, b = np.asarray(candidate, dtype=float), np.asarray(baseline, dtype=float)
    rng = np.random.default_rng(seed)
    gains = np.empty(resamples)
    for i in range(resamples):
        pick = rng.integers(0, len(a), len(a))
        base = b[pick].mean()
        gains[i] = (base - a[pick].mean()) / base
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(gains, [tail, 1.0 - tail])
    return {
        "gain": float((b.mean() - a.mean()) / b.mean()),
        "low": float(low),
        "high": float(high),
        "level": level,
    }


def is_team_history(matches: Sequence[MatchResult]) -> bool:
    """Whether any side has more than one player (then team methods differ)."""
    return any(len(m.side_a) > 1 or len(m.side_b) > 1 for m in matches)


def _simplify(
    setting: Overrides,
    ladder: Overrides,
    reference: Sequence[float],
    losses: dict[SettingKey, list[float]],
    score: Callable[[list[Overrides]], list[list[float]]],
    budget: int,
) -> Overrides:
    """Put back the ladder's value of each parameter that does not earn its change (within
    :data:`SIMPLIFY_TOLERANCE` of the objective), one at a time, at most ``budget`` tries."""
    value = objective(losses[_key(setting)], reference)
    for name in setting:
        if budget < 1:
            break
        if name == "outcome_model" or name not in ladder or setting[name] == ladder[name]:
            continue
        candidate = {**setting, name: ladder[name]}
        key = _key(candidate)
        if key not in losses:
            losses[key] = score([candidate])[0]
            budget -= 1
        if objective(losses[key], reference) <= value + SIMPLIFY_TOLERANCE:
            setting = candidate
    return setting


def tune(
    matches: Sequence[MatchResult],
    params: Params,
    scoring_format: ScoringFormat,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    workers: int | None = None,
    progress: Progress | None = None,
    floor: bool = True,
) -> TuneResult:
    """Tune both outcome models jointly on the first half, then score on the second.

    Every setting tried has the wrong-way floor on (a ladder cannot switch it off);
    ``floor=False`` searches with it off instead, to show what it costs or gains.

    Returns ``{"params", "floor", "models", "test", "gain"}``: ``params`` is the chosen
    setting (``outcome_model`` and the parameters searched for it); ``models`` each outcome
    model's best setting, its training log-loss and its :func:`objective` against the
    ladder's setting (the lower one is chosen), best first; ``test`` the held-out metrics
    of ``tuned``, ``runner_up`` (the other model's best), ``default`` (the starting
    setting) and each peer (``None`` metrics when a peer's package is missing); ``gain``
    the tuned setting's held-out gain over ``defaults`` and over the ``best_peer``, each
    with its paired bootstrap interval (:func:`paired_bootstrap`).
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
    stat_weights = bool(base.stat_weights)
    spaces = {m: search_space(m, teams, stat_weights) for m in OUTCOME_MODELS}
    _WORK = (matches, encode(train_split(matches)), base, _validated(matches, scoring_format))
    pool = _Workers(workers)

    def score(batch: list[Overrides]) -> list[list[float]]:
        return pool.map(_score_overrides, batch)

    try:
        # The ladder's current setting: what every change is measured against, and the
        # first setting tried under each model (the other model with its own defaults).
        reference = _score_overrides({})
        ladder = {name: getattr(base, name) for space in spaces.values() for name in space}
        starts = [
            {"outcome_model": m, **{n: dim.clip(ladder[n]) for n, dim in spaces[m].items()}}
            for m in sorted(OUTCOME_MODELS, key=lambda m: m != base.outcome_model)
        ]
        # Kept back from the search: each model's consensus, then a try per parameter to
        # put back the ladder's value.
        reserve = min(max(len(space) for space in spaces.values()) + len(spaces), budget // 4)
        found = search(
            score, starts, spaces, reference, budget - reserve, seed=seed, progress=progress
        )
        chosen: dict[str, Overrides] = {}
        losses = found.losses

        def validation(setting: Overrides) -> float:
            fit, held = split_validation(losses[_key(setting)])
            return statistics.fmean(held or fit)

        for model in OUTCOME_MODELS:
            key = found.chosen(model)
            if key is not None and CONSENSUS:
                agreed = consensus(found, model, spaces[model], CONSENSUS)
                if _key(agreed) not in losses:
                    losses[_key(agreed)] = score([agreed])[0]
                    reserve -= 1
                if not CONSENSUS_BY_VALIDATION or validation(agreed) < validation(dict(key)):
                    key = _key(agreed)
            if key is not None:
                chosen[model] = dict(key)

        ranked = sorted(chosen, key=lambda m: (validation(chosen[m]), m))
        chosen[ranked[0]] = _simplify(
            chosen[ranked[0]], ladder, reference, losses, score, max(reserve, 0)
        )
        models: dict[str, ModelBest] = {}
        for model, setting in chosen.items():
            params_searched: Overrides = {
                "outcome_model": model,
                **{n: setting[n] for n in spaces[model]},
            }
            mine = losses[_key(params_searched)]
            models[model] = {
                "params": params_searched,
                "train_logloss": statistics.fmean(mine),
                "objective": objective(mine, reference),
                "validation_logloss": statistics.fmean(split_validation(mine)[1] or mine),
            }
        tuned = models[ranked[0]]["params"]
        # The slowest peer first, so two processes finish together.
        jobs: list[tuple[str, Overrides | None]] = [
            ("trueskill", None),
            ("tuned", tuned),
            *(("runner_up", models[m]["params"]) for m in ranked[1:2]),
            ("default", {}),
            *((name, None) for name in PEERS if name != "trueskill"),
        ]
        outcomes = dict(zip((name for name, _ in jobs), pool.map(_held_out, jobs), strict=True))
    finally:
        pool.close()
        _WORK = _RESULTS = None
    order = [name for name in ("tuned", "runner_up", "default", *PEERS) if name in outcomes]
    test = {name: outcomes[name][0] for name in order}
    held = {name: outcomes[name][1] for name in order}
    gain: Gains = {"defaults": paired_bootstrap(held["tuned"], held["default"])}
    peer = best_peer(test)
    if peer is not None:
        gain["best_peer"] = {"peer": peer[0], **paired_bootstrap(held["tuned"], held[peer[0]])}
    return {
        "params": tuned,
        "floor": floor,
        "models": {m: models[m] for m in ranked},
        "test": test,
        "gain": gain,
    }


def best_peer(test: Mapping[str, Mapping[str, float | None]]) -> tuple[str, float] | None:
    """The peer with the lowest held-out log-loss (None when no peer could run)."""
    scores = [(test[p]["logloss"], p) for p in PEERS if test.get(p, {}).get("logloss") is not None]
    if not scores:
        return None
    value, name = min(scores)
    return name, float(value)  # type: ignore[arg-type]


def gain_over_best_peer(result: TuneResult) -> tuple[str, float, float] | None:
    """(best peer, its log-loss, the tuned setting's relative gain over it: 0.02 is 2% better)."""
    peer = best_peer(result["test"])
    tuned = result["test"]["tuned"]["logloss"]
    if peer is None or tuned is None:
        return None
    return peer[0], peer[1], (peer[1] - tuned) / peer[1]


def _interval(gain: Bootstrap) -> str:
    return (
        f"{gain['gain'] * 100:+.1f}% ({gain['level'] * 100:.0f}% interval "
        f"{gain['low'] * 100:+.1f}% to {gain['high'] * 100:+.1f}%)"
    )


def gain_lines(result: TuneResult) -> list[str]:
    """The held-out gains in words: over the defaults and over the best peer, each with its
    paired bootstrap interval; "no better than" when the interval holds 0."""
    test, gains = result["test"], result["gain"]
    tuned = test["tuned"]["logloss"]
    if tuned is None:
        return []
    # (label, gain, what it is measured against)
    compared: list[tuple[str, Bootstrap, str]] = [
        ("the defaults", gains["defaults"], f"the defaults ({test['default']['logloss']:.4f})")
    ]
    if (peer := gains.get("best_peer")) is not None:
        name = peer["peer"]
        against = f"the best peer ({name} {test[name]['logloss']:.4f})"
        compared.append(("the best peer", peer, against))
    lines = []
    for label, gain, against in compared:
        if gain["low"] <= 0.0 <= gain["high"]:
            verdict = f"no better than {label}"
        elif gain["low"] > 0.0:
            verdict = f"better than {label}"
        else:
            verdict = f"worse than {label}"
        lines.append(
            f"Held out, tuned log-loss {tuned:.4f} against {against}: gain {_interval(gain)}: "
            f"{verdict}."
        )
    return lines


def _paste_value(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def ladder_settings(result: TuneResult) -> str:
    """The tuned setting as ``name: value`` lines, named as the ladder's settings are."""
    return "\n".join(f"{name}: {_paste_value(v)}" for name, v in result["params"].items())


def format_tune(result: TuneResult, params: Params, matches: int) -> str:
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
    lines += gain_lines(result)
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
