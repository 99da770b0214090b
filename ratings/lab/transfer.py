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

A team-game preset (:data:`TEAM_GRID`, :func:`preset_rows`, :func:`preset_verdict`) is chosen
within the one team history by its time-ordered splits alone: the axes on which every fold's
pick agrees move, and only if that beats §2's values and plain Glicko-2 on every unseen part
(``ratings.engine.types.TEAM_GAME_PRESET`` is its verdict on CS:GO). :func:`preset_elsewhere`
shows what it would do to the histories it does not apply to.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from ratings.engine.formats import ScoringFormat
from ratings.engine.replay import Replayer, encode
from ratings.engine.types import MatchResult, Params
from ratings.lab.evaluate import run_online, time_order, warmup_size
from ratings.lab.peers import Glicko2, actual_result
from ratings.lab.tune import SettingKey, Value, _match_loss

Setting = SettingKey

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

#: Team games (3 to 5 a side): §2's values of what a team-game preset may change, and the
#: candidates (27), each axis a reason that could carry over to other team games: how much a
#: map's round margin counts (``margin_boost``, 0 = not at all), the margin's scale
#: (``margin_clamp``, 1 = linear over the whole map), and the opposing side's RD as the RD of
#: a mean of independent ratings (``composite_rd``, RATINGS.md §5).
TEAM_SPEC: Setting = (("margin_boost", 1.0), ("margin_clamp", 0.25), ("composite_rd", "mean"))
TEAM_GRID_AXES: dict[str, tuple[Value, ...]] = {
    "margin_boost": (1.0, 0.5, 0.0),
    "margin_clamp": (0.25, 0.5, 1.0),
    "composite_rd": ("mean", "rms_of_mean", "rms"),
}
TEAM_GRID: tuple[Setting, ...] = tuple(
    tuple(zip(TEAM_GRID_AXES, values, strict=True))
    for values in itertools.product(*TEAM_GRID_AXES.values())
)


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


class Fold(TypedDict):
    """A fold: its name, the parts the rule sees, and the unseen part."""

    fold: str
    seen: list[Part]
    unseen: Part


class FoldRow(TypedDict):
    """A fold's pick and the mean log-loss on its unseen part of the pick, §2, the
    incumbent and plain Glicko-2 (:func:`evaluate`)."""

    fold: str
    matches: int
    pick: dict[str, Value]
    pick_logloss: float
    spec_logloss: float
    incumbent_logloss: float
    glicko2_logloss: float


class Verdict(TypedDict):
    """Which defaults the folds support (:func:`verdict`)."""

    defaults: dict[str, Value]
    changed: bool
    same_pick_every_fold: bool
    pick_beats_spec_everywhere: bool
    incumbent_beats_spec_everywhere: bool
    spec_beats_glicko2: int  # unseen parts on which §2's values beat plain Glicko-2
    incumbent_beats_glicko2: int
    folds: int


class PresetRow(TypedDict):
    """A team-game preset's fold within one history (:func:`preset_rows`): matches seen and
    unseen as (start, stop), the pick, and the unseen part's mean log-losses."""

    fold: str
    matches: int
    seen: list[tuple[int, int]]
    unseen: tuple[int, int]
    pick: dict[str, Value]
    pick_logloss: float
    spec_logloss: float
    glicko2_logloss: float


class PresetVerdict(TypedDict):
    """The preset the folds support (:func:`preset_verdict`); ``preset`` is empty for none."""

    candidate: dict[str, Value]
    candidate_logloss: list[float]
    beats_spec_everywhere: bool
    beats_glicko2_everywhere: bool
    preset: dict[str, Value]
    folds: int


class ElsewherePart(TypedDict):
    """One part of another history under a preset (:func:`preset_elsewhere`)."""

    matches: str  # "41–80"
    preset_logloss: float
    spec_logloss: float
    glicko2_logloss: float


class Elsewhere(TypedDict):
    """What a preset would do to a history it does not apply to (:func:`preset_elsewhere`)."""

    history: str
    setting: dict[str, Value]
    spec: dict[str, Value]
    parts: list[ElsewherePart]


def folds(data: Mapping[str, Losses]) -> list[Fold]:
    """Every fold: its name, the parts the rule sees, and the unseen part."""
    out: list[Fold] = []
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


def evaluate(data: Mapping[str, Losses]) -> list[FoldRow]:
    """Each fold's pick and the unseen log-loss of the pick, §2, the incumbent and Glicko-2."""
    rows: list[FoldRow] = []
    for fold in folds(data):
        part = fold["unseen"]
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


def verdict(rows: Sequence[FoldRow]) -> Verdict:
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


def _setting_label(setting: Mapping[str, Value]) -> str:
    return " / ".join(f"{setting[name]:g}" for name in GRID_AXES)


def format_transfer(rows: Sequence[FoldRow], summary: Verdict) -> str:
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


