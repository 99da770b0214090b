"""Peer systems: sensible probabilities and known update numbers."""

from __future__ import annotations

import functools
import math
import sys
from datetime import date, timedelta

import pytest

from ratings.engine.formats import get_format
from ratings.engine.types import MatchResult, Params
from ratings.lab import peers
from ratings.lab.peers import (
    Default,
    Elo,
    Glicko2,
    OpenSkill,
    PeerUnavailable,
    TrueSkill,
    actual_result,
    gaussian_band,
    make_peers,
)

# RATINGS.md's worked examples (§3, §5) assume §2's scale_factor 400 and margin_clamp 0.25;
# the engine's defaults are measured (docs/RATINGS_EVALUATION.md "Defaults").
SpecParams = functools.partial(Params, scale_factor=400.0, margin_clamp=0.25)

DAY = date(2024, 3, 1)


def match(a, b, games=((21, 10), (21, 12)), on=DAY) -> MatchResult:
    return MatchResult(on, tuple(a), tuple(b), games)


def test_actual_result_counts_games_not_points():
    assert actual_result(match("A", "B", ((21, 19), (10, 21), (21, 19)))) == 1.0
    assert actual_result(match("A", "B", ((19, 21), (21, 5), (19, 21)))) == 0.0
    assert actual_result(match("A", "B", ((21, 19), (19, 21)))) == 0.5


# ------------------------------------------------------------------------ Elo


def test_elo_even_players_are_even():
    assert Elo().predict(["A"], ["B"], DAY) == 0.5


def test_elo_known_update_numbers():
    elo = Elo()
    elo.update(match("A", "B"))
    assert elo.rating("A") == 1516 and elo.rating("B") == 1484
    # 32 points apart: E = 1 / (1 + 10^(-32/400)) = 0.545922
    assert elo.predict(["A"], ["B"], DAY) == pytest.approx(0.545922, abs=1e-6)
    elo.update(match("A", "B"))
    assert elo.rating("A") == pytest.approx(1516 + 32 * (1 - 0.545922), abs=1e-4)


def test_elo_teams_play_as_their_mean_and_share_the_change():
    elo = Elo()
    elo.ratings.update({"A": 1600, "B": 1400, "C": 1500, "D": 1500})
    assert elo.predict(["A", "B"], ["C", "D"], DAY) == 0.5
    elo.update(match("AB", "CD"))
    assert [elo.rating(p) for p in "ABCD"] == [1616, 1416, 1484, 1484]


# ------------------------------------------------------------------- Glicko-2


def test_glicko2_first_win_between_new_players():
    """The textbook numbers: 1500/350 beats 1500/350 -> 1662.31 / 290.32."""
    g = Glicko2()
    assert g.predict(["A"], ["B"], DAY) == 0.5
    g.update(match("A", "B"))
    assert g.rating("A") == pytest.approx(1662.31, abs=0.01)
    assert g.rating("B") == pytest.approx(1337.69, abs=0.01)
    assert g.states["A"][1] * peers.GLICKO2_SCALE == pytest.approx(290.32, abs=0.01)
    assert 0.5 < g.predict(["A"], ["B"], DAY) < 1.0


def test_glicko2_ignores_the_margin():
    close, rout = Glicko2(), Glicko2()
    close.update(match("A", "B", ((22, 20), (21, 19))))
    rout.update(match("A", "B", ((21, 0), (21, 0))))
    assert close.rating("A") == rout.rating("A")


def test_glicko2_rd_grows_with_inactivity():
    g = Glicko2()
    g.update(match("A", "B"))
    later = DAY + timedelta(days=70)
    soon = g.predict(["A"], ["B"], DAY)
    assert 0.5 < g.predict(["A"], ["B"], later) < soon  # more doubt, less confidence


def test_glicko2_teams_meet_a_composite_opponent():
    g = Glicko2()
    g.update(match("AB", "CD"))
    assert g.rating("A") == g.rating("B") > 1500 > g.rating("C") == g.rating("D")


# ------------------------------------------------- TrueSkill and OpenSkill


def test_trueskill_probabilities():
    pytest.importorskip("trueskill")
    ts = TrueSkill()
    assert ts.predict(["A"], ["B"], DAY) == pytest.approx(0.5)
    ts.update(match("A", "B"))
    assert ts.rating("A") > 25 > ts.rating("B")
    assert 0.5 < ts.predict(["A"], ["B"], DAY) < 1
    assert ts.predict(["B"], ["A"], DAY) == pytest.approx(1 - ts.predict(["A"], ["B"], DAY))
    ts.update(match("AC", "BD"))
    assert ts.rating("C") > 25


def test_openskill_probabilities():
    pytest.importorskip("openskill")
    os_ = OpenSkill()
    assert os_.predict(["A"], ["B"], DAY) == pytest.approx(0.5)
    os_.update(match("A", "B"))
    assert os_.rating("A") > 25 > os_.rating("B")
    assert 0.5 < os_.predict(["A"], ["B"], DAY) < 1
    os_.update(match("AC", "BD", ((10, 21), (12, 21))))
    assert os_.rating("D") > 25


def test_missing_packages_make_peers_unavailable(monkeypatch):
    monkeypatch.setitem(sys.modules, "trueskill", None)
    monkeypatch.setitem(sys.modules, "openskill.models", None)
    built = make_peers()
    assert isinstance(built["trueskill"], PeerUnavailable)
    assert "pip install trueskill" in str(built["trueskill"])
    assert isinstance(built["openskill"], PeerUnavailable)
    assert isinstance(built["elo"], Elo)


def test_gaussian_band_matches_50_elo_points_in_probability():
    """50 points at an even match move P as much as the band does on a Gaussian scale."""
    beta = 25 / 6
    band = gaussian_band(beta)
    elo_move = 1 / (1 + 10 ** (-50 / 400)) - 0.5
    gauss_move = 0.5 * math.erfc(-band / (math.sqrt(2) * math.sqrt(2) * beta)) - 0.5
    assert gauss_move == pytest.approx(elo_move, rel=0.01)


# -------------------------------------------------------------- the engine


def test_default_wraps_the_engine():
    engine = Default(
        SpecParams(outcome_model="score"), get_format("generic", best_of=1, points_per_game=21)
    )
    assert engine.predict(["A"], ["B"], DAY) == 0.5
    assert engine.rating("A") == 4500
    engine.update(match("A", "B", ((21, 15),)))
    # RATINGS.md §3 check: two new players, 21-15 single game: ~4599 / ~4401
    assert engine.rating("A") == pytest.approx(4599, abs=1)
    assert engine.rating("B") == pytest.approx(4401, abs=1)
    assert engine.predict(["A"], ["B"], DAY) > 0.5
