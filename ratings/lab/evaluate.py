"""The evaluation of RATINGS.md §7: predict each match, then rate it; score the last half.

The protocol, exactly:

- Matches are taken in time order: by date, then id (file order within a
  day, as ``replay.replay``). Every system sees every match: it predicts it (§6), then
  rates it. Nothing is fitted on a match before it has been predicted.
- The first ``N // 2`` matches warm up; the metrics cover the last ``N - N // 2``.
- ``y`` is 1 when side A won more games, 0 when side B did (0.5 for an even
  count, which valid formats do not allow).
- ``logloss``: mean of ``-(y ln P + (1-y) ln(1-P))`` with ``P`` clipped to
  ``[1e-15, 1 - 1e-15]``. ``brier``: mean ``(P - y)^2``. ``avg_error``: the
  thesis' mean ``|y - P|``.
- ``accuracy``: ``P > 0.5`` picks side A, ``P < 0.5`` side B; a pick of the
  winner scores 1. ``P == 0.5`` picks nobody and scores 1/2, which is what a
  coin toss would score on average, so an undecided system is neither rewarded
  nor punished.
- ``spearman``: rank correlation (average ranks for ties) between each player's
  final rating and win percentage over the whole history, players with at least
  10 matches.
- ``convergence``: for each player with at least 10 matches, the number of
  matches after which the rating stays within the system's band of its final
  value (0 if the starting rating already did); the median over those players.
  The band is ±50 ladder points for the engine and the same move in win
  probability on each peer's own scale (``RatingSystem.convergence_band``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from ratings.engine.formats import ScoringFormat
from ratings.engine.types import MatchResult, Params
from ratings.lab.peers import (
    PEERS,
    Default,
    PeerUnavailable,
    RatingSystem,
    actual_result,
    make_peers,
)

#: Log-loss clips P so that one confident miss costs ~34.5 instead of infinity.
LOGLOSS_CLIP = 1e-15
#: Spearman and convergence only look at players with at least this many matches.
MIN_MATCHES = 10
#: Metric names, in report order.
METRICS = ("logloss", "brier", "accuracy", "avg_error", "spearman", "convergence")
#: System names, in report order: the engine with the ladder's params, then the peers.
SYSTEMS = ("default", *PEERS)

Progress = Callable[[int], object]


# ------------------------------------------------------------------ metrics


def log_loss(probs: Sequence[float], outcomes: Sequence[float]) -> float:
    """Mean negative log-likelihood of the outcomes, P clipped to [1e-15, 1 - 1e-15]."""
    total = 0.0
    for p, y in zip(probs, outcomes, strict=True):
        if y == 1 or y == 0:
            # Clip the probability given to what happened, so a certain miss costs
            # exactly -ln(1e-15) (1 - (1 - 1e-15) is not 1e-15 in floating point).
            q = p if y == 1 else 1.0 - p
            total -= math.log(min(max(q, LOGLOSS_CLIP), 1.0 - LOGLOSS_CLIP))
        else:
            p = min(max(p, LOGLOSS_CLIP), 1.0 - LOGLOSS_CLIP)
            total -= y * math.log(p) + (1.0 - y) * math.log(1.0 - p)
    return total / len(probs)


def brier(probs: Sequence[float], outcomes: Sequence[float]) -> float:
    """Mean squared difference between P and the outcome."""
    return sum((p - y) ** 2 for p, y in zip(probs, outcomes, strict=True)) / len(probs)


def accuracy(probs: Sequence[float], outcomes: Sequence[float]) -> float:
    """Share of winners picked by ``P > 0.5``; ``P == 0.5`` (or a drawn match) scores 1/2."""
    score = 0.0
    for p, y in zip(probs, outcomes, strict=True):
        if p == 0.5 or y == 0.5:
            score += 0.5
        elif (p > 0.5) == (y > 0.5):
            score += 1.0
    return score / len(probs)


def avg_error(probs: Sequence[float], outcomes: Sequence[float]) -> float:
    """The thesis' average prediction error, mean ``|y - P|``."""
    return sum(abs(y - p) for p, y in zip(probs, outcomes, strict=True)) / len(probs)


