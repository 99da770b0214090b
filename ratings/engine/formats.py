"""Scoring formats (RULES.md "Ladders"): which game scores are valid and who won a match.

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
    which takes any non-negative game scores without a tie, and a match of any length
    up to `best_of` (`shorter_matches`).
    """

    name: str
    best_of: int
    points_per_game: int
    cap: int | None = None

    @property
    def games_to_win(self) -> int:
        """Games a side needs to win a best-of-`best_of` match (for the generic format, the
        longest match: a shorter one is won with fewer, see `shorter_matches`)."""
        return self.best_of // 2 + 1

    @property
    def shorter_matches(self) -> bool:
        """True when a match may be shorter than `best_of` (the generic format).

        Then a match is valid when its games are a whole best-of-L match for some odd
        L <= `best_of` (tennis best-of-3 and best-of-5 in one best-of-5 ladder): no tied
        game, the winner (the side with more games) won the last game, and no game came
        after a side's `games_to_win`-th win. A tie in games, or a game after the
        match was decided (the loser winning the last game), is refused.
        """
        return self.name == GENERIC

    @property
    def description(self) -> str:
        """A short plain description, e.g. "best of 3 games to 21 (capped at 30)"."""
        games = "one game" if self.best_of == 1 else f"best of {self.best_of} games"
        if self.shorter_matches and self.best_of > 1:
            games = f"up to {games}, a shorter match counts"
        if self.cap is None:
            return f"{games} (points per game: {self.points_per_game})"
        return f"{games} to {self.points_per_game}, win by {WIN_BY}, capped at {self.cap}"

    def game_problem(self, a: int, b: int) -> str | None:
        """What is wrong with one game's score, or None when it is valid."""
        if not _is_int(a) or not _is_int(b):
            return f"{a}-{b} is not a score: points are whole numbers"
        if a < 0 or b < 0:
            # "21--5" reads as a typo: name the number that is wrong.
            negative = a if a < 0 else b
            return f"{negative} is not a score: points cannot be negative"
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
        """Raise ScoreError listing every problem with a whole match's games.

        Badminton formats: the match is exactly a best-of-`best_of`; it ends when a side
        has `games_to_win` games and no game may follow. The generic format takes a match
        of any length up to `best_of` (see `shorter_matches`).
        """
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
        if not problems and self.shorter_matches:
            problem = _shorter_match_problem(games, self.best_of)
            if problem is not None:
                problems.append(problem)
        elif not problems and decided_after is None:
            needed = f"{self.games_to_win} game{'s' if self.games_to_win > 1 else ''}"
            problems.append(
                f"The match is not finished: {wins[0]}-{wins[1]} in games; "
                f"a best-of-{self.best_of} match needs {needed} won"
            )
        if problems:
            raise ScoreError(problems)

    def straight_win(self, loser_points: int) -> tuple[tuple[int, int], ...]:
        """Side A winning every game of the shortest full match, each game by
        `points_per_game` to `loser_points` (a deuce game when the rules demand a lead of two:
        19 -> 21-19, 20 -> 22-20). For the points at stake of RATINGS.md §6."""
        ppg = self.points_per_game
        loser_points = max(0, min(loser_points, ppg - 1))
        game = (ppg, loser_points)
        if self.cap is not None and ppg - loser_points < WIN_BY:
            game = (loser_points + WIN_BY, loser_points)
        games = (game,) * (1 if self.shorter_matches else self.games_to_win)
        self.validate_games(games)
        return games

    def winner(self, games: Sequence[tuple[int, int]]) -> str:
        """ "a" or "b": the side that won more games (the games are validated first)."""
        self.validate_games(games)
        won_by_a = sum(1 for a, b in games if a > b)
        return "a" if 2 * won_by_a > len(games) else "b"


def _shorter_match_problem(games: Sequence[tuple[int, int]], best_of: int) -> str | None:
    """What stops valid `games` (none past a side's `best_of // 2 + 1`-th win) from being a
    whole best-of-L match for some odd L <= best_of, or None.

    A side that wins `w` games and the last game has won a best-of-(2w - 1); the loser's
    game count is then below `w`, and `2w - 1 <= best_of` because no game followed a
    side's `best_of // 2 + 1`-th win. What remains to refuse: a tied match, and a match
    whose last game the loser won (it was decided earlier, or it is not finished).
    """
    wins = [0, 0]
    for a, b in games:
        wins[0 if a > b else 1] += 1
    if wins[0] == wins[1]:
        return (
            f"The match is tied {wins[0]}-{wins[1]} in games; "
            "the side that won more games wins, so a match needs a winner"
        )
    winner = 0 if wins[0] > wins[1] else 1
    last_a, last_b = games[-1]
    if (0 if last_a > last_b else 1) == winner:
        return None
    # The winner's last win decided a shorter match; every game after it came too late.
    so_far = [0, 0]
    for number, (a, b) in enumerate(games, start=1):
        so_far[0 if a > b else 1] += 1
        if so_far[winner] == wins[winner]:
            length = 2 * wins[winner] - 1
            return (
                f"Game {number + 1}: the match was already decided after game {number} "
                f"({so_far[0]}-{so_far[1]} in games, a best-of-{length}); no game may follow "
                f"(and a best-of-{best_of} match at {wins[0]}-{wins[1]} is not finished)"
            )
    raise AssertionError("unreachable: the winner has wins[winner] games")


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
    ("generic", "Any sport: up to best of N games, points per game set by hand"),
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
