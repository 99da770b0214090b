"""Valid and invalid games for every scoring format, through report_match and the API:
valid scores are stored as given; invalid ones are refused with the engine's readable
message under "games" and change nothing."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.utils import timezone

from ladder.matches import operations as matches
from ladder.matches.errors import MatchValidationError
from ladder.matches.models import Match
from ladder.matches.validation import Report
from tests.factories import LadderFactory, MembershipFactory
from tests.matches.support import API, api_client, report_payload, unchanged

FORMATS = {
    "badminton_21": {"scoring_format": "badminton_21"},
    "badminton_15": {"scoring_format": "badminton_15", "best_of": 3, "points_per_game": 15},
    "badminton_11": {"scoring_format": "badminton_11", "best_of": 5, "points_per_game": 11},
    "generic_bo3": {"scoring_format": "generic", "best_of": 3, "points_per_game": 10},
    "generic_bo1": {"scoring_format": "generic", "best_of": 1, "points_per_game": 16},
    # tennis: best-of-3 and best-of-5 results in one ladder
    "generic_bo5": {"scoring_format": "generic", "best_of": 5, "points_per_game": 6},
}

VALID = {
    "badminton_21": [
        [[21, 15], [21, 18]],
        [[21, 19], [0, 21], [21, 0]],
        [[22, 20], [30, 29]],
        [[28, 30], [30, 28], [29, 27]],
        [[15, 21], [19, 21]],
    ],
    "badminton_15": [
        [[15, 13], [15, 0]],
        [[16, 14], [21, 20]],
        [[13, 15], [15, 13], [20, 18]],
    ],
    "badminton_11": [
        [[11, 9], [11, 5], [11, 0]],
        [[9, 11], [11, 9], [15, 14], [5, 11], [11, 7]],
        [[12, 10], [13, 11], [11, 2]],
    ],
    "generic_bo3": [
        [[10, 3], [0, 7], [5, 4]],
        [[1, 0], [2, 0]],
        [[130, 129], [7, 9], [0, 1]],
        [[3, 2]],  # a shorter match: a whole best-of-1
    ],
    "generic_bo1": [[[16, 14]], [[3, 16]], [[19, 17]]],
    "generic_bo5": [
        [[6, 4], [4, 6], [7, 6]],  # 2-1: a best-of-3
        [[6, 3], [6, 4]],
        [[6, 4], [3, 6], [7, 5], [6, 7], [10, 8]],  # 3-2: a best-of-5
        [[4, 6], [6, 7], [6, 4], [6, 1], [6, 4]],
        [[6, 0], [6, 0], [6, 0]],
    ],
}

# (games, a part of the message)
INVALID = {
    "badminton_21": [
        (
            [[21, 20], [21, 15]],
            "Game 1: 21-20 is not a valid badminton game to 21: a game won at 21 needs a 2-point lead.",
        ),
        (
            [[31, 29], [21, 15]],
            "Game 1: 31-29 is not a valid badminton game to 21: games stop at 30 (30-29 wins).",
        ),
        (
            [[23, 20], [21, 15]],
            "Game 1: 23-20 is not a valid badminton game to 21: a game only goes past 21 from 20-all",
        ),
        (
            [[20, 15], [21, 15]],
            "Game 1: 20-15 is not a valid badminton game to 21: the winner needs 21 points.",
        ),
        ([[30, 27], [21, 15]], "a game only goes past 21"),
        (
            [[21, 15]],
            "The match is not finished: 1-0 in games; a best-of-3 match needs 2 games won.",
        ),
        (
            [[21, 15], [21, 18], [21, 10]],
            "Game 3: the match was already decided after game 2 (2-0 in games); no game may follow.",
        ),
        ([[21, 21], [21, 15]], "Game 1: 21-21 is a tie; a game needs a winner."),
        ([[-1, 21], [21, 15]], "Game 1: -1 is not a score: points cannot be negative."),
        ([], "A match needs at least one game."),
    ],
    "badminton_15": [
        ([[15, 14], [15, 3]], "a game won at 15 needs a 2-point lead"),
        ([[22, 20], [15, 3]], "games stop at 21 (21-20 wins)"),
        (
            [[15, 3], [13, 15], [15, 12], [15, 1]],
            "Game 4: the match was already decided after game 3",
        ),
    ],
    "badminton_11": [
        (
            [[11, 9], [11, 5]],
            "The match is not finished: 2-0 in games; a best-of-5 match needs 3 games won.",
        ),
        ([[16, 14], [11, 5], [11, 5]], "games stop at 15"),
        ([[11, 10], [11, 5], [11, 5]], "a game won at 11 needs a 2-point lead"),
    ],
    "generic_bo3": [
        ([[4, 4], [5, 1], [5, 1]], "Game 1: 4-4 is a tie; a game needs a winner."),
        ([[3, 2], [2, 3]], "The match is tied 1-1 in games"),
        ([[3, 2], [3, 2], [3, 2]], "Game 3: the match was already decided"),
        ([[100000, 2], [3, 2]], "Game 1: more than 9999 points is not a real score."),
    ],
    "generic_bo1": [
        ([[16, 14], [16, 14]], "Game 2: the match was already decided after game 1"),
        ([[16, 16]], "is a tie"),
    ],
    "generic_bo5": [
        ([[6, 4], [4, 6]], "The match is tied 1-1 in games"),
        ([[6, 4], [4, 6], [6, 4], [4, 6]], "The match is tied 2-2 in games"),
        (
            [[6, 4], [6, 4], [4, 6]],
            "Game 3: the match was already decided after game 2 (2-0 in games, a best-of-3); "
            "no game may follow (and a best-of-5 match at 2-1 is not finished).",
        ),
        ([[6, 4], [6, 4], [6, 4], [6, 4]], "Game 4: the match was already decided after game 3"),
        ([[6, 6], [6, 4]], "Game 1: 6-6 is a tie; a game needs a winner."),
    ],
}

VALID_CASES = [(f, g) for f, games in VALID.items() for g in games]
INVALID_CASES = [(f, g, m) for f, cases in INVALID.items() for g, m in cases]


@pytest.fixture(autouse=True)
def _no_throttle_history():
    cache.clear()


@pytest.fixture
def ladder_for(alice, bob):
    def make(name):
        ladder = LadderFactory(name=name, slug=name.replace("_", "-"), **FORMATS[name])
        for user in (alice, bob):
            MembershipFactory(ladder=ladder, user=user)
        return ladder

    return make


def report(via, ladder, alice, bob, games):
    """Report alice v bob with ``games`` through the domain or the API; the stored score, or
    the list of messages under "games"."""
    if via == "domain":
        try:
            match = matches.report_match(
                Report(
                    ladder=ladder,
                    reporter=alice,
                    played_on=timezone.localdate(),
                    side_a=[alice],
                    side_b=[bob],
                    games=[tuple(g) for g in games],
                )
            )
        except MatchValidationError as exc:
            assert set(exc.errors) == {"games"}, exc.errors
            return exc.errors["games"]
        return match.game_scores
    response = api_client(alice).post(
        API, report_payload(ladder, [alice], [bob], games=games), format="json"
    )
    if response.status_code == 400:
        assert set(response.json()) == {"games"}, response.json()
        return response.json()["games"]
    assert response.status_code == 201, response.json()
    return [tuple(g) for g in response.json()["games"]]


@pytest.mark.parametrize("via", ["domain", "api"])
@pytest.mark.parametrize(("fmt", "games"), VALID_CASES)
def test_valid_scores(ladder_for, alice, bob, via, fmt, games):
    ladder = ladder_for(fmt)
    assert report(via, ladder, alice, bob, games) == [tuple(g) for g in games]
    assert Match.objects.get().score_text == " ".join(f"{a}-{b}" for a, b in games)


@pytest.mark.parametrize("via", ["domain", "api"])
@pytest.mark.parametrize(("fmt", "games", "message"), INVALID_CASES)
def test_invalid_scores(ladder_for, alice, bob, via, fmt, games, message):
    ladder = ladder_for(fmt)
    with unchanged():
        messages = report(via, ladder, alice, bob, games)
    assert any(message in m for m in messages), messages
    assert all(m.endswith(".") for m in messages)


def test_all_problems_are_listed(ladder_for, alice, bob):
    ladder = ladder_for("badminton_21")
    messages = report("domain", ladder, alice, bob, [[21, 20], [25, 10]])
    assert [m.split(":")[0] for m in messages] == ["Game 1", "Game 2"]
