"""The §7 evaluation: metrics against hand-computed values, the protocol, the report shape."""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path

import pytest

from ratings.engine.formats import get_format
from ratings.engine.types import MatchResult, Params
from ratings.lab import evaluate
from ratings.lab.evaluate import (
    METRICS,
    SYSTEMS,
    accuracy,
    average_ranks,
    avg_error,
    backtest,
    brier,
    convergence,
    log_loss,
    matches_to_converge,
    metrics,
    run_online,
    spearman,
)
from ratings.lab.importfmt import parse_matches
from ratings.lab.peers import Default, Elo

DATA = Path(__file__).resolve().parents[2] / "data"
BADMINTON = get_format("badminton_21")


def singles(
    day: int, a: str, b: str, a_wins: bool = True, match_id: int | None = None
) -> MatchResult:
    games = ((21, 15), (21, 17)) if a_wins else ((15, 21), (17, 21))
    return MatchResult(date(2024, 1, day), (a,), (b,), games, id=match_id or day)


# ----------------------------------------------------------------- metrics


def test_log_loss_by_hand():
    # -(ln 0.8 + ln 0.4 + ln 0.5) / 3
    assert log_loss([0.8, 0.4, 0.5], [1, 1, 0]) == pytest.approx(0.610860, abs=1e-6)


def test_log_loss_clips_certain_misses():
    assert log_loss([1.0], [0]) == pytest.approx(-math.log(1e-15))
    assert log_loss([0.0], [0]) == pytest.approx(0.0, abs=1e-14)


def test_brier_by_hand():
    assert brier([0.8, 0.4, 0.5], [1, 1, 0]) == pytest.approx((0.04 + 0.36 + 0.25) / 3)


def test_accuracy_counts_an_even_prediction_as_half():
    # right, wrong, undecided
    assert accuracy([0.8, 0.4, 0.5], [1, 1, 0]) == pytest.approx(0.5)
    assert accuracy([0.3, 0.9], [0, 1]) == 1.0


def test_avg_error_by_hand():
    assert avg_error([0.8, 0.4, 0.5], [1, 1, 0]) == pytest.approx((0.2 + 0.6 + 0.5) / 3)


def test_average_ranks_share_ties():
    assert average_ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]


def test_spearman_by_hand():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 45]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ranks x (1, 2.5, 2.5, 4) against y (1, 2, 3, 4): 4.5 / sqrt(4.5 * 5)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / math.sqrt(22.5))


def test_spearman_undefined_without_variation_or_data():
    assert spearman([1], [2]) is None
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_matches_to_converge_by_hand():
    # final 1575: 1600, 1540, 1580 are within 50, the start (1500) is not
    assert matches_to_converge([1500, 1600, 1540, 1580, 1575], 50) == 1
    # 1700 after the first match is 190 away from 1510
    assert matches_to_converge([1500, 1700, 1520, 1510], 50) == 2
    # already within the band before playing
    assert matches_to_converge([1500, 1510, 1490], 50) == 0


def test_convergence_is_the_median_over_players_with_ten_matches():
    steady = [1500.0] * 11  # 10 matches, converged from the start: 0
    late = [1500.0] * 10 + [1700.0]  # 10 matches, only the last counts: 10
    late2 = [1500.0] * 12 + [1700.0]  # 12 matches: 12
    short = [1500.0, 1900.0]  # 1 match: ignored
    assert convergence([steady, late, late2, short], 50) == 10
    assert convergence([short], 50) is None


# ------------------------------------------------------------ the protocol


def tiny_history() -> list[MatchResult]:
    return [
        singles(1, "A", "B"),
        singles(2, "C", "D"),
        singles(3, "A", "C"),
        singles(4, "D", "A", a_wins=False),
    ]