def average_ranks(values: Sequence[float]) -> list[float]:
    """Ranks 1..n, ties sharing the mean of their ranks."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rank correlation; None with fewer than 2 values or no variation."""
    if len(xs) != len(ys):
        raise ValueError("spearman needs two sequences of the same length")
    if len(xs) < 2:
        return None
    rx, ry = average_ranks(xs), average_ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def matches_to_converge(trajectory: Sequence[float], band: float) -> int:
    """Matches after which a rating stays within ±band of its final value.

    ``trajectory[0]`` is the rating before the first match, ``trajectory[k]``
    after the k-th, so the answer is between 0 and ``len(trajectory) - 1``.
    """
    final = trajectory[-1]
    k = len(trajectory) - 1
    while k > 0 and abs(trajectory[k - 1] - final) <= band:
        k -= 1
    return k


def convergence(
    trajectories: Iterable[Sequence[float]], band: float, min_matches: int = MIN_MATCHES
) -> float | None:
    """Median of :func:`matches_to_converge` over players with ``min_matches`` or more."""
    counts = [matches_to_converge(t, band) for t in trajectories if len(t) - 1 >= min_matches]
    return float(statistics.median(counts)) if counts else None


# ---------------------------------------------------------------- the run


@dataclass
class Trace:
    """Everything one system did over a history: predictions, outcomes, ratings."""

    probs: list[float] = field(default_factory=list)
    outcomes: list[float] = field(default_factory=list)
    trajectories: dict[str, list[float]] = field(default_factory=dict)
    wins: dict[str, float] = field(default_factory=dict)
    band: float = 50.0


def run_online(
    matches: Sequence[MatchResult],
    system: RatingSystem,
    progress: Progress | None = None,
    ratings: bool = True,
) -> Trace:
    """Predict each match, then rate it, in order; record what is needed for the metrics.

    ``ratings=False`` records predictions and outcomes only (what tuning needs).
    """
    trace = Trace(band=system.convergence_band)
    trajectories, wins = trace.trajectories, trace.wins
    predict, update, rating = system.predict, system.update, system.rating
    probs, outcomes = trace.probs, trace.outcomes
    for i, match in enumerate(matches):
        p = predict(match.side_a, match.side_b, match.played_on)
        y = actual_result(match)
        probs.append(p)
        outcomes.append(y)
        if ratings:
            for player in match.side_a + match.side_b:
                if player not in trajectories:
                    trajectories[player] = [rating(player)]
        update(match)
        if ratings:
            for player in match.side_a:
                trajectories[player].append(rating(player))
                wins[player] = wins.get(player, 0.0) + y
            for player in match.side_b:
                trajectories[player].append(rating(player))
                wins[player] = wins.get(player, 0.0) + 1.0 - y
        if progress is not None and (i + 1) % 100 == 0:
            progress(100)
    if progress is not None and len(matches) % 100:
        progress(len(matches) % 100)
    return trace


def time_order(matches: Iterable[MatchResult]) -> list[MatchResult]:
    """Matches in the order they are rated: by date, then id (stable for equal keys).

    The same order as ``replay.replay``; a file's rows keep their order within a day.
    """
    return sorted(matches, key=lambda m: (m.played_on, m.id or 0))


def warmup_size(n: int) -> int:
    """How many matches warm up before scoring: the first half, ``n // 2``."""
    return n // 2


