"""The synthetic mode: badminton rules, determinism, and ratings that find the truth."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

import pytest

from ratings.engine.formats import get_format
from ratings.lab import simulate as sim


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
    from ratings.lab.cli import main

    assert main(["simulate", "--players", "8", "--matches", "30", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matches"] == 30
    assert main(["simulate", "--players", "8", "--matches", "30"]) == 0
    assert "| composite_team |" in capsys.readouterr().out


# -- the club season ---------------------------------------------------------------


def test_games_follow_every_format():
    rng = random.Random(3)
    for fmt in (
        get_format("badminton_15"),
        get_format("badminton_11"),
        get_format("generic", 3, 16),
    ):
        for p in (0.3, 0.5, 0.7):
            for _ in range(100):
                fmt.validate_games(sim.play_match(rng, p, fmt))
    # The generic format's game is a race: the first to 16 rounds wins it.
    games = [sim.play_match(rng, 0.5, get_format("generic", 1, 16))[0] for _ in range(200)]
    assert all(max(g) == 16 and min(g) < 16 for g in games)


def test_win_probabilities_are_exact():
    fmt = get_format("badminton_21")
    assert sim.game_win_probability(0.5, fmt) == pytest.approx(0.5)
    assert sim.match_win_probability(0.5, fmt) == pytest.approx(0.5)
    p = sim.match_win_probability(0.55, fmt)
    assert p + sim.match_win_probability(0.45, fmt) == pytest.approx(1.0)
    rng = random.Random(8)
    played = sum(sum(a > b for a, b in sim.play_match(rng, 0.55)) == 2 for _ in range(4000))
    assert played / 4000 == pytest.approx(p, abs=0.025)
    # A race to 1 is a single rally.
    assert sim.game_win_probability(0.3, get_format("generic", 1, 1)) == pytest.approx(0.3)


def test_level_slope_puts_true_levels_on_the_rating_scale():
    for fmt in (get_format("badminton_21"), get_format("generic", 1, 16)):
        slope = sim.level_slope(fmt)
        won = sim.match_win_probability(sim._logistic(slope * sim.CALIBRATION_GAP), fmt)
        # RATINGS.md §3's expected score for 200 points at scale_factor 400.
        assert won == pytest.approx(1 / (1 + 10 ** (-200 / 400)), abs=1e-6)
    # Longer matches tell players apart with a smaller edge per rally.
    assert sim.level_slope(get_format("badminton_21")) < sim.level_slope(
        get_format("generic", 1, 16)
    )


def test_spread_levels():
    levels = sim.spread_levels(18, centre=4.5, spread=1.1, seed=2)
    assert len(levels) == 18 and list(levels)[:2] == ["P01", "P02"]
    assert min(levels.values()) == pytest.approx(3.4) and max(levels.values()) == pytest.approx(5.6)
    assert levels != sim.spread_levels(18, centre=4.5, spread=1.1, seed=3)  # dealt differently
    assert sorted(levels.values()) == sorted(sim.spread_levels(18, 4.5, 1.1, seed=3).values())


def test_club_season_plays_on_club_nights_near_ones_level():
    levels = sim.spread_levels(18, seed=1)
    end = date(2025, 6, 26)  # a Thursday
    world = sim.club_season(levels, end=end, weeks=12, nights=(1, 3), seed=1)
    assert world == sim.club_season(levels, end=end, weeks=12, nights=(1, 3), seed=1)
    days = [m.played_on for m in world.matches]
    assert days == sorted(days) and {d.weekday() for d in days} == {1, 3}
    assert min(days) > end - timedelta(weeks=12) and max(days) == end
    assert [m.id for m in world.matches] == list(range(1, len(world.matches) + 1))
    gaps = [abs(levels[m.side_a[0]] - levels[m.side_b[0]]) for m in world.matches]
    assert sum(gaps) / len(gaps) < 0.5  # neighbours in level, mostly
    assert max(gaps) > 0.3  # but not always the same neighbour
    for day in set(days):
        pairs = [frozenset(m.side_a + m.side_b) for m in world.matches if m.played_on == day]
        assert len(set(pairs)) == len(pairs)  # nobody meets the same opponent twice a night
    # Everyone plays; the better player wins more often.
    assert {p for m in world.matches for p in m.side_a + m.side_b} == set(levels)
    favourite = [
        (levels[m.side_a[0]] > levels[m.side_b[0]]) == (m.games[-1][0] > m.games[-1][1])
        for m in world.matches
        if abs(levels[m.side_a[0]] - levels[m.side_b[0]]) >= 0.2
    ]
    assert 0.65 < sum(favourite) / len(favourite) < 0.98


def test_club_nights_for_teams():
    levels = sim.spread_levels(12, seed=4)
    rng = random.Random(1)
    lineups = sim.club_night(rng, sorted(levels), levels, team_size=2, rounds=3)
    assert len(lineups) == 3 * 3
    for side_a, side_b in lineups:
        assert len(side_a) == len(side_b) == 2 and len(set(side_a + side_b)) == 4
    partners = {frozenset(side) for lineup in lineups for side in lineup}
    assert len(partners) > 9  # partners change from round to round
    # Eleven present for 5v5: one sits out each map, never the same one twice running.
    eleven = sorted(levels)[:11]
    maps = sim.club_night(rng, eleven, levels, team_size=5, rounds=3)
    benched = [set(eleven) - set(a + b) for a, b in maps]
    assert all(len(b) == 1 for b in benched) and benched[0] != benched[1] != benched[2]
    # Too few for a match: nothing.
    assert sim.club_night(rng, eleven[:9], levels, team_size=5) == []
