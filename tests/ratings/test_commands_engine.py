"""manage.py backtest / tune / simulate through call_command (no database needed)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest

try:  # These run only where the Django settings import (pytest-django configures them).
    from django.conf import settings

    settings.INSTALLED_APPS  # noqa: B018 - touching it imports the settings
except Exception as exc:  # pragma: no cover - depends on the environment
    pytest.skip(f"Django settings do not import: {exc}", allow_module_level=True)

from django.core.management import call_command
from django.core.management.base import CommandError

DATA = Path(__file__).resolve().parents[1] / "data"
METRICS = ["logloss", "brier", "accuracy", "avg_error", "spearman", "convergence"]


@pytest.fixture
def small_file(tmp_path: Path) -> Path:
    """The first 120 matches of the BWF file."""
    lines = (DATA / "bwf_mens_singles_2018_2021.csv").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "small.csv"
    path.write_text("\n".join(lines[:121]) + "\n", encoding="utf-8")
    return path


def run(*args: str) -> str:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue()


def test_backtest_json(small_file):
    result = json.loads(run("backtest", str(small_file), "--json"))
    assert result["matches"] == 120
    assert result["evaluated"] == 60
    assert list(result["systems"]) == ["default", "glicko2", "elo", "trueskill", "openskill"]
    for scores in result["systems"].values():
        assert list(scores) == METRICS


def test_backtest_table_with_method_and_params(small_file):
    text = run("backtest", str(small_file), "--method", "individual", "--param", "tau=0.4")
    assert "120 matches; metrics over the last 60" in text
    assert "| default |" in text and "| elo |" in text


def test_backtest_generic_format_for_team_games():
    text = run(
        "backtest",
        str(DATA / "csgo_5v5_2022.csv"),
        "--format",
        "generic",
        "--points-per-game",
        "16",
        "--method",
        "performance_weighted",
        "--param",
        "stat_weights=kills:1,deaths:-1",
        "--json",
    )
    assert json.loads(text)["matches"] == 200


@pytest.mark.parametrize(
    "args,message",
    [
        (["--ladder", "nowhere"], "no ladder 'nowhere'"),
        (["FILE", "--ladder", "club"], "give FILE or --ladder SLUG, not both"),
        ([], "give FILE"),
        (["FILE", "--param", "nope=1"], "unknown parameter"),
        (["FILE", "--param", "tau=-1"], "tau must be positive"),
        (["missing.csv"], "cannot read missing.csv"),
    ],
)
@pytest.mark.django_db
def test_backtest_refuses_clearly(small_file, args, message):
    args = [str(small_file) if a == "FILE" else a for a in args]
    with pytest.raises(CommandError, match=message):
        run("backtest", *args)


def test_backtest_reports_bad_lines(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("played_on,side_a,side_b,score,stats\n2024-01-01,A,B,21-25,\n", encoding="utf-8")
    with pytest.raises(CommandError, match="line 2"):
        run("backtest", str(bad))


def test_tune_json(small_file):
    result = json.loads(run("tune", str(small_file), "--budget", "4", "--workers", "1", "--json"))
    assert set(result) == {"params", "floor", "models", "test", "gain"}
    assert list(result["test"]) == [
        "tuned",
        "runner_up",
        "default",
        "glicko2",
        "elo",
        "trueskill",
        "openskill",
    ]
    assert "scale_factor" in result["params"] and "outcome_model" in result["params"]
    assert set(result["models"]) == {"margin_information", "score"}


def test_tune_table(small_file):
    text = run("tune", str(small_file), "--budget", "4", "--workers", "1")
    assert "Tuned on the first 60 of 120 matches" in text
    assert "| tuned |" in text
    assert "Ladder settings (paste" in text and "\noutcome_model: " in text


CSGO = ["--format", "generic", "--points-per-game", "16", "--method", "performance_weighted"]


def test_backtest_stat_weights_option():
    path = str(DATA / "csgo_5v5_2022.csv")
    by_option = run(
        "backtest", path, *CSGO, "--stat-weight", "kills=1", "--stat-weight", "deaths=-1", "--json"
    )
    by_param = run("backtest", path, *CSGO, "--param", "stat_weights=kills:1,deaths:-1", "--json")
    assert json.loads(by_option) == json.loads(by_param)


@pytest.mark.parametrize(
    "args,message",
    [
        ([], "performance_weighted needs stat weights: give each stat's weight with --stat-weight"),
        (["--stat-weight", "kills"], "write it as NAME=WEIGHT"),
        (["--stat-weight", "kills=lots"], "the weight must be a number"),
        (["--stat-weight", "kills=nan"], "finite"),
        (["--stat-weight", "kils=1"], "kils: no match has such a stat"),
    ],
)
def test_backtest_stat_weights_refused_clearly(args, message):
    with pytest.raises(CommandError, match=message):
        run("backtest", str(DATA / "csgo_5v5_2022.csv"), *CSGO, *args)


def test_tune_apply_needs_a_ladder(small_file):
    with pytest.raises(CommandError, match="--apply"):
        run("tune", str(small_file), "--apply")
    with pytest.raises(CommandError, match="--budget"):
        run("tune", str(small_file), "--budget", "0")


def test_simulate_json_and_table():
    result = json.loads(
        run("simulate", "--players", "8", "--matches", "40", "--seed", "3", "--json")
    )
    assert result["players"] == 8 and result["seed"] == 3
    assert "composite_team" in result["doubles"]
    text = run("simulate", "--players", "8", "--matches", "40")
    assert "### singles" in text and "### doubles" in text


def test_simulate_thesis_through_manage_py():
    result = json.loads(run("simulate", "--thesis", "--runs", "2", "--json"))
    assert result["protocol"]["runs"] == 2 and result["protocol"]["team_size"] == 5
    assert set(result["methods"]["composite_team"]["full"]) == {"mean", "sd"}
    with pytest.raises(CommandError, match="--thesis runs the thesis' protocol"):
        run("simulate", "--thesis", "--players", "8")
