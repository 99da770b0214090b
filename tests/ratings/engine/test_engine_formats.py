"""RULES.md "Ladders": scoring formats, valid games and decided matches."""

from __future__ import annotations

from itertools import product

import pytest

from ratings.engine.formats import (
    BADMINTON_11,
    BADMINTON_15,
    BADMINTON_21,
    FORMAT_NAMES,
    ScoreError,
    get_format,
)
from ratings.engine.types import EngineError

VALID = {
    "badminton_21": [
        (21, 0),
        (21, 19),
        (19, 21),
        (22, 20),
        (20, 22),
        (25, 23),
        (29, 27),
        (30, 28),
        (30, 29),
        (29, 30),
    ],
    "badminton_15": [(15, 0), (15, 13), (16, 14), (20, 18), (21, 19), (21, 20), (13, 15)],
    "badminton_11": [(11, 0), (11, 9), (12, 10), (14, 12), (15, 13), (15, 14), (9, 11)],
}
INVALID = {
    "badminton_21": {
        (21, 20): "a game won at 21 needs a 2-point lead",
        (20, 18): "the winner needs 21 points",
        (22, 19): "ends at a 2-point lead (22-20)",
        (23, 22): "needs a 2-point lead",
        (30, 27): "ends at a 2-point lead (30-28)",
        (31, 29): "games stop at 30 (30-29 wins)",
        (21, 21): "is a tie",
        (-1, 21): "cannot be negative",
    },
    "badminton_15": {
        (15, 14): "a game won at 15 needs a 2-point lead",
        (22, 20): "games stop at 21",
        (17, 14): "ends at a 2-point lead (17-15)",
        (14, 12): "the winner needs 15 points",
    },
    "badminton_11": {
        (11, 10): "a game won at 11 needs a 2-point lead",
        (16, 14): "games stop at 15",
        (13, 10): "ends at a 2-point lead (13-11)",
        (10, 8): "the winner needs 11 points",
    },
}


@pytest.mark.parametrize(("name", "game"), [(n, g) for n, games in VALID.items() for g in games])
def test_valid_games(name: str, game: tuple[int, int]) -> None:
    get_format(name).validate_game(*game)


@pytest.mark.parametrize(
    ("name", "game", "why"), [(n, g, w) for n, table in INVALID.items() for g, w in table.items()]
)
def test_invalid_games(name: str, game: tuple[int, int], why: str) -> None:
    with pytest.raises(
        ScoreError, match=r"Game 2: .*" + why.replace("(", r"\(").replace(")", r"\)")
    ):
        get_format(name).validate_game(*game, number=2)


def test_message_reads_well() -> None:
    with pytest.raises(ScoreError) as err:
        BADMINTON_21.validate_game(21, 20, number=2)
    assert str(err.value) == (
        "Game 2: 21-20 is not a valid badminton game to 21: a game won at 21 needs a 2-point lead"
    )


def test_badminton_21_rule_exhaustively() -> None:
    """RULES.md's rule: w == 21 and l <= 19, or 22 <= w <= 30 and l == w - 2, or 30-29."""
    for a in range(0, 35):
        for b in range(0, 35):
            w, lo = max(a, b), min(a, b)
            expected = a != b and (
                (w == 21 and lo <= 19) or (22 <= w <= 30 and lo == w - 2) or (w == 30 and lo == 29)
            )
            assert (BADMINTON_21.game_problem(a, b) is None) == expected, (a, b)


def test_same_shape_for_15_and_11() -> None:
    for fmt, target, cap in ((BADMINTON_15, 15, 21), (BADMINTON_11, 11, 15)):
        for a in range(0, cap + 3):
            for b in range(0, cap + 3):
                w, lo = max(a, b), min(a, b)
                expected = a != b and (
                    (w == target and lo <= target - 2)
                    or (target < w <= cap and lo == w - 2)
                    or (w == cap and lo == cap - 1)
                )
                assert (fmt.game_problem(a, b) is None) == expected, (fmt.name, a, b)


