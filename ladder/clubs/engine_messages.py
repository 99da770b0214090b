"""The rating engine's refusals (``validate_params``) read as a ladder's form errors: one
message per problem, each on the field it is about."""

from __future__ import annotations

from dataclasses import fields as dataclass_fields

from ladder.clubs.params import PARAM_FIELDS
from ratings.engine.types import EngineError, Params

# The first words of the engine's messages (validate_params): a parameter's name, or one of
# these. A "; " before any other word is inside a message, not between two.
_MESSAGE_HEADS = frozenset({f.name for f in dataclass_fields(Params)}) | {
    "performance_weighted",
    "performance",
    "stat",
}


def engine_problems(error: EngineError) -> list[str]:
    """The problems of one ``validate_params`` error, each a message of its own."""
    problems: list[str] = []
    for part in str(error).split("; "):
        if problems and part.split(" ", 1)[0] not in _MESSAGE_HEADS:
            problems[-1] += "; " + part
        else:
            problems.append(part)
    return problems


def param_error_field(message: str) -> str:
    """The ladder field a message of ``validate_params`` is about: the parameter it starts
    with when the ladder has a field of that name, the team method for a method that
    cannot work with these options, else the method options."""
    name = message.split(" ", 1)[0]
    if name in PARAM_FIELDS:
        return name
    if name == "performance_weighted":
        return "team_method"
    return "method_options"
