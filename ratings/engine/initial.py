"""A new player's starting state from the optional self-assessment (RATINGS.md §4)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from ratings.engine.scales import DISPLAY_DIVISOR
from ratings.engine.types import EngineError, Params, PlayerState

# (level on the 2.0-9.0 display scale, what a player at that level can do)
LEVELS: tuple[tuple[float, str], ...] = (
    (2.0, "Just starting: learning to serve and keep a rally going."),
    (2.5, "Beginner: short rallies, still finding the basic strokes."),
    (3.0, "Improving beginner: clears and serves mostly land; play social games."),
    (3.5, "Social player: steady rallies, starting to place the shuttle on purpose."),
    (4.0, "Regular club player: all basic shots, play club nights every week."),
    (4.5, "Strong club player: good footwork, win most social games."),
    (5.0, "Club team player: play league matches, attack and defend with control."),
    (5.5, "Top club player: a first-team or county-league regular."),
    (6.0, "Competitive player: regional tournaments, trained technique and tactics."),
)
# The same levels in words for any sport (a ladder not scored as badminton: a 5v5 league,
# tennis): what a player at that level does, without shuttles and clears.
ANY_SPORT_LEVELS: tuple[tuple[float, str], ...] = (
    (2.0, "Just starting: learning the rules and the basic moves."),
    (2.5, "Beginner: still finding the basics, play now and then."),
    (3.0, "Improving beginner: know the game, play social games."),
    (3.5, "Social player: steady, starting to play with a plan."),
    (4.0, "Regular club player: all the basics, play every week."),
    (4.5, "Strong club player: win most social games."),
    (5.0, "Club team player: play league matches with control."),
    (5.5, "Top club player: a first-team or county-league regular."),
    (6.0, "Competitive player: regional tournaments, trained skills and tactics."),
)
# (key, what the member ticks, initial RD in rating points)
CERTAINTY: tuple[tuple[str, str, float], ...] = (
    ("rated", "I have a rating from league or tournament play", 150.0),
    ("regular", "I play regularly", 200.0),
    ("unsure", "New or not sure", 250.0),
)
LEVEL_CHOICES = tuple((str(level), f"{level} – {text}") for level, text in LEVELS)
CERTAINTY_CHOICES = tuple((key, label) for key, label, _ in CERTAINTY)


def level_choices_for(scoring_format: str) -> tuple[tuple[str, str], ...]:
    """The levels a member chooses from when joining, described for the ladder's sport."""
    if scoring_format.startswith("badminton"):
        return LEVEL_CHOICES
    return tuple((str(level), f"{level} – {text}") for level, text in ANY_SPORT_LEVELS)


_LEVEL_VALUES = {Decimal(str(level)) for level, _ in LEVELS}
_CERTAINTY_RD = {key: rd for key, _, rd in CERTAINTY}


def default_state(params: Params) -> PlayerState:
    """The ladder's starting state for a player without a self-assessment.

    glicko1_team starts at its own initial RD (130 in the Pokémon 2v2 seed).
    """
    rd = params.g1_initial_rd if params.team_method == "glicko1_team" else params.initial_rd
    return PlayerState(rating=params.initial_rating, rd=rd, volatility=params.initial_volatility)


def initial_state(
    params: Params, level: float | str | Decimal | None = None, certainty: str | None = None
) -> PlayerState:
    """The starting state from a self-assessment: level 4.5 -> 4500; certainty sets the RD.

    No level: the ladder's initial rating; no certainty: the ladder's initial RD.
    An unknown level or certainty raises EngineError.
    """
    state = default_state(params)
    rating, rd = state.rating, state.rd
    if level is not None:
        rating = float(_level(level) * DISPLAY_DIVISOR)
        if not params.rating_min <= rating <= params.rating_max:
            raise EngineError(f"level {level} is outside this ladder's rating range")
    if certainty is not None:
        if certainty not in _CERTAINTY_RD:
            raise EngineError(
                f"unknown certainty {certainty!r}; choose one of {', '.join(_CERTAINTY_RD)}"
            )
        rd = min(_CERTAINTY_RD[certainty], params.rd_max)
    return PlayerState(rating=rating, rd=rd, volatility=state.volatility)


def _level(level: float | str | Decimal) -> Decimal:
    if isinstance(level, bool):
        raise EngineError(f"{level!r} is not a level")
    try:
        value = Decimal(str(level).strip())
    except (InvalidOperation, ValueError):
        raise EngineError(f"{level!r} is not a level; pick one from 2.0 to 6.0") from None
    if value not in _LEVEL_VALUES:
        raise EngineError(f"{level} is not a level; pick one from 2.0 to 6.0 in steps of 0.5")
    return value