def test_generic_takes_any_untied_scores() -> None:
    fmt = get_format("generic", best_of=3, points_per_game=16)
    for game in ((16, 10), (0, 1), (100, 99), (22, 19)):
        fmt.validate_game(*game)
    with pytest.raises(ScoreError, match="tie"):
        fmt.validate_game(7, 7)
    with pytest.raises(ScoreError, match="negative"):
        fmt.validate_game(-1, 3)
    with pytest.raises(ScoreError, match="whole numbers"):
        fmt.validate_game(1.5, 3)  # type: ignore[arg-type]


def test_formats_shape() -> None:
    assert (BADMINTON_21.best_of, BADMINTON_21.points_per_game, BADMINTON_21.cap) == (3, 21, 30)
    assert (BADMINTON_15.best_of, BADMINTON_15.points_per_game, BADMINTON_15.cap) == (3, 15, 21)
    assert (BADMINTON_11.best_of, BADMINTON_11.points_per_game, BADMINTON_11.cap) == (5, 11, 15)
    assert FORMAT_NAMES == ("badminton_21", "badminton_15", "badminton_11", "generic")


# -- whole matches -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("games", "winner"),
    [
        (((21, 15), (21, 17)), "a"),
        (((15, 21), (17, 21)), "b"),
        (((21, 15), (19, 21), (21, 18)), "a"),
        (((21, 15), (19, 21), (28, 30)), "b"),
    ],
)
def test_decided_matches(games: tuple[tuple[int, int], ...], winner: str) -> None:
    BADMINTON_21.validate_games(games)
    assert BADMINTON_21.winner(games) == winner


def test_undecided_match() -> None:
    with pytest.raises(
        ScoreError, match="not finished: 1-1 in games; a best-of-3 match needs 2 games won"
    ):
        BADMINTON_21.validate_games(((21, 15), (15, 21)))
    with pytest.raises(ScoreError, match="not finished: 1-0"):
        BADMINTON_21.winner(((21, 15),))


def test_game_after_the_match_was_decided() -> None:
    with pytest.raises(ScoreError, match="Game 3: the match was already decided after game 2"):
        BADMINTON_21.validate_games(((21, 15), (21, 17), (21, 10)))


def test_too_many_games_in_best_of_five() -> None:
    games = ((11, 5), (5, 11), (11, 5), (5, 11), (11, 5), (11, 5))
    with pytest.raises(ScoreError, match="Game 6: the match was already decided after game 5"):
        BADMINTON_11.validate_games(games)
    BADMINTON_11.validate_games(games[:5])
    assert BADMINTON_11.winner(games[:5]) == "a"


def test_no_games() -> None:
    with pytest.raises(ScoreError, match="at least one game"):
        BADMINTON_21.validate_games(())


def test_every_invalid_game_is_listed() -> None:
    with pytest.raises(ScoreError) as err:
        BADMINTON_21.validate_games(((21, 20), (22, 19)))
    assert [p.split(":")[0] for p in err.value.problems] == ["Game 1", "Game 2"]


def test_generic_best_of_n() -> None:
    fmt = get_format("generic", best_of=5, points_per_game=11)
    assert fmt.games_to_win == 3
    assert fmt.winner(((3, 1), (1, 3), (3, 1), (3, 1))) == "a"
    one = get_format("generic", points_per_game=16)
    assert one.best_of == 1
    assert one.winner(((10, 16),)) == "b"


# -- generic: a match of any length up to best_of --------------------------------------

TENNIS_BO5 = get_format("generic", best_of=5, points_per_game=6)
TENNIS_BO3 = get_format("generic", best_of=3, points_per_game=6)


def _sets(text: str) -> tuple[tuple[int, int], ...]:
    return tuple((int(a), int(b)) for a, b in (s.split("-") for s in text.split()))


