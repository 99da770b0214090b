"""The outcome of a match and what its margin does (RATINGS.md §3 step 2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ratings.engine.scales import clamp
from ratings.engine.types import OUTCOME_MODELS, EngineError, Params

DEFAULT_PARAMS = Params()


@dataclass(frozen=True, slots=True)
class Outcome:
    """Who won, the outcome `s` each side gets, and the match's information multiplier `m`.

    `winner` is decided by games, not by `s`: under the `score` model with a small
    `match_win_bonus` a winner's `s` can be 0.5 or less, and the wrong-way floor (§3 step 9)
    still treats them as the winner.
    """

    winner: str  # "a" or "b"
    margin_ratio: float  # from the winner's view, after clamping
    s_winner: float
    multiplier: float = 1.0  # m: how many narrow wins' worth of information the match carries

    @property
    def s_loser(self) -> float:
        return 1.0 - self.s_winner

    @property
    def a_won(self) -> bool:
        return self.winner == "a"

    @property
    def s_a(self) -> float:
        return self.s_winner if self.winner == "a" else 1.0 - self.s_winner

    @property
    def s_b(self) -> float:
        return 1.0 - self.s_a


def games_won(games: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """Games won by side A and by side B (a tied game counts for neither)."""
    return sum(1 for a, b in games if a > b), sum(1 for a, b in games if b > a)


def margin_multiplier(margin_ratio: float, params: Params) -> float:
    """`m = 1 + margin_boost * margin_ratio / margin_clamp` (§3 step 2, margin_information).

    1 for the narrowest win, `1 + margin_boost` for a win by `margin_clamp` or more. With
    `margin_clamp = 0` every margin is clamped to 0: the margin is ignored and `m = 1`.
    """
    if params.margin_clamp <= 0.0:
        return 1.0
    return 1.0 + params.margin_boost * margin_ratio / params.margin_clamp


def match_outcome(
    games: Sequence[tuple[int, int]], points_per_game: float, params: Params = DEFAULT_PARAMS
) -> Outcome:
    """The outcome of a match from its games `(a, b)` under `params.outcome_model`.

    The winner is the side with more games won; the margin is the mean point difference
    per game from the winner's view (a game the winner lost counts negative) over
    `points_per_game`.
    - margin_information: ratio clamped to `[0, margin_clamp]`, `s_winner = 1`,
      `m = 1 + margin_boost * ratio / margin_clamp`. 21-15: ratio 0.2857 -> 0.25, m = 2.
    - score: ratio clamped to `[-margin_clamp, margin_clamp]`,
      `s_winner = clamp(0.5 + match_win_bonus + margin_weight * ratio, 0, 1)`, m = 1.
      21-15: s_winner = 0.9625.
    """
    if not games:
        raise EngineError("a match needs at least one game")
    if points_per_game <= 0:
        raise EngineError(f"points_per_game must be positive, not {points_per_game}")
    won_by_a, won_by_b = games_won(games)
    if won_by_a == won_by_b:
        raise EngineError(f"no winner: {won_by_a}-{won_by_b} in games")
    margin_a = sum(a - b for a, b in games) / len(games)
    winner = "a" if won_by_a > won_by_b else "b"
    margin = (margin_a if winner == "a" else -margin_a) / points_per_game
    if params.outcome_model == "margin_information":
        ratio = clamp(margin, 0.0, params.margin_clamp)
        return Outcome(winner, ratio, 1.0, margin_multiplier(ratio, params))
    if params.outcome_model == "score":
        ratio = clamp(margin, -params.margin_clamp, params.margin_clamp)
        s_winner = clamp(0.5 + params.match_win_bonus + params.margin_weight * ratio, 0.0, 1.0)
        return Outcome(winner, ratio, s_winner, 1.0)
    raise EngineError(
        f"unknown outcome_model {params.outcome_model!r}; choose one of {', '.join(OUTCOME_MODELS)}"
    )
