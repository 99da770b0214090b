"""The one list of rating settings (RATINGS.md §2 and §5): ``Params``, whose every field is
declared once here with its type, default, range, words and the models that use it.

Everything else reads this list (``SETTINGS``): ``validate_params`` (the engine's check),
the ladder's fields and method options (``ladder/clubs/params.py``), its admin form and
the API's ``params``, the table of RATINGS.md §2 (``settings_table``, checked by
``tests/ladder/test_docs.py``) and the lab's ``--param``. Adding a setting is one field
below and its tests; ``tests/ratings/engine/test_settings_one_place.py`` fails when a
default or a range of a setting is written anywhere else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import date
from itertools import pairwise
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from ratings.engine.errors import EngineError, ParamsError, Problem

#: Where a player without a given starting state starts (RATINGS.md §4): at the ladder's
#: initial rating, or at the mean current rating of the last NEWCOMER_SAMPLE players to
#: join before them (the newcomers' own level, learned from the ladder's history).
NEWCOMER_SAMPLE = 30

# The choices of the named settings, with the words a moderator reads for each.
TEAM_METHOD_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "composite_opponent": "Composite opponent",
        "individual": "Each opponent counted",
        "composite_team": "Composite teams",
        "performance_weighted": "Performance weighted",
        "glicko1_team": "Glicko-1 teams",
    }
)
COMPOSITE_RD_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "mean": "Mean of the opponents' RDs",
        "rms_of_mean": "RMS of the mean (√Σφ² / n)",
        "rms": "Root mean square (√(Σφ² / n))",
    }
)
# RATINGS.md §3 step 2: the winner scores 1 and the margin weighs the match
# (margin_information), or the margin moves the outcome itself (score, the seed's).
OUTCOME_MODEL_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "margin_information": "Margin as information: a win is a win, a clear one counts more",
        "score": "Score: the margin sets the result (0.5 + bonus + weighted margin)",
    }
)
NEWCOMER_START_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "initial": "At the initial rating",
        "recent_newcomers": (
            f"At the mean rating of the last {NEWCOMER_SAMPLE} members to start playing"
        ),
    }
)
TEAM_METHODS = tuple(TEAM_METHOD_LABELS)
COMPOSITE_RD_CHOICES = tuple(COMPOSITE_RD_LABELS)
OUTCOME_MODELS = tuple(OUTCOME_MODEL_LABELS)
NEWCOMER_STARTS = tuple(NEWCOMER_START_LABELS)

#: What a setting holds: a number, a whole number, one of its choices, true or false, a
#: number or None (off), stat name → weight, or first days in increasing order.
Kind = Literal["float", "int", "choice", "bool", "optional_float", "weights", "dates"]
#: Where a ladder keeps a setting: a field of its own, a key of its ``method_options``
#: (RATINGS.md §5), nowhere because a ladder always has the engine's value (``fixed``: the
#: wrong-way floor), or nowhere because the site works it out (``derived``: the seasons'
#: first days, from the ladder's seasons).
Store = Literal["field", "option", "fixed", "derived"]
#: A bound: a number, or the name of the setting whose value bounds this one.
Bound = float | str | None
#: A setting's value, by its kind: a number (float, int, optional_float: or None), one of its
#: choices (choice), true or false (bool), stat name → weight (weights), first days (dates).
SettingValue = bool | int | float | str | None | Mapping[str, float] | tuple[date, ...]


@dataclass(frozen=True, slots=True)
class Setting:
    """One rating setting. ``minimum``/``maximum`` bound it (``above``/``below``: the bound
    itself is refused); ``help`` is what the admin shows beside it, ``doc`` its line in
    RATINGS.md §2 (both may say ``{minimum}``, ``{maximum}`` and ``{default}``)."""

    name: str
    kind: Kind
    default: Any
    store: Store
    help: str = ""
    doc: str = ""
    label: str = ""  # the field's name as a person reads it; "" → the name with spaces
    minimum: Bound = None
    maximum: Bound = None
    above: bool = False
    below: bool = False
    unit: str = ""  # what a whole number counts: "days", "rating periods"
    choices: tuple[tuple[str, str], ...] = ()  # (value, label)
    outcome_models: tuple[str, ...] = ()  # the outcome models that use it; () every one
    team_methods: tuple[str, ...] = ()  # the team methods that use it; () every one
    # A ladder refuses beyond these too, in its form, before the engine sees the value
    # (a club's ladder is stricter than the lab: no lookback of 0 days, ...).
    ladder_minimum: float | None = None
    ladder_maximum: float | None = None

    @property
    def verbose_name(self) -> str:
        return self.label or self.name.replace("_", " ")

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.choices)

    def words(self, text: str) -> str:
        """``text`` with its ``{minimum}``, ``{maximum}`` and ``{default}`` filled in."""
        return text.format(
            minimum=_shown(self.minimum), maximum=_shown(self.maximum), default=_shown(self.default)
        )

    @property
    def rule(self) -> str:
        """What a value must be, in words: "must be between 0 and 10"."""
        low, high = _shown(self.minimum), _shown(self.maximum)
        if self.kind == "choice":
            return f"must be one of {', '.join(self.values)}"
        if self.kind == "bool":
            return "must be true or false"
        if self.kind == "dates":
            return "must be dates in increasing order, each once"
        if self.kind == "int":
            whole = f"a whole number of {self.unit}"
            if self.maximum is None:
                return f"must be {whole}, {low} or more"
            return f"must be {whole} from {low} to {high}"
        off = " (or None: off)" if self.kind == "optional_float" else ""
        if self.minimum == 0 and self.above:
            return f"must be positive{off}" + (f" and at most {high}" if high else "")
        if self.minimum == 0 and self.maximum is None:
            return "cannot be negative"
        if self.maximum is None:
            return f"must be at least {low}"
        if self.minimum is None:
            return f"must be below {high}" if self.below else f"must be at most {high}"
        if isinstance(self.minimum, str):
            return f"must lie between {low} and {high}"
        return f"must be between {low} and {high}"

    def problems(self, value: object, params: Params) -> list[Problem]:
        """What is wrong with ``value`` for this setting in ``params`` (empty: nothing)."""
        if self.kind == "weights":
            return [
                Problem(self.name, f"stat weight for {stat!r} must be a finite number")
                for stat, weight in (value.items() if isinstance(value, Mapping) else ())
                if not (_is_number(weight) and math.isfinite(weight))
            ]
        if self.kind == "choice":
            ok = value in self.values
        elif self.kind == "bool":
            ok = isinstance(value, bool)
        elif self.kind == "dates":
            ok = _increasing_dates(value)
        elif self.kind == "int":
            ok = type(value) is int and self._within(value, params)
        else:  # a number, or None for an optional one
            ok = (value is None and self.kind == "optional_float") or self._within(value, params)
        return [] if ok else [Problem(self.name, f"{self.name} {self.rule}")]

    def _within(self, value: Any, params: Params) -> bool:
        low = getattr(params, self.minimum) if isinstance(self.minimum, str) else self.minimum
        high = getattr(params, self.maximum) if isinstance(self.maximum, str) else self.maximum
        if low is not None and (value <= low if self.above else value < low):
            return False
        return high is None or (value < high if self.below else value <= high)


def _shown(bound: object) -> str:
    """A bound or default as the messages write it: 50.0 → "50", "rd_max" as it is."""
    if isinstance(bound, float):
        return f"{bound:g}"
    return "" if bound is None else str(bound)


def _is_number(value: object) -> bool:
    return isinstance(value, float | int) and not isinstance(value, bool)


def _increasing_dates(value: object) -> bool:
    return (
        isinstance(value, tuple)
        and all(type(day) is date for day in value)
        and all(a < b for a, b in pairwise(value))
    )


T = TypeVar("T")


def setting(
    default: T,
    kind: Kind,
    store: Store = "field",
    *,
    factory: Callable[[], T] | None = None,
    **about: object,
) -> T:
    """A field of ``Params`` that is a setting (the dataclass field, typed as its value);
    ``about`` is the rest of its ``Setting``: range, words, models."""
    spec = {"kind": kind, "store": store, "default": default, **about}
    if factory is not None:
        return field(default_factory=factory, metadata={"setting": spec})
    return field(default=default, metadata={"setting": spec})


@dataclass(frozen=True, slots=True)
class Params:
    """Per-ladder rating parameters (RATINGS.md §2 and §5), defaults as specified."""

    tau: float = setting(
        0.5,
        "float",
        minimum=0.0,
        above=True,
        ladder_minimum=0.01,
        help="Volatility change rate; 0.3–0.8 is sensible.",
        doc="volatility change rate (0.3–0.8 sensible)",
    )
    # 400 and 0.25, the sources' reference values (RATINGS.md §2). Version 2 had 450 and 0.5,
    # picked from a grid over the three real histories; judged by transfer (each history in
    # turn unseen, and time-ordered splits), no other setting beats these on every unseen
    # part: docs/RATINGS_EVALUATION.md "Defaults by transfer" (ratings/lab/transfer.py).
    # Below 50, 10^(-x/scale_factor) is overflow-prone for the widest rating gaps (7000
    # points); the seed's sensible range is 100-800.
    scale_factor: float = setting(
        400.0,
        "float",
        minimum=50.0,
        help="Slope of the expected score; 400 is standard Glicko-2.",
        doc="slope of the expected score; 400 is exactly standard Glicko-2 (judged by "
        "transfer: section 9)",
    )
    repetition_alpha: float = setting(
        0.2,
        "float",
        minimum=0.0,
        help="Damping of repeat opponents: weight = 1 / (1 + alpha × earlier meetings).",
        doc="repeat-opponent damping",
    )
    diversity_threshold: float = setting(
        0.2,
        "float",
        minimum=0.0,
        maximum=1.0,
        help="Minimum share of distinct opponents for a player's RD to shrink.",
        doc="minimum opponent variety for RD to shrink",
    )
    outcome_model: str = setting(
        "margin_information",
        "choice",
        choices=tuple(OUTCOME_MODEL_LABELS.items()),
        help="How a result counts (RATINGS.md §3 step 2). Either way a win never lowers "
        "a rating and a loss never raises one.",
        doc="`margin_information` (section 3 step 2) or `score` (the badminton seed's outcome)",
    )
    # A clear win counting 11 narrow ones is already far past the sensible 0-3.
    margin_boost: float = setting(
        1.0,
        "float",
        minimum=0.0,
        maximum=10.0,
        outcome_models=("margin_information",),
        help="Margin as information: how much more a clear win counts than a narrow one "
        "(0 = the margin is ignored; 0–3 is sensible, at most {maximum}).",
        doc="how much more a clear win counts (0 = margin ignored; 0–3 sensible, at most "
        "{maximum})",
    )
    match_win_bonus: float = setting(
        0.4,
        "float",
        minimum=0.0,
        maximum=0.5,
        outcome_models=("score",),
        help="Score model only: winner's outcome above 0.5 before the margin.",
        doc="`score` model only: winner's outcome above 0.5",
    )
    margin_weight: float = setting(
        0.25,
        "float",
        minimum=0.0,
        outcome_models=("score",),
        help="Score model only: weight of the score margin in the outcome.",
        doc="`score` model only: the margin's weight",
    )
    margin_clamp: float = setting(
        0.25,
        "float",
        minimum=0.0,
        ladder_maximum=1.0,
        help="Bound of the margin ratio.",
        doc="bound of the margin ratio (judged by transfer: section 9)",
    )
    wrong_way_floor: bool = setting(
        True,
        "bool",
        "fixed",
        doc="step 9; always on for a ladder, switchable only in `backtest`/`tune`",
    )
    rating_center: float = setting(4500.0, "float", minimum="rating_min", maximum="rating_max")
    rating_min: float = setting(2000.0, "float", maximum="rating_max", below=True)
    rating_max: float = setting(9000.0, "float")
    rd_max: float = setting(
        500.0, "float", minimum=0.0, above=True, ladder_minimum=1, label="RD max"
    )
    initial_rating: float = setting(
        4500.0,
        "float",
        minimum="rating_min",
        maximum="rating_max",
        help="Starting rating without a self-assessment.",
        doc="when a player has no self-assessment (section 4)",
    )
    initial_rd: float = setting(
        250.0,
        "float",
        minimum=0.0,
        above=True,
        maximum="rd_max",
        ladder_minimum=1,
        label="initial RD",
        help="Starting RD without a self-assessment.",
        doc="when a player has no self-assessment",
    )
    newcomer_start: str = setting(
        "initial",
        "choice",
        choices=tuple(NEWCOMER_START_LABELS.items()),
        help="Where a member who skips the self-assessment starts (RATINGS.md §4).",
        doc="where a player without a self-assessment starts: `initial` (at `initial_rating`) "
        "or `recent_newcomers` (section 4)",
    )
    initial_volatility: float = setting(
        0.06, "float", minimum=0.0, above=True, ladder_minimum=0.0001
    )
    lookback_days: int = setting(
        90,
        "int",
        minimum=0,
        unit="days",
        ladder_minimum=1,
        help="Window for repetition and diversity counts, and for being active.",
        doc="window for repetition and diversity counts, and for being active (section 8)",
    )
    rating_period_days: int = setting(
        7,
        "int",
        minimum=1,
        unit="days",
        help="RD grows once per whole period without a match.",
        doc="inactivity: RD grows once per whole period without a match",
    )
    # §3 step 1: the rating periods a season's start adds to the RD of a player who crosses
    # it (0: a season's start adds nothing), and the ladder's seasons' first days, increasing
    # (the site fills them from its seasons, ratings.models.rating_params; none elsewhere).
    # A thousand weekly periods is nineteen years: far past any sensible raise, and the bound
    # keeps the count's arithmetic exact (MAX_PER_START in _native.c).
    season_start_periods: int = setting(
        0,
        "int",
        minimum=0,
        maximum=1000,
        unit="rating periods",
        label="RD raise at a season's start",
        help="Rating periods a season's first day adds to the RD of every player who "
        "played before it, on their first match after it: the new season starts less sure of "
        "old ratings (RATINGS.md §3 step 1). {default} (the default): a season's start changes "
        "nothing. From {minimum} to {maximum}; 4 with weekly periods counts as a month without "
        "a match.",
        doc="inactivity: the periods each season start crossed adds (step 1; 0 = none, at most "
        "{maximum})",
    )
    season_starts: tuple[date, ...] = setting((), "dates", "derived")
    team_method: str = setting(
        "composite_opponent",
        "choice",
        choices=tuple(TEAM_METHOD_LABELS.items()),
        doc="see section 5",
    )
    composite_rd: str = setting(
        "mean",
        "choice",
        choices=tuple(COMPOSITE_RD_LABELS.items()),
        team_methods=("composite_opponent", "composite_team"),
        label="composite RD",
        help="How the opposing side's RD is combined (team methods).",
        doc="how a team's RD is combined, section 5",
    )
    # performance_weighted (§5)
    stat_weights: Mapping[str, float] = setting(
        MappingProxyType({}),
        "weights",
        "option",
        factory=lambda: MappingProxyType({}),
        team_methods=("performance_weighted",),
    )
    perf_alpha: float = setting(
        0.2, "float", "option", minimum=0.0, team_methods=("performance_weighted",)
    )
    # A player's weight is clamped to [perf_weight_min, perf_weight_max], around 1.
    perf_weight_min: float = setting(
        0.5,
        "float",
        "option",
        minimum=0.0,
        above=True,
        maximum=1.0,
        team_methods=("performance_weighted",),
    )
    perf_weight_max: float = setting(
        1.5, "float", "option", minimum=1.0, team_methods=("performance_weighted",)
    )
    delta_max: float | None = setting(
        None,
        "optional_float",
        "option",
        minimum=0.0,
        above=True,
        team_methods=("performance_weighted",),
    )
    # glicko1_team (§5)
    g1_scale: float = setting(
        2.0, "float", "option", minimum=0.0, above=True, team_methods=("glicko1_team",)
    )
    g1_rd_max: float = setting(
        350.0, "float", "option", minimum=0.0, above=True, team_methods=("glicko1_team",)
    )
    g1_initial_rd: float = setting(
        130.0,
        "float",
        "option",
        minimum=0.0,
        above=True,
        maximum="g1_rd_max",
        team_methods=("glicko1_team",),
    )
    g1_boost: bool = setting(True, "bool", "option", team_methods=("glicko1_team",))

    def with_overrides(self, **overrides: Any) -> Params:
        """A copy with some fields changed; unknown names raise EngineError."""
        unknown = sorted(set(overrides) - set(SETTING))
        if unknown:
            raise EngineError(f"unknown parameter(s): {', '.join(unknown)}")
        return replace(self, **overrides)


def _settings() -> tuple[Setting, ...]:
    found = []
    for f in fields(Params):
        spec = dict(f.metadata["setting"])
        found.append(Setting(name=f.name, **spec))
    return tuple(found)


#: Every rating setting, in the order of ``Params``.
SETTINGS: tuple[Setting, ...] = _settings()
#: The settings by name.
SETTING: Mapping[str, Setting] = MappingProxyType({s.name: s for s in SETTINGS})


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule between settings, beyond each one's range: refused ``when`` it holds, with
    ``message``, on ``setting``."""

    setting: str
    when: Callable[[Params], bool]
    message: str


