"""The rating engine: pure maths, no Django, no I/O (RATINGS.md).

Frozen values in, new values out. The one way to rate matches is `Replayer`
(or `ratings.engine.replay.replay` for a whole history; that function is not
re-exported here, where its name would hide the `replay` module); the modules
hold one rule each.
"""

from ratings.engine.formats import (
    FORMAT_CHOICES,
    FORMAT_NAMES,
    ScoreError,
    ScoringFormat,
    get_format,
)
from ratings.engine.initial import CERTAINTY, LEVELS, default_state, initial_state
from ratings.engine.outcome import Outcome, match_outcome
from ratings.engine.predict import inflated_rd, match_quality, win_probability
from ratings.engine.replay import (
    Replayer,
    ReplayResult,
    ReplaySnapshot,
    validate_params,
)
from ratings.engine.scales import GLICKO2_SCALE, display
from ratings.engine.types import (
    COMPOSITE_RD_CHOICES,
    TEAM_METHODS,
    EngineError,
    MatchResult,
    Params,
    PlayerChange,
    PlayerState,
)

__all__ = [
    "CERTAINTY",
    "COMPOSITE_RD_CHOICES",
    "FORMAT_CHOICES",
    "FORMAT_NAMES",
    "GLICKO2_SCALE",
    "LEVELS",
    "TEAM_METHODS",
    "EngineError",
    "MatchResult",
    "Outcome",
    "Params",
    "PlayerChange",
    "PlayerState",
    "ReplayResult",
    "ReplaySnapshot",
    "Replayer",
    "ScoreError",
    "ScoringFormat",
    "default_state",
    "display",
    "get_format",
    "inflated_rd",
    "initial_state",
    "match_outcome",
    "match_quality",
    "validate_params",
    "win_probability",
]