def round_robin(n: int, players: int = 7) -> list[MatchResult]:
    """n matches cycling through every pairing of ``players`` players, three a day."""
    history = []
    for i in range(n):
        a, offset = i % players, 1 + (i // players) % (players - 1)
        history.append(
            singles(
                1 + i // 3, f"P{a}", f"P{(a + offset) % players}", a_wins=i % 3 != 0, match_id=i + 1
            )
        )
    return history


def test_elo_trace_by_hand():
    trace = run_online(tiny_history(), Elo())
    # Everyone new, then A (1516) meets C (1516): even; D (1484) meets A (1532).
    p_d = 1 / (1 + 10 ** ((1532 - 1484) / 400))
    assert trace.probs == pytest.approx([0.5, 0.5, 0.5, p_d])
    assert trace.outcomes == [1.0, 1.0, 1.0, 0.0]
    assert trace.trajectories["A"][0] == 1500
    assert trace.trajectories["A"][1:3] == pytest.approx([1516, 1532])
    assert len(trace.trajectories["A"]) == 4  # start + 3 matches
    scores = metrics(trace)
    # the last half: matches 3 and 4
    assert scores["logloss"] == pytest.approx((math.log(2) - math.log(1 - p_d)) / 2)
    assert scores["brier"] == pytest.approx((0.25 + p_d**2) / 2)
    assert scores["accuracy"] == pytest.approx((0.5 + 1.0) / 2)
    assert scores["avg_error"] == pytest.approx((0.5 + p_d) / 2)
    assert scores["spearman"] is None  # nobody has 10 matches
    assert scores["convergence"] is None


def test_predictions_come_before_the_match_is_rated():
    # The engine predicts the first meeting of new players as exactly even.
    trace = run_online([singles(1, "A", "B")], Default(Params(), BADMINTON))
    assert trace.probs == [0.5]
    assert trace.trajectories["A"][0] == Params().initial_rating
    assert trace.trajectories["A"][1] > Params().initial_rating


def test_metrics_need_warmup_split_of_the_last_half():
    # 5 matches: the first 2 warm up, the last 3 count.
    assert evaluate.warmup_size(5) == 2
    history = [singles(d, "A", "B", a_wins=d % 2 == 0) for d in range(1, 6)]
    result = backtest(history, Params(), BADMINTON, systems=["elo"])
    assert result["matches"] == 5
    assert result["evaluated"] == 3


def test_backtest_sorts_into_time_order():
    history = tiny_history()
    shuffled = [history[2], history[0], history[3], history[1]]
    one = backtest(history, Params(), BADMINTON, systems=["elo", "default"])
    two = backtest(shuffled, Params(), BADMINTON, systems=["elo", "default"])
    assert one == two


def test_backtest_json_shape_exactly():
    result = backtest(round_robin(60), Params(), BADMINTON)
    assert set(result) == {"matches", "evaluated", "systems"}
    assert list(result["systems"]) == ["default", "glicko2", "elo", "trueskill", "openskill"]
    assert list(SYSTEMS) == list(result["systems"])
    for scores in result["systems"].values():
        assert list(scores) == list(METRICS)
    json.dumps(result)  # plain JSON values only


def test_unavailable_peer_reports_nulls(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "trueskill", None)  # import fails as if not installed
    result = backtest(tiny_history(), Params(), BADMINTON, systems=["trueskill", "elo"])
    assert result["systems"]["trueskill"] == dict.fromkeys(METRICS)
    assert result["systems"]["elo"]["logloss"] is not None
    assert "trueskill" in evaluate.unavailable_reasons()
    assert "unavailable" in evaluate.format_table(result["systems"])


def test_format_backtest_is_a_markdown_table():
    text = evaluate.format_backtest(backtest(tiny_history(), Params(), BADMINTON, systems=["elo"]))
    assert "4 matches; metrics over the last 2" in text
    assert "| elo | 0." in text


def test_progress_is_reported_per_match():
    seen: list[int] = []
    run_online(tiny_history(), Elo(), progress=seen.append)
    assert sum(seen) == 4


# ------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def bwf() -> list[MatchResult]:
    text = (DATA / "bwf_mens_singles_2018_2021.csv").read_text(encoding="utf-8")
    return parse_matches(text, BADMINTON)


def test_peers_land_near_the_published_figures(bwf):
    """tests/data/README.md: Glicko-2 0.612, TrueSkill 0.613, Elo 0.628, OpenSkill 0.644."""
    result = backtest(
        bwf, Params(), BADMINTON, systems=["glicko2", "elo", "trueskill", "openskill"]
    )
    published = {"glicko2": 0.612, "trueskill": 0.613, "elo": 0.628, "openskill": 0.644}
    assert result["matches"] == 3691
    for name, figure in published.items():
        logloss = result["systems"][name]["logloss"]
        if logloss is None:
            continue  # package not installed
        assert logloss == pytest.approx(figure, abs=0.005), name


# ------------------------------------------------------------------ command line


def test_cli_backtest_json(tmp_path, capsys):
    from ratings.lab.cli import main

    lines = (DATA / "bwf_mens_singles_2018_2021.csv").read_text(encoding="utf-8").splitlines()
    small = tmp_path / "small.csv"
    small.write_text("\n".join(lines[:81]) + "\n", encoding="utf-8")
    assert main(["backtest", str(small), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["matches"], result["evaluated"]) == (80, 40)
    assert list(result["systems"]) == list(SYSTEMS)
    assert main(["backtest", str(small)]) == 0
    assert "| default |" in capsys.readouterr().out
