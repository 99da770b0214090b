"""The synthetic mode: badminton rules, determinism, and ratings that find the truth."""

from __future__ import annotations

import json
import random

from ratings.engine import simulate as sim
from ratings.engine.formats import get_format


def test_games_follow_badminton_rules():
    fmt = get_format("badminton_21")
    rng = random.Random(5)
    for p in (0.5, 0.3, 0.7, 0.52):
        for _ in range(200):
            fmt.validate_games(sim.play_match(rng, p))  # raises on any invalid score


class _Alternating:
    """A stand-in for random.Random: side A, side B, side A, ... wins the rallies."""

    def __init__(self) -> None:
        self.a_next = True

    def random(self) -> float:
        self.a_next = not self.a_next
        return 0.0 if not self.a_next else 0.99


def test_deuce_goes_on_to_the_cap():
    # Never two points clear: the game runs to 29-all and 30-29 wins it.
    assert sim.play_game(_Alternating(), 0.5) == (30, 29)


def test_a_game_ends_at_21_with_a_two_point_lead():
    rng = random.Random(11)
    games = [sim.play_game(rng, 0.5) for _ in range(2000)]
    assert all(max(g) >= 21 for g in games)
    assert all(max(g) - min(g) >= 2 or max(g) == 30 for g in games)
    assert any(g in ((21, 19), (19, 21)) for g in games)


def test_the_stronger_side_wins_more():
    rng = random.Random(2)
    wins = sum(
        1
        for _ in range(400)
        if sum(a > b for a, b in sim.play_match(rng, sim._logistic(sim.RALLY_SLOPE * 1.0))) >= 2
    )
    assert 0.65 < wins / 400 < 0.85  # about three in four for one standard deviation


def test_world_is_deterministic_for_a_seed():
    one = sim.make_world(12, 50, 2, seed=4)
    two = sim.make_world(12, 50, 2, seed=4)
    other = sim.make_world(12, 50, 2, seed=5)
    assert one == two
    assert one != other


def test_doubles_have_random_partners_and_rally_stats():
    world = sim.make_world(10, 40, 2, seed=1)
    partners = {frozenset(m.side_a) for m in world.matches}
    assert len(partners) > 10
    for m in world.matches:
        assert len(set(m.side_a + m.side_b)) == 4
        credited = sum(m.stats[p][sim.STAT] for p in m.side_a)
        assert credited == sum(a for a, _ in m.games)


def test_dates_never_go_backwards():
    world = sim.make_world(10, 100, 1, seed=1)
    days = [m.played_on for m in world.matches]
    assert days == sorted(days)


def test_simulate_is_deterministic_and_shaped():
    kwargs = dict(players=12, matches=120, seed=7, peers=["elo"])
    one = sim.simulate(**kwargs)
    assert one == sim.simulate(**kwargs)
    assert {"players", "matches", "seed", "singles", "doubles"} <= set(one)
    labels = [label for label, _ in sim.METHODS]
    assert list(one["doubles"]) == [*labels, "elo"]
    for scores in one["singles"].values():
        assert set(scores) == {"spearman_true", "convergence", "logloss"}
    json.dumps(one)
    assert "### doubles" in sim.format_simulation(one)


def test_enough_matches_find_the_true_order():
    result = sim.simulate(players=30, matches=1500, seed=3, modes=["singles"], peers=[])
    for label, scores in result["singles"].items():
        assert scores["spearman_true"] > 0.8, label


def test_doubles_find_the_true_order():
    result = sim.simulate(players=40, matches=2000, seed=3, modes=["doubles"], peers=[])
    for label, scores in result["doubles"].items():
        assert scores["spearman_true"] > 0.8, label


def test_cli_simulate(capsys):
    from ratings.engine.__main__ import main

    assert main(["simulate", "--players", "8", "--matches", "30", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matches"] == 30
    assert main(["simulate", "--players", "8", "--matches", "30"]) == 0
    assert "| composite_team |" in capsys.readouterr().out