#: The rules between settings.
RULES: tuple[Rule, ...] = (
    Rule(
        "team_method",
        lambda p: p.team_method == "performance_weighted" and not p.stat_weights,
        "performance_weighted needs stat weights: without them it would silently be "
        "composite_opponent; set the ladder's stat weights or choose another team method",
    ),
)


def params_problems(params: Params) -> list[Problem]:
    """Every setting of ``params`` outside its range, and every rule between them broken.

    Numbers that are not finite come alone: the ranges cannot be read without them."""
    problems = [
        Problem(s.name, f"{s.name} must be a finite number")
        for s in SETTINGS
        if _is_number(value := getattr(params, s.name)) and not math.isfinite(value)
    ]
    if problems:
        return problems
    for s in SETTINGS:
        problems.extend(s.problems(getattr(params, s.name), params))
    problems.extend(Problem(r.setting, r.message) for r in RULES if r.when(params))
    return problems


def validate_params(params: Params) -> None:
    """Raise ``ParamsError`` naming every setting outside its range, each on its setting."""
    problems = params_problems(params)
    if problems:
        raise ParamsError(problems)


def settings_table() -> str:
    """The table of RATINGS.md §2: every setting a ladder has (or always has), its default
    and meaning; the method options of §5 are listed after it in prose."""
    rows = ["| name | default | meaning |", "|---|---|---|"]
    for s in SETTINGS:
        if s.store in ("field", "fixed"):
            shown = ("on" if s.default else "off") if s.kind == "bool" else _shown(s.default)
            rows.append(f"| {s.name} | {shown} | {s.words(s.doc)} |".replace("|  |", "| |"))
    return "\n".join(rows)
