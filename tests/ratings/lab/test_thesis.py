"""The thesis' experiment (`simulate --thesis`): its protocol, the four update methods, the
error functions and the JSON the issue asks for."""

from __future__ import annotations

import json
import random
import time

import pytest

from ratings.engine import glicko2
from ratings.lab import thesis
from ratings.lab.cli import main


def state(rating: float, rd: float = 200.0, sigma: float = 0.06) -> list[float]:
    return [(rating - 1500.0) / 173.7178, rd / 173.7178, sigma]


def test_matchmaking_builds_two_sides_of_five_around_the_pivot() -> None:
    rng = random.Random(3)
    states = [state(1200.0 + 25 * i) for i in range(25)]
    games = [4] * 25
    games[12] = 1  # the pivot: fewest games
    side_a, side_b = thesis.matchmake(states, games, rng)
    assert side_a[0] == 12
    assert len(side_a) == len(side_b) == 5 and not set(side_a) & set(side_b)
    # Everyone comes from the 20 players closest to the pivot's rating: the four farthest
    # (0, 1 and 23, 24 here, 300 points away) never play.
    assert not {0, 1, 23, 24} & {*side_a, *side_b}
    # The 9 most even predictions are dealt out, the opposing side first: the pivot's two
    # nearest neighbours (11, 13) go one each way, 11 to the opponents.
    assert side_b[0] == 11 and side_a[1] == 13


def test_matchmaking_draws_the_pivot_among_those_with_fewest_games() -> None:
    states = [state(1500.0) for _ in range(25)]
    games = [3] * 25
    games[4] = games[17] = 0
    pivots = {thesis.matchmake(states, games, random.Random(s))[0][0] for s in range(40)}
    assert pivots == {4, 17}


def test_each_update_method_is_the_thesis_algorithm() -> None:
    own = [state(1600.0), state(1450.0, 300.0), state(1500.0, 120.0)]
    other = [state(1550.0, 250.0), state(1400.0), state(1700.0, 90.0)]
    s = 1.0
    tau = thesis.TAU
    # Algorithm 1: a full Glicko-2 update against each opponent in turn.
    mu, phi, sigma = own[0]
    for o in other:
        mu, phi, sigma, _ = glicko2.update_one(mu, phi, sigma, o[0], o[1], s, 1.0, tau, 1.0, True)
    assert thesis.UPDATES["individual_sequential"](own, other, s)[0] == [mu, phi, sigma]
    # The engine's individual: all opponents in one rating period.
    engine = list(glicko2.update(*own[0], [(o[0], o[1], s, 1.0) for o in other], tau))
    assert thesis.UPDATES["individual_engine"](own, other, s)[0] == engine
    assert engine != [mu, phi, sigma]  # the two individual methods differ
    # Algorithm 2: one opponent with the side's mean rating and mean deviation.
    mu_c = sum(o[0] for o in other) / 3
    phi_c = sum(o[1] for o in other) / 3
    composite = list(glicko2.update_one(*own[1], mu_c, phi_c, s, 1.0, tau, 1.0, True)[:3])
    assert thesis.UPDATES["composite_opponent"](own, other, s)[1] == composite
    # Algorithm 3 on a side of identical players is Algorithm 2 (the composite is the player).
    twins = [state(1600.0)] * 3
    by_team = thesis.UPDATES["composite_team"](twins, other, s)
    by_opponent = thesis.UPDATES["composite_opponent"](twins, other, s)
    for got, want in zip(by_team, by_opponent, strict=True):
        assert got == pytest.approx(want, rel=1e-12)
    # ... and otherwise every player moves by the team's improvement, not their own.
    team = thesis.UPDATES["composite_team"](own, other, s)
    assert all(new[0] > old[0] for new, old in zip(team, own, strict=True))
    assert team[0] != thesis.UPDATES["composite_opponent"](own, other, s)[0]


def test_prediction_averages_each_side_then_uses_glickos_formula() -> None:
    a = [state(1600.0, 100.0), state(1500.0, 300.0)]
    b = [state(1500.0, 200.0), state(1400.0, 200.0)]
    phi = ((200.0 / 173.7178) ** 2 + (200.0 / 173.7178) ** 2) ** 0.5
    want = glicko2.expected(50.0 / 173.7178, -50.0 / 173.7178, glicko2.g(phi))
    assert thesis.win_probability(a, b) == pytest.approx(want)
    assert thesis.win_probability(b, a) == pytest.approx(1.0 - want)


def test_the_matching_error_function_is_the_one_nearest_the_thesis() -> None:
    def methods(absolute: float, squared: float) -> dict[str, object]:
        entry = {
            "errors": {
                "absolute": {"full": {"mean": absolute}, "last20": {"mean": absolute}},
                "squared": {"full": {"mean": squared}, "last20": {"mean": squared}},
            }
        }
        return {name: entry for name in thesis.THESIS}

    assert thesis.matching_error(methods(0.49, 0.25)) == "squared"
    assert thesis.matching_error(methods(0.22, 0.05)) == "absolute"


def test_simulate_thesis_json_has_the_issues_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--thesis", "--runs", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"protocol", "methods", "thesis", "error_function"} <= set(result)
    protocol = result["protocol"]
    assert (protocol["players"], protocol["team_size"], protocol["games"], protocol["runs"]) == (
        25,
        5,
        100,
        3,
    )
    assert set(result["methods"]) == set(thesis.METHODS)
    chosen = result["error_function"]
    for entry in result["methods"].values():
        for part in ("full", "last20"):
            assert set(entry[part]) == {"mean", "sd"}
            assert entry[part] == entry["errors"][chosen][part]
            assert 0.0 < entry["errors"]["squared"][part]["mean"] < 0.5
            assert 0.0 < entry["errors"]["absolute"][part]["mean"] < 1.0
        assert entry["top_player"][0] == 1500.0 and len(entry["top_player"]) > 10
    assert result["thesis"]["individual_sequential"] == {"full": 0.2146, "last20": 0.2171}


def test_runs_are_deterministic_and_differ_by_seed() -> None:
    one = thesis.run_once("composite_opponent", seed=1, run=0)
    assert one == thesis.run_once("composite_opponent", seed=1, run=0)
    assert one != thesis.run_once("composite_opponent", seed=2, run=0)
    assert len(one["probs"]) == len(one["results"]) == thesis.GAMES
    assert set(one["results"]) <= {0.0, 1.0}


def test_twenty_runs_print_the_table_in_under_a_minute(capsys: pytest.CaptureFixture[str]) -> None:
    start = time.perf_counter()
    assert main(["simulate", "--thesis", "--runs", "20"]) == 0
    assert time.perf_counter() - start < 60
    out = capsys.readouterr().out
    assert "| individual_sequential |" in out and "21.46%" in out
    assert "The thesis' figures match the" in out
    assert "Top player's rating" in out


@pytest.mark.parametrize(
    "args",
    [
        ["--thesis", "--players", "10"],
        ["--thesis", "--matches", "10"],
        ["--thesis", "--param", "tau=0.3"],
        ["--thesis", "--runs", "0"],
        ["--runs", "3"],
    ],
)
def test_bad_thesis_arguments_exit_2_before_any_work(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", *args])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "error:" in captured.err