def preset_rows(losses: Losses, spec: Setting = TEAM_SPEC) -> list[PresetRow]:
    """A preset's folds within one history (the only unseen data a lone history has): each
    time-ordered segment of its scored half, the rule's pick from the matches before it, and
    the segment's log-loss under the pick, ``spec`` and plain Glicko-2."""
    data = {losses.name: losses}
    rows: list[PresetRow] = []
    for fold in folds(data):
        part = fold["unseen"]
        pick = select(data, fold["seen"])
        rows.append(
            {
                "fold": fold["fold"],
                "matches": part.stop - part.start,
                "seen": [(p.start, p.stop) for p in fold["seen"]],
                "unseen": (part.start, part.stop),
                "pick": dict(pick),
                "pick_logloss": part.mean(losses.settings[pick]),
                "spec_logloss": part.mean(losses.settings[spec]),
                "glicko2_logloss": part.mean(losses.glicko2),
            }
        )
    return rows


def agreed(rows: Sequence[PresetRow], spec: Setting = TEAM_SPEC) -> Setting:
    """``spec`` with every axis moved on which all the folds' picks agree (the rest kept)."""
    out = []
    for name, value in spec:
        picked = {row["pick"][name] for row in rows}
        out.append((name, picked.pop() if len(picked) == 1 else value))
    return tuple(out)


def preset_verdict(
    losses: Losses, rows: Sequence[PresetRow], spec: Setting = TEAM_SPEC
) -> PresetVerdict:
    """The preset the folds support: what every fold's pick agrees on, kept only when it
    beats ``spec`` and plain Glicko-2 on every unseen part; otherwise ``spec`` (no preset)."""
    candidate = agreed(rows, spec)
    parts = [Part(losses.name, *row["unseen"]) for row in rows]
    mine = [part.mean(losses.settings[candidate]) for part in parts]
    beats_spec = all(m < row["spec_logloss"] for m, row in zip(mine, rows, strict=True))
    beats_glicko2 = all(m < row["glicko2_logloss"] for m, row in zip(mine, rows, strict=True))
    adopted = candidate != spec and beats_spec and beats_glicko2
    return {
        "candidate": dict(candidate),
        "candidate_logloss": mine,
        "beats_spec_everywhere": beats_spec,
        "beats_glicko2_everywhere": beats_glicko2,
        "preset": {k: v for k, v in candidate if v != dict(spec)[k]} if adopted else {},
        "folds": len(rows),
    }


def _team_label(setting: Mapping[str, Value]) -> str:
    return " / ".join(
        f"{setting[name]:g}" if isinstance(setting[name], float) else str(setting[name])
        for name in TEAM_GRID_AXES
    )


def preset_elsewhere(losses: Losses, preset: Mapping[str, Value]) -> Elsewhere:
    """What ``preset`` would do to another history (one it does not apply to): its scored
    half and each time-ordered segment, under the preset, §2's values and plain Glicko-2."""
    spec = dict(TEAM_SPEC)
    setting = tuple((name, preset.get(name, value)) for name, value in TEAM_SPEC)
    first = warmup_size(len(losses))
    parts = [Part(losses.name, first, len(losses))] + [
        Part(losses.name, *row["unseen"]) for row in preset_rows(losses)
    ]
    return {
        "history": losses.name,
        "setting": dict(setting),
        "spec": spec,
        "parts": [
            {
                "matches": f"{p.start + 1}–{p.stop}",
                "preset_logloss": p.mean(losses.settings[setting]),
                "spec_logloss": p.mean(losses.settings[TEAM_SPEC]),
                "glicko2_logloss": p.mean(losses.glicko2),
            }
            for p in parts
        ],
    }


def format_preset(
    rows: Sequence[PresetRow],
    summary: PresetVerdict,
    elsewhere: Sequence[Elsewhere] = (),
) -> str:
    """The team-game preset's folds, its verdict, and what it would do to other histories."""
    lines = [
        f"| fold | scored | matches seen | pick ({' / '.join(TEAM_GRID_AXES)}) | pick | "
        "preset | §2 | plain Glicko-2 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row, mine in zip(rows, summary["candidate_logloss"], strict=True):
        seen = ", ".join(f"{a + 1}–{b}" for a, b in row["seen"])
        lines.append(
            f"| {row['fold']} | {row['matches']} | {seen} | {_team_label(row['pick'])} | "
            f"{row['pick_logloss']:.4f} | {mine:.4f} | {row['spec_logloss']:.4f} | "
            f"{row['glicko2_logloss']:.4f} |"
        )
    agreed_on = ", ".join(
        f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}" for k, v in summary["preset"].items()
    )
    lines += [
        "",
        f"Where every fold's pick agrees (the rest §2's): {_team_label(summary['candidate'])}; beats §2 on every "
        f"unseen part: {'yes' if summary['beats_spec_everywhere'] else 'no'}; beats plain "
        f"Glicko-2 on every unseen part: {'yes' if summary['beats_glicko2_everywhere'] else 'no'}.",
        "Team-game preset: " + (agreed_on if agreed_on else "none (§2's values)") + ".",
    ]
    for other in elsewhere:
        lines += [
            "",
            f"If it applied to {other['history']} (it does not):",
            "",
            "| matches | preset | §2 | plain Glicko-2 |",
            "| --- | --- | --- | --- |",
        ]
        lines += [
            f"| {p['matches']} | {p['preset_logloss']:.4f} | {p['spec_logloss']:.4f} | "
            f"{p['glicko2_logloss']:.4f} |"
            for p in other["parts"]
        ]
    return "\n".join(lines)
