"""Scoring formats (PRODUCT.md "Ladders"): which game scores are valid and who won a match.

Messages are written for a club member who typed the score, e.g.
"Game 2: 21-20 is not a valid badminton game to 21: a game won at 21 needs a 2-point lead".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ratings.engine.types import EngineError

# Badminton: a game is won by 2 points, and capped (30-29 wins a game to 21).
WIN_BY = 2
GENERIC_BEST_OF = (1, 3, 5, 7)


class ScoreError(EngineError):
    """A score that cannot be right for the ladder's format; one message per problem."""

    def __init__(self, problems: str | Sequence[str]) -> None:
        self.problems: tuple[str, ...] = (
            (problems,) if isinstance(problems, str) else tuple(problems)
        )
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True, slots=True)
class ScoringFormat:
    """How a ladder scores a match: best of `best_of` games to `points_per_game`.

    `cap` is the badminton cap (30 for games to 21); None for the generic format,
    which takes any non-negative scores without a tie.
    """

    name: str
    best_of: int
    points_per_game: int
    cap: int | None = None

    @property
    def games_to_win(self) -> int:
        """Games a side needs to win the match."""
        return self.best_of // 2 + 1

    @property
    def description(self) -> str:
        """A short plain description, e.g. "best of 3 games to 21 (capped at 30)"."""
        games = "one game" if self.best_of == 1 else f"best of {self.best_of} games"
        if self.cap is None:
            return f"{games} (points per game: {self.points_per_game})"
        return f"{games} to {self.points_per_game}, win by {WIN_BY}, capped at {self.cap}"

    def game_problem(self, a: int, b: int) -> str | None:
        """What is wrong with one game's score, or None when it is valid."""
        if not _is_int(a) or not _is_int(b):
            return f"{a}-{b} is not a score: points are whole numbers"
        if a < 0 or b < 0:
            return f"{a}-{b} is not a score: points cannot be negative"
        if a == b:
            return f"{a}-{b} is a tie; a game needs a winner"
        if self.cap is None:
            return None
        return self._badminton_problem(max(a, b), min(a, b), f"{a}-{b}")

    def _badminton_problem(self, won: int, lost: int, text: str) -> str | None:
        target, cap = self.points_per_game, self.cap
        assert cap is not None
        kind = f"{text} is not a valid badminton game to {target}"
        if won < target:
            return f"{kind}: the winner needs {target} points"
        if won == target:
            if lost <= target - WIN_BY:
                return None
            return f"{kind}: a game won at {target} needs a {WIN_BY}-point lead"
        if won > cap:
            return f"{kind}: games stop at {cap} ({cap}-{cap - 1} wins)"
        if lost == won - WIN_BY or (won == cap and lost == cap - 1):
            return None
        if lost > won - WIN_BY:
            return f"{kind}: a game needs a {WIN_BY}-point lead"
        return (
            f"{kind}: a game only goes past {target} from {target - 1}-all "
            f"and ends at a {WIN_BY}-point lead ({won}-{won - WIN_BY})"
        )

    def validate_game(self, a: int, b: int, number: int | None = None) -> None:
        """Raise ScoreError naming the game (`number`, 1-based) when `a-b` is not a valid game."""
        problem = self.game_problem(a, b)
        if problem is not None:
            raise ScoreError(_prefix(number) + problem)

    def validate_games(self, games: Sequence[tuple[int, int]]) -> None:
        """Raise ScoreError listing every problem with a whole match's games."""
        problems: list[str] = []
        if len(games) == 0:
            raise ScoreError("A match needs at least one game")
        wins = [0, 0]
        decided_after: int | None = None
        for number, game in enumerate(games, start=1):
            if not isinstance(game, tuple | list) or len(game) != 2:
                problems.append(f"{_prefix(number)}{game!r} is not a score like 21-15")
                continue
            a, b = game
            if decided_after is not None:
                problems.append(
                    f"Game {number}: the match was already decided after game {decided_after} "
                    f"({wins[0]}-{wins[1]} in games); no game may follow"
                )
                break
            problem = self.game_problem(a, b)
            if problem is not None:
                problems.append(_prefix(number) + problem)
                continue
            wins[0 if a > b else 1] += 1
            if max(wins) >= self.games_to_win:
                decided_after = number
        if not problems and decided_after is None:
            needed = f"{self.games_to_win} game{'s' if self.games_to_win > 1 else ''}"
            problems.append(
                f"The match is not finished: {wins[0]}-{wins[1]} in games; "
                f"a best-of-{self.best_of} match needs {needed} won"
            )
        if problems:
            raise ScoreError(problems)

    def winner(self, games: Sequence[tuple[int, int]]) -> str:
        """ "a" or "b": the side that won the match (the games are validated first)."""
        self.validate_games(games)
        won_by_a = sum(1 for a, b in games if a > b)
        return "a" if won_by_a >= self.games_to_win else "b"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _prefix(number: int | None) -> str:
    return "" if number is None else f"Game {number}: "


BADMINTON_21 = ScoringFormat("badminton_21", best_of=3, points_per_game=21, cap=30)
BADMINTON_15 = ScoringFormat("badminton_15", best_of=3, points_per_game=15, cap=21)
BADMINTON_11 = ScoringFormat("badminton_11", best_of=5, points_per_game=11, cap=15)
FIXED_FORMATS = {f.name: f for f in (BADMINTON_21, BADMINTON_15, BADMINTON_11)}
GENERIC = "generic"
FORMAT_NAMES = (*FIXED_FORMATS, GENERIC)
FORMAT_CHOICES = (
    ("badminton_21", "Badminton: best of 3 games to 21 (capped at 30)"),
    ("badminton_15", "Badminton: best of 3 games to 15 (capped at 21)"),
    ("badminton_11", "Badminton: best of 5 games to 11 (capped at 15)"),
    ("generic", "Any sport: best of N games, points per game set by hand"),
)


def get_format(
    name: str, best_of: int | None = None, points_per_game: int | None = None
) -> ScoringFormat:
    """The scoring format called `name`; `generic` needs `points_per_game` (best_of defaults to 1)."""
    if name in FIXED_FORMATS:
        fmt = FIXED_FORMATS[name]
        if best_of is not None and best_of != fmt.best_of:
            raise EngineError(f"{name} is always best of {fmt.best_of}, not {best_of}")
        if points_per_game is not None and points_per_game != fmt.points_per_game:
            raise EngineError(
                f"{name} is always played to {fmt.points_per_game} points, not {points_per_game}"
            )
        return fmt
    if name != GENERIC:
        raise EngineError(
            f"unknown scoring format {name!r}; choose one of {', '.join(FORMAT_NAMES)}"
        )
    best_of = 1 if best_of is None else best_of
    if not _is_int(best_of) or best_of not in GENERIC_BEST_OF:
        raise EngineError(f"generic best_of must be an odd number from 1 to 7, not {best_of!r}")
    if points_per_game is None:
        raise EngineError("the generic format needs points_per_game (used for the score margin)")
    if not _is_int(points_per_game) or points_per_game < 1:
        raise EngineError(
            f"points_per_game must be a positive whole number, not {points_per_game!r}"
        )
    return ScoringFormat(GENERIC, best_of=best_of, points_per_game=points_per_game)