def metrics(trace: Trace, warmup: int | None = None) -> dict[str, float | None]:
    """The six metrics of §7 from a trace; predictions scored after ``warmup`` matches."""
    start = warmup_size(len(trace.probs)) if warmup is None else warmup
    probs, outcomes = trace.probs[start:], trace.outcomes[start:]
    if not probs:
        scores: dict[str, float | None] = dict.fromkeys(METRICS[:4])
    else:
        scores = {
            "logloss": log_loss(probs, outcomes),
            "brier": brier(probs, outcomes),
            "accuracy": accuracy(probs, outcomes),
            "avg_error": avg_error(probs, outcomes),
        }
    veterans = [p for p, t in trace.trajectories.items() if len(t) - 1 >= MIN_MATCHES]
    scores["spearman"] = spearman(
        [trace.trajectories[p][-1] for p in veterans],
        [trace.wins[p] / (len(trace.trajectories[p]) - 1) for p in veterans],
    )
    scores["convergence"] = convergence(trace.trajectories.values(), trace.band)
    return scores


def unavailable_metrics() -> dict[str, float | None]:
    """The metrics of a peer that could not run: all null."""
    return dict.fromkeys(METRICS)


def build_system(
    name: str, params: Params, scoring_format: ScoringFormat
) -> RatingSystem | PeerUnavailable:
    """The named system: ``default`` is the engine with ``params``; the rest are peers."""
    if name == "default":
        return Default(params, scoring_format)
    if name not in PEERS:
        raise ValueError(f"unknown system {name!r}; choose from {', '.join(SYSTEMS)}")
    return make_peers([name])[name]


class Backtest(TypedDict):
    """What :func:`backtest` returns (``backtest --json`` prints it)."""

    matches: int
    evaluated: int  # the matches after the warm-up, whose predictions are scored
    systems: dict[str, dict[str, float | None]]  # each system's metrics (None: unavailable)


def backtest(
    matches: Sequence[MatchResult],
    params: Params,
    scoring_format: ScoringFormat,
    systems: Iterable[str] = SYSTEMS,
    progress: Progress | None = None,
) -> Backtest:
    """§7 for the engine and the peers on one history, in one run.

    Returns ``{"matches": N, "evaluated": M, "systems": {name: {metric: value}}}``;
    a peer whose package is missing has every metric ``None`` (see
    :func:`unavailable_reasons` for why). Predictions are §6's as they are: no
    calibration step (docs/RATINGS_EVALUATION.md says why).
    """
    matches = time_order(matches)
    n = len(matches)
    out: Backtest = {"matches": n, "evaluated": n - warmup_size(n), "systems": {}}
    for name in systems:
        system = build_system(name, params, scoring_format)
        if isinstance(system, PeerUnavailable):
            out["systems"][name] = unavailable_metrics()
            continue
        out["systems"][name] = metrics(run_online(matches, system, progress=progress))
    return out


def unavailable_reasons(systems: Iterable[str] = SYSTEMS) -> dict[str, str]:
    """Why each unavailable peer is unavailable (empty when all can run)."""
    peers = make_peers([s for s in systems if s in PEERS])
    return {name: str(p) for name, p in peers.items() if isinstance(p, PeerUnavailable)}


# ------------------------------------------------------------------ output

_HEADERS = {
    "logloss": "log-loss",
    "brier": "Brier",
    "accuracy": "accuracy",
    "avg_error": "avg error",
    "spearman": "Spearman",
    "convergence": "convergence",
}


def _cell(metric: str, value: float | None) -> str:
    if value is None:
        return "n/a"
    if metric == "convergence":
        return f"{value:g}"
    return f"{value:.4f}"


def format_table(systems: dict[str, dict[str, float | None]], title: str = "system") -> str:
    """A markdown table of metrics, one row per system; unavailable rows say so."""
    head = [title, *(_HEADERS[m] for m in METRICS)]
    rows = [head, ["---"] * len(head)]
    for name, scores in systems.items():
        if all(v is None for v in scores.values()):
            rows.append([name, "unavailable", *([""] * (len(METRICS) - 1))])
        else:
            rows.append([name, *(_cell(m, scores.get(m)) for m in METRICS)])
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


def format_backtest(result: Backtest) -> str:
    """The human report of :func:`backtest`."""
    line = (
        f"{result['matches']} matches; metrics over the last {result['evaluated']} "
        f"(the first {result['matches'] - result['evaluated']} warm up)."
    )
    return line + "\n\n" + format_table(result["systems"])
