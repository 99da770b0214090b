"""The margin-aware outcome of a match (RATINGS.md §3 step 2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ratings.engine.scales import clamp
from ratings.engine.types import EngineError, Params

DEFAULT_PARAMS = Params()


@dataclass(frozen=True, slots=True)
class Outcome:
    """Who won and the outcome `s` each side gets (the loser's is `1 - s_winner`)."""

    winner: str  # "a" or "b"
    margin_ratio: float  # from the winner's view, after clamping
    s_winner: float

    @property
    def s_loser(self) -> float:
        return 1.0 - self.s_winner

    @property
    def s_a(self) -> float:
        return self.s_winner if self.winner == "a" else 1.0 - self.s_winner

    @property
    def s_b(self) -> float:
        return 1.0 - self.s_a


def match_outcome(
    games: Sequence[tuple[int, int]], points_per_game: float, params: Params = DEFAULT_PARAMS
) -> Outcome:
    """The outcome of a match from its games `(a, b)`.

    The winner is the side with more games won. From the winner's view,
    `margin_ratio = clamp(mean(winner - loser points per game) / points_per_game, ±margin_clamp)`
    (a game the winner lost counts negative) and
    `s_winner = clamp(0.5 + match_win_bonus + margin_weight * margin_ratio, 0, 1)`.
    21-15 gives ratio 0.2857, clamped to 0.25, so `s_winner = 0.9625`.
    """
    if not games:
        raise EngineError("a match needs at least one game")
    if points_per_game <= 0:
        raise EngineError(f"points_per_game must be positive, not {points_per_game}")
    won_by_a = sum(1 for a, b in games if a > b)
    won_by_b = sum(1 for a, b in games if b > a)
    if won_by_a == won_by_b:
        raise EngineError(f"no winner: {won_by_a}-{won_by_b} in games")
    margin_a = sum(a - b for a, b in games) / len(games)
    winner = "a" if won_by_a > won_by_b else "b"
    margin = margin_a if winner == "a" else -margin_a
    ratio = clamp(margin / points_per_game, -params.margin_clamp, params.margin_clamp)
    s_winner = clamp(0.5 + params.match_win_bonus + params.margin_weight * ratio, 0.0, 1.0)
    return Outcome(winner=winner, margin_ratio=ratio, s_winner=s_winner)
