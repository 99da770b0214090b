"""`python -m ratings.engine rate FILE.csv`: CSV of each player's state after their last match."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from ratings.engine.types import EngineError
from ratings.lab.cli import SUBCOMMANDS, build_parser, main, parse_param

ROOT = Path(__file__).resolve().parents[3]
BWF = ROOT / "tests" / "data" / "bwf_mens_singles_2018_2021.csv"
CSGO = ROOT / "tests" / "data" / "csgo_5v5_2022.csv"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ratings.engine", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_rate_bwf_file() -> None:
    done = run("rate", str(BWF.relative_to(ROOT)))
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert rows[0] == ["player", "rating", "rd", "volatility", "matches"]
    body = rows[1:]
    players = [r[0] for r in body]
    assert players == sorted(players)
    with open(BWF, encoding="utf-8", newline="") as f:
        distinct = {name for row in list(csv.reader(f))[1:] for name in (row[1], row[2])}
    assert len(body) == len(distinct)
    # Full precision: repr of floats reads back exactly.
    for _, rating, rd, vol, matches in body:
        assert repr(float(rating)) == rating and repr(float(rd)) == rd and repr(float(vol)) == vol
        assert 2000 <= float(rating) <= 9000 and 0 < float(rd) <= 500 and int(matches) >= 1
    assert sum(int(r[4]) for r in body) == 2 * 3691


def test_rate_csgo_with_method_and_params(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "rate",
            str(CSGO),
            "--format",
            "generic",
            "--points-per-game",
            "16",
            "--method",
            "performance_weighted",
            "--param",
            "stat_weights=kills:1,deaths:-1",
            "--param",
            "delta_max=40",
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert len(out) == 1 + 121


def test_rate_with_season_starts_grows_the_rds_of_those_who_cross_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """RATINGS.md §3 step 1: `rate` has no seasons unless given; given, RDs grow."""
    assert main(["rate", str(BWF)]) == 0
    plain = capsys.readouterr().out
    starts = ",".join(f"{year}-{month:02d}-01" for year in range(2018, 2022) for month in (1, 7))
    args = ["--param", f"season_starts={starts}"]
    assert main(["rate", str(BWF), *args]) == 0
    assert capsys.readouterr().out == plain  # season_start_periods 0: nothing changes
    assert main(["rate", str(BWF), *args, "--param", "season_start_periods=13"]) == 0
    raised = capsys.readouterr().out
    rd = {row[0]: float(row[2]) for row in csv.reader(io.StringIO(plain)) if row[0] != "player"}
    rd_raised = {
        row[0]: float(row[2]) for row in csv.reader(io.StringIO(raised)) if row[0] != "player"
    }
    assert rd.keys() == rd_raised.keys()
    assert sum(rd_raised.values()) > sum(rd.values())
    assert sum(rd_raised[p] > rd[p] for p in rd) > len(rd) // 4


def test_bad_param_exits_2_with_a_message() -> None:
    done = run("rate", str(BWF), "--param", "tau=fast")
    assert done.returncode == 2
    assert "--param tau='fast'" in done.stderr
    done = run("rate", str(BWF), "--param", "speed=3")
    assert done.returncode == 2
    assert "unknown parameter" in done.stderr


@pytest.mark.parametrize("module", ["ratings.engine", "ratings.lab"])
def test_usage_names_the_command_as_it_was_run(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, "backtest", str(BWF), "--param", "season_start_periods=-1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"usage: python -m {module} ")
    assert f"python -m {module}: error: season_start_periods" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--param", "tau=-1"],
        ["--param", "lookback_days=9.5"],
        ["--param", "noequals"],
        ["--format", "generic"],
        ["--method", "elo"],
    ],
)
def test_bad_arguments_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["rate", str(BWF), *args])
    assert exit_.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_file_problems_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "played_on,side_a,side_b,score,stats\n2024-01-01,A,B,21-20 21-5,\n", encoding="utf-8"
    )
    assert main(["rate", str(bad)]) == 1
    assert "line 2: Game 1: 21-20" in capsys.readouterr().err
    assert main(["rate", str(tmp_path / "missing.csv")]) == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("tau=0.4", ("tau", 0.4)),
        ("lookback_days=60", ("lookback_days", 60)),
        ("team_method=individual", ("team_method", "individual")),
        ("g1_boost=false", ("g1_boost", False)),
        ("delta_max=none", ("delta_max", None)),
        ("delta_max=25", ("delta_max", 25.0)),
        ("stat_weights=kills:1,deaths:-1", ("stat_weights", {"kills": 1.0, "deaths": -1.0})),
        ('stat_weights={"adr": 0.1}', ("stat_weights", {"adr": 0.1})),
        ("season_start_periods=4", ("season_start_periods", 4)),
        (
            "season_starts=2024-04-01, 2024-01-01",
            ("season_starts", (date(2024, 1, 1), date(2024, 4, 1))),
        ),
    ],
)
def test_parse_param(text: str, value: tuple) -> None:
    assert parse_param(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "g1_boost=maybe",
        "stat_weights=kills",
        "stat_weights={bad",
        "tau=",
        "season_starts=2024-13-01",
        "season_start_periods=2.5",
    ],
)
def test_parse_param_errors(text: str) -> None:
    with pytest.raises(EngineError):
        parse_param(text)


def test_subcommands_are_registered() -> None:
    assert SUBCOMMANDS[0].__name__ == "add_rate"
    parser = build_parser()
    args = parser.parse_args(["rate", "x.csv", "--param", "tau=0.3"])
    assert args.command == "rate" and args.param == ["tau=0.3"]


# -- generic format: tennis best-of-3 and best-of-5 in one file -------------------------

TENNIS = ROOT / "tests" / "data" / "tennis_doubles_club_2021_2024.csv"
TENNIS_ARGS = ("--format", "generic", "--best-of", "5", "--points-per-game", "6")


def test_backtest_tennis_doubles_mixed_best_of_3_and_5() -> None:
    lengths = {len(row[3].split()) for row in csv.reader(TENNIS.open(encoding="utf-8"))}
    assert {2, 3, 4, 5} <= lengths  # 2-1 and 2-0 (best of 3) beside 3-1 and 3-2 (best of 5)
    done = run("backtest", str(TENNIS.relative_to(ROOT)), *TENNIS_ARGS, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["matches"] == 238
    assert {"default", "glicko2"} <= set(result["systems"])


def test_tennis_tie_or_game_after_the_match_was_decided_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "tennis.csv"
    bad.write_text(
        "played_on,side_a,side_b,score,stats\n"
        "2024-05-04,Ana;Ben,Cid;Dee,6-4 3-6 7-6,\n"
        "2024-05-04,Ana;Cid,Ben;Dee,6-4 4-6,\n"
        "2024-05-11,Ana;Dee,Ben;Cid,6-3 6-7 7-5 4-6 6-2,\n"
        "2024-05-11,Ana;Ben,Cid;Dee,6-2 6-1 3-6,\n"
        "2024-05-18,Ana;Cid,Ben;Dee,6-2 6-1 6-3 6-4,\n"
        "2024-05-18,Ana;Dee,Ben;Cid,6-4 4-6 6-4 4-6,\n",
        encoding="utf-8",
    )
    done = run("backtest", str(bad), *TENNIS_ARGS)
    assert done.returncode == 1
    errors = done.stderr.strip().splitlines()
    assert errors == [
        "line 3: The match is tied 1-1 in games; "
        "the side that won more games wins, so a match needs a winner",
        "line 5: Game 3: the match was already decided after game 2 (2-0 in games, a best-of-3); "
        "no game may follow (and a best-of-5 match at 2-1 is not finished)",
        "line 6: Game 4: the match was already decided after game 3 (3-0 in games); "
        "no game may follow",
        "line 7: The match is tied 2-2 in games; "
        "the side that won more games wins, so a match needs a winner",
    ]


def test_stat_weight_option_gives_performance_weighted_its_weights(capsys):
    from ratings.lab.cli import main

    csgo = str(Path(__file__).resolve().parents[2] / "data" / "csgo_5v5_2022.csv")
    common = ["rate", csgo, "--format", "generic", "--points-per-game", "16"]
    common += ["--method", "performance_weighted"]
    assert main([*common, "--stat-weight", "kills=1", "--stat-weight", "adr=0.01"]) == 0
    by_option = capsys.readouterr().out
    assert main([*common, "--param", "stat_weights=kills:1,adr:0.01"]) == 0
    assert capsys.readouterr().out == by_option
    with pytest.raises(SystemExit) as exc:
        main(common)
    assert exc.value.code == 2
    assert "--stat-weight NAME=WEIGHT" in capsys.readouterr().err
    assert main([*common, "--stat-weight", "headshots=1"]) == 1
    assert "headshots: no match has such a stat" in capsys.readouterr().err


def test_rate_writes_names_a_spreadsheet_cannot_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A player called "=HYPERLINK(…)" comes out as text ('=…), as the site's exports do."""
    history = tmp_path / "formula.csv"
    history.write_text(
        "played_on,side_a,side_b,score,stats\n"
        '2024-01-01,"=HYPERLINK(""http://x"")",@Bob,21-15 21-17,\n',
        encoding="utf-8",
    )
    assert main(["rate", str(history)]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert [r[0] for r in rows[1:]] == ['\'=HYPERLINK("http://x")', "'@Bob"]