@pytest.mark.parametrize(
    ("score", "winner"),
    [
        ("6-4", "a"),  # a one-set match is a whole best-of-1
        ("4-6", "b"),
        ("6-4 6-4", "a"),  # best of 3
        ("6-4 4-6 6-3", "a"),
        ("7-6 6-7 6-7", "b"),
        ("3-6 7-5 7-6", "a"),
        ("6-4 6-4 6-4", "a"),  # best of 5
        ("6-4 4-6 6-4 6-4", "a"),
        ("4-6 6-4 4-6 4-6", "b"),
        ("6-4 4-6 6-4 4-6 7-6", "a"),
        ("6-0 0-6 0-6 6-0 10-12", "b"),  # any non-negative points: an advantage final set
        ("7-5 7-6", "a"),
    ],
)
def test_generic_takes_any_whole_match_up_to_best_of(score: str, winner: str) -> None:
    games = _sets(score)
    TENNIS_BO5.validate_games(games)
    assert TENNIS_BO5.winner(games) == winner


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("6-4 4-6", "The match is tied 1-1 in games"),
        ("6-4 4-6 6-4 4-6", "The match is tied 2-2 in games"),
        (
            "6-4 6-4 4-6",
            r"Game 3: the match was already decided after game 2 \(2-0 in games, a best-of-3\); "
            r"no game may follow \(and a best-of-5 match at 2-1 is not finished\)",
        ),
        ("6-4 4-6 6-4 6-4 4-6", "Game 5: the match was already decided after game 4 .3-1"),
        ("6-4 6-4 6-4 4-6", "Game 4: the match was already decided after game 3"),
        ("6-4 6-4 6-4 6-4", "Game 4: the match was already decided after game 3"),
        ("6-4 4-6 6-4 4-6 6-4 6-4", "Game 6: the match was already decided after game 5"),
        ("6-6 6-4", "Game 1: 6-6 is a tie"),
    ],
)
def test_generic_refuses_a_tie_or_a_game_after_the_match_was_decided(
    score: str, message: str
) -> None:
    with pytest.raises(ScoreError, match=message):
        TENNIS_BO5.validate_games(_sets(score))


def test_generic_best_of_3_refuses_best_of_5_results() -> None:
    TENNIS_BO3.validate_games(_sets("6-4 4-6 6-3"))
    with pytest.raises(ScoreError, match="Game 3: the match was already decided after game 2"):
        TENNIS_BO3.validate_games(_sets("6-4 6-4 6-4"))
    with pytest.raises(ScoreError, match="Game 4: the match was already decided after game 3"):
        TENNIS_BO3.validate_games(_sets("6-4 4-6 6-4 6-4"))


def test_generic_rule_is_a_whole_best_of_l_for_some_odd_l() -> None:
    """Every sequence of game winners up to best_of long: valid exactly when it is a whole
    best-of-L match for an odd L <= best_of, and the winner is the side with more games."""
    for best_of in (1, 3, 5, 7):
        fmt = get_format("generic", best_of=best_of, points_per_game=6)
        for length in range(1, best_of + 2):
            for sides in product("ab", repeat=length):
                games = tuple((6, 4) if s == "a" else (4, 6) for s in sides)
                whole = any(_is_whole_best_of(sides, n) for n in range(1, best_of + 1, 2))
                try:
                    fmt.validate_games(games)
                except ScoreError:
                    assert not whole, (best_of, sides)
                else:
                    assert whole, (best_of, sides)
                    assert fmt.winner(games) == max("ab", key=sides.count)


def _is_whole_best_of(sides: tuple[str, ...], n: int) -> bool:
    """`sides` (who won each game) is exactly a decided best-of-n match."""
    need = n // 2 + 1
    count = {"a": 0, "b": 0}
    for number, side in enumerate(sides, start=1):
        count[side] += 1
        if count[side] == need:
            return number == len(sides)
    return False


def test_generic_description_says_shorter_matches_count() -> None:
    assert TENNIS_BO5.shorter_matches and not BADMINTON_11.shorter_matches
    assert TENNIS_BO5.description.startswith("up to best of 5 games")
    assert get_format("generic", points_per_game=16).description.startswith("one game")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("tennis",), "unknown scoring format 'tennis'"),
        (("generic",), "needs points_per_game"),
        (("generic", 2, 21), "odd number from 1 to 7"),
        (("generic", 9, 21), "odd number from 1 to 7"),
        (("generic", 3, 0), "positive whole number"),
        (("badminton_21", 5), "always best of 3"),
        (("badminton_15", None, 21), "always played to 15"),
    ],
)
def test_get_format_errors(args: tuple, message: str) -> None:
    with pytest.raises(EngineError, match=message):
        get_format(*args)


def test_get_format_known() -> None:
    assert get_format("badminton_21") is BADMINTON_21
    assert get_format("badminton_11", best_of=5, points_per_game=11) is BADMINTON_11
