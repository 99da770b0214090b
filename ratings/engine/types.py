"""Plain values the engine takes and returns. Frozen: nothing is mutated."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import date
from types import MappingProxyType
from typing import Any

TEAM_METHODS = (
    "composite_opponent",
    "individual",
    "composite_team",
    "performance_weighted",
    "glicko1_team",
)
COMPOSITE_RD_CHOICES = ("mean", "rms_of_mean", "rms")
# Singles, doubles and team games up to five a side (RULES.md "Ladders"; RATINGS.md §5).
MAX_TEAM_SIZE = 5
# RATINGS.md §3 step 2: the winner scores 1 and the margin weighs the match
# (margin_information), or the margin moves the outcome itself (score, the seed's).
OUTCOME_MODELS = ("margin_information", "score")
#: Where a player without a given starting state starts (RATINGS.md §4): at the ladder's
#: initial rating, or at the mean current rating of the last NEWCOMER_SAMPLE players to
#: join before them (the newcomers' own level, learned from the ladder's history).
NEWCOMER_STARTS = ("initial", "recent_newcomers")
NEWCOMER_SAMPLE = 30


class EngineError(ValueError):
    """A bad input or a computation that cannot finish; the message is for people."""


@dataclass(frozen=True, slots=True)
class Params:
    """Per-ladder rating parameters (RATINGS.md §2 and §5), defaults as specified."""

    tau: float = 0.5
    # 400 and 0.25, the sources' reference values (RATINGS.md §2). Version 2 had 450 and 0.5,
    # picked from a grid over the three real histories; judged by transfer (each history in
    # turn unseen, and time-ordered splits), no other setting beats these on every unseen
    # part: docs/RATINGS_EVALUATION.md "Defaults by transfer" (ratings/lab/transfer.py).
    scale_factor: float = 400.0
    repetition_alpha: float = 0.2
    diversity_threshold: float = 0.2
    outcome_model: str = "margin_information"
    margin_boost: float = 1.0  # margin_information: a win by margin_clamp counts 1 + this
    match_win_bonus: float = 0.4  # score model only
    margin_weight: float = 0.25  # score model only
    margin_clamp: float = 0.25
    wrong_way_floor: bool = True  # §3 step 9; always on for a ladder
    rating_center: float = 4500.0
    rating_min: float = 2000.0
    rating_max: float = 9000.0
    rd_max: float = 500.0
    initial_rating: float = 4500.0
    initial_rd: float = 250.0
    newcomer_start: str = "initial"
    initial_volatility: float = 0.06
    lookback_days: int = 90
    rating_period_days: int = 7
    # §3 step 1: the rating periods a season's start adds to the RD of a player who crosses
    # it (0: a season's start adds nothing), and the ladder's seasons' first days, increasing
    # (the site fills them from its seasons, ratings.models.rating_params; none elsewhere).
    season_start_periods: int = 0
    season_starts: tuple[date, ...] = ()
    team_method: str = "composite_opponent"
    composite_rd: str = "mean"
    # performance_weighted (§5)
    stat_weights: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    perf_alpha: float = 0.2
    perf_weight_min: float = 0.5
    perf_weight_max: float = 1.5
    delta_max: float | None = None
    # glicko1_team (§5)
    g1_scale: float = 2.0
    g1_rd_max: float = 350.0
    g1_initial_rd: float = 130.0
    g1_boost: bool = True

    def with_overrides(self, **overrides: Any) -> Params:
        """A copy with some fields changed; unknown names raise EngineError."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise EngineError(f"unknown parameter(s): {', '.join(unknown)}")
        return replace(self, **overrides)


#: Team games: a side of this many players or more (RULES.md "Ladders").
TEAM_GAME_SIZE = 3
#: What a team game starts from instead of §2's values (RATINGS.md §2 "Presets"): a map's
#: round margin counts nothing beyond who won. Chosen by transfer within the one real team
#: history (docs/RATINGS_EVALUATION.md "A team-game preset", ratings/lab/transfer.py); it
#: would hurt singles and doubles, so it applies from three a side.
TEAM_GAME_PRESET: Mapping[str, float] = MappingProxyType({"margin_boost": 0.0})


def preset(team_size: int) -> Mapping[str, float]:
    """The parameters a ladder (or a file) of ``team_size`` a side starts from beyond §2's."""
    return TEAM_GAME_PRESET if team_size >= TEAM_GAME_SIZE else MappingProxyType({})


def defaults_for(team_size: int) -> Params:
    """§2's defaults with the preset of ``team_size`` a side (singles and doubles: §2's own)."""
    return Params().with_overrides(**preset(team_size))


@dataclass(frozen=True, slots=True)
class PlayerState:
    """A player's rating state in rating points (RATINGS.md §1)."""

    rating: float
    rd: float
    volatility: float
    matches: int = 0
    last_played: date | None = None


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One match as the engine rates it (the site's is ladder.matches.models.Match): games are
    (side A points, side B points); stats per player name."""

    played_on: date
    side_a: tuple[str, ...]
    side_b: tuple[str, ...]
    games: tuple[tuple[int, int], ...]
    stats: Mapping[str, Mapping[str, float]] | None = None
    id: int | None = None
    line: int | None = None  # source line when parsed from a file


@dataclass(frozen=True, slots=True)
class PlayerChange:
    """What one match did to one player, with everything needed to explain it."""

    player: str
    rating_before: float
    rd_before: float
    volatility_before: float
    rating_after: float
    rd_after: float
    volatility_after: float
    expected: float
    outcome: float
    repetition_weight: float
    diversity_ratio: float
    gate_open: bool
    performance_weight: float
    won: bool  # this player's side won the match
    margin_multiplier: float  # §3 step 2's m (1 under the score model)
    floor_applied: bool  # §3 step 9 held the rating where it was

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before
