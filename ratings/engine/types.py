"""Plain values the engine takes and returns. Frozen: nothing is mutated. ``Params``, the
rating settings, is declared in ``settings.py`` (the one list of them) and named here too."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from types import MappingProxyType

from ratings.engine.errors import EngineError as EngineError
from ratings.engine.settings import COMPOSITE_RD_CHOICES as COMPOSITE_RD_CHOICES
from ratings.engine.settings import NEWCOMER_SAMPLE as NEWCOMER_SAMPLE
from ratings.engine.settings import NEWCOMER_STARTS as NEWCOMER_STARTS
from ratings.engine.settings import OUTCOME_MODELS as OUTCOME_MODELS
from ratings.engine.settings import TEAM_METHODS as TEAM_METHODS
from ratings.engine.settings import Params as Params

# Singles, doubles and team games up to five a side (RULES.md "Ladders"; RATINGS.md §5).
MAX_TEAM_SIZE = 5


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
