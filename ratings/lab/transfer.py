"""Choosing defaults by transfer: a setting is judged only on results its choice did not see.

The question (issue 27): do the ladder's defaults carry over to histories nobody tuned them
on? A grid of candidate defaults (:data:`GRID`) is scored on every history, and a fixed
*selection rule* (:func:`select`: the candidate whose worst relative gain over plain
Glicko-2 across the training parts is largest, so a default must beat Glicko-2
everywhere it is chosen from) picks one per fold from training parts only. The pick is then
judged on the fold's unseen part against RATINGS.md §2's values (:data:`SPEC`) and plain
Glicko-2. Two kinds of fold:

- **Leave one history out**: for each history in turn, the rule sees the scored halves
  (``backtest``'s protocol) of every *other* history; the unseen part is this history's
  scored half.
- **Time-ordered splits within a history**: the scored half is cut into :data:`TIME_SPLITS`
  consecutive segments; for each, the rule sees the same history's matches before the
  segment (their own second half scored, the first warming up, as ``tune``'s training half)
  and the unseen part is the segment.

Every match is predicted before it is rated (§7), so one online run per setting and history
gives every match's log-loss, and a fold only picks which matches count: what a rule
sees of a history is exactly the losses of matches before its unseen part, or of other
histories.

The verdict (:func:`verdict`): a default moves away from §2 only when every fold's rule
picked the same candidate and it beat §2's values on every unseen part; otherwise §2's
values stay. The defaults of the day (:data:`INCUMBENT`) are judged the same way, fold by
fold, beside them.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ratings.engine.formats import ScoringFormat
from ratings.engine.replay import Replayer, encode
from ratings.engine.types import MatchResult, Params
from ratings.lab.evaluate import run_online, time_order, warmup_size
from ratings.lab.peers import Glicko2, actual_result
from ratings.lab.tune import _match_loss

Setting = tuple[tuple[str, Any], ...]

#: RATINGS.md §2's values of the two numbers the grid moves.
SPEC: Setting = (("margin_boost", 1.0), ("margin_clamp", 0.25), ("scale_factor", 400.0))
#: The defaults chosen in version 2 from a grid over the three files (issue 27's suspect).
INCUMBENT: Setting = (("margin_boost", 1.0), ("margin_clamp", 0.5), ("scale_factor", 450.0))
#: Candidate defaults: every combination (60), §2's values and the incumbent among them.
GRID_AXES: dict[str, tuple[float, ...]] = {
    "margin_boost": (0.5, 1.0, 1.5),
    "margin_clamp": (0.15, 0.25, 0.35, 0.5, 0.75),
    "scale_factor": (350.0, 400.0, 450.0, 500.0),
}
GRID: tuple[Setting, ...] = tuple(
    tuple(zip(GRID_AXES, values, strict=True)) for values in itertools.product(*GRID_AXES.values())
)
#: Consecutive segments of a history's scored half, each an unseen part of its own fold.
TIME_SPLITS = 2


@dataclass(frozen=True, slots=True)
class Losses:
    """One history's per-match log-losses (time order) under every candidate and Glicko-2."""

    name: str
    glicko2: tuple[float, ...]
    settings: Mapping[Setting, tuple[float, ...]]

    def __len__(self) -> int:
        return len(self.glicko2)


@dataclass(frozen=True, slots=True)
class Part:
    """Matches ``start..stop`` of one history: what a fold scores there."""

    history: str
    start: int
    stop: int

    def mean(self, losses: Sequence[float]) -> float:
        return statistics.fmean(losses[self.start : self.stop])


def online_losses(
    name: str,
    matches: Sequence[MatchResult],
    params: Params,
    scoring_format: ScoringFormat,
    grid: Sequence[Setting] = GRID,
) -> Losses:
    """Every match's log-loss, predicted before it is rated, under each setting and Glicko-2."""
    matches = time_order(matches)
    history = encode(matches)
    results = [actual_result(m) for m in matches]
    by_setting = {}
    for setting in grid:
        probs, _ = Replayer(
            params.with_overrides(**dict(setting)), scoring_format
        ).predict_rate_history(history)
        by_setting[setting] = tuple(_match_loss(p, y) for p, y in zip(probs, results, strict=True))
    trace = run_online(matches, Glicko2(), ratings=False)
    plain = tuple(_match_loss(p, y) for p, y in zip(trace.probs, trace.outcomes, strict=True))
    return Losses(name, plain, by_setting)


def gain(losses: Losses, setting: Setting, part: Part) -> float:
    """Relative log-loss gain of ``setting`` over plain Glicko-2 on ``part`` (0.01 is 1% better)."""
    plain = part.mean(losses.glicko2)
    return (plain - part.mean(losses.settings[setting])) / plain


