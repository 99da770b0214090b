"""The engine's errors: every refusal is an ``EngineError`` whose message is for people."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class EngineError(ValueError):
    """A bad input or a computation that cannot finish; the message is for people."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One refusal of ``validate_params``: the setting it is about and the message, which
    starts with that setting's name (or, for a rule between settings, the thing refused)."""

    setting: str
    message: str


class ParamsError(EngineError):
    """Settings the engine refuses (``validate_params``); one ``Problem`` per refusal, each
    naming its setting, as ``ScoreError.problems`` names each game."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("; ".join(p.message for p in self.problems))