def select(data: Mapping[str, Losses], parts: Sequence[Part]) -> Setting:
    """The selection rule: the candidate whose worst gain over Glicko-2 on ``parts`` is largest.

    Ties go to the earlier candidate of the grid (deterministic).
    """
    grid = list(next(iter(data.values())).settings)
    return max(grid, key=lambda s: min(gain(data[p.history], s, p) for p in parts))


def folds(data: Mapping[str, Losses]) -> list[dict[str, Any]]:
    """Every fold: its name, the parts the rule sees, and the unseen part."""
    out = []
    scored = {name: Part(name, warmup_size(len(d)), len(d)) for name, d in data.items()}
    if len(data) > 1:
        for name in data:
            seen = [part for other, part in scored.items() if other != name]
            out.append({"fold": f"unseen history: {name}", "seen": seen, "unseen": scored[name]})
    for name, d in data.items():
        n, first = len(d), scored[name].start
        edges = [first + (n - first) * i // TIME_SPLITS for i in range(TIME_SPLITS + 1)]
        for i in range(TIME_SPLITS):
            start, stop = edges[i], edges[i + 1]
            if stop <= start or warmup_size(start) >= start:
                continue
            out.append(
                {
                    "fold": f"{name}, matches {start + 1}–{stop} unseen",
                    "seen": [Part(name, warmup_size(start), start)],
                    "unseen": Part(name, start, stop),
                }
            )
    return out


def evaluate(data: Mapping[str, Losses]) -> list[dict[str, Any]]:
    """Each fold's pick and the unseen log-loss of the pick, §2, the incumbent and Glicko-2."""
    rows = []
    for fold in folds(data):
        part: Part = fold["unseen"]
        losses = data[part.history]
        pick = select(data, fold["seen"])
        rows.append(
            {
                "fold": fold["fold"],
                "matches": part.stop - part.start,
                "pick": dict(pick),
                "pick_logloss": part.mean(losses.settings[pick]),
                "spec_logloss": part.mean(losses.settings[SPEC]),
                "incumbent_logloss": part.mean(losses.settings[INCUMBENT]),
                "glicko2_logloss": part.mean(losses.glicko2),
            }
        )
    return rows


def verdict(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Which defaults the folds support: a change needs one pick that wins every unseen part."""
    picks = {tuple(sorted(r["pick"].items())) for r in rows}
    pick_wins = all(r["pick_logloss"] < r["spec_logloss"] for r in rows)
    incumbent_wins = all(r["incumbent_logloss"] < r["spec_logloss"] for r in rows)
    change = len(picks) == 1 and pick_wins and picks != {SPEC}
    chosen = dict(next(iter(picks))) if change else dict(SPEC)
    return {
        "defaults": chosen,
        "changed": change,
        "same_pick_every_fold": len(picks) == 1,
        "pick_beats_spec_everywhere": pick_wins,
        "incumbent_beats_spec_everywhere": incumbent_wins,
        "spec_beats_glicko2": sum(r["spec_logloss"] < r["glicko2_logloss"] for r in rows),
        "incumbent_beats_glicko2": sum(r["incumbent_logloss"] < r["glicko2_logloss"] for r in rows),
        "folds": len(rows),
    }


def _setting_label(setting: Mapping[str, Any]) -> str:
    return " / ".join(f"{setting[name]:g}" for name in GRID_AXES)


def format_transfer(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]) -> str:
    """The folds as a markdown table, then the verdict in words."""
    lines = [
        f"| fold | scored | pick ({' / '.join(GRID_AXES)}) | pick | §2 400/0.25 | "
        "incumbent 450/0.5 | plain Glicko-2 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['fold']} | {r['matches']} | {_setting_label(r['pick'])} | "
            f"{r['pick_logloss']:.4f} | {r['spec_logloss']:.4f} | "
            f"{r['incumbent_logloss']:.4f} | {r['glicko2_logloss']:.4f} |"
        )
    n = summary["folds"]
    lines += [
        "",
        f"Same pick on every fold: {'yes' if summary['same_pick_every_fold'] else 'no'}; "
        f"picks beat §2 on every unseen part: "
        f"{'yes' if summary['pick_beats_spec_everywhere'] else 'no'}; "
        f"incumbent beats §2 on every unseen part: "
        f"{'yes' if summary['incumbent_beats_spec_everywhere'] else 'no'}.",
        f"Beat plain Glicko-2: §2 on {summary['spec_beats_glicko2']} of {n} unseen parts, "
        f"the incumbent on {summary['incumbent_beats_glicko2']} of {n}.",
        f"Defaults: {_setting_label(summary['defaults'])} "
        + ("(changed from §2)." if summary["changed"] else "(RATINGS.md §2's values)."),
    ]
    return "\n".join(lines)
