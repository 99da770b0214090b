"""RULES.md "Import format": parsing with every error and its line, and writing back."""

from __future__ import annotations

import csv
import io
from datetime import date
from pathlib import Path

import pytest

from ratings.engine.formats import get_format
from ratings.engine.types import EngineError, MatchResult
from ratings.lab.importfmt import ImportFormatError, parse_matches, parse_rows, write_matches

DATA = Path(__file__).resolve().parents[2] / "data"
BADMINTON = get_format("badminton_21")
HEADER = "played_on,side_a,side_b,score,stats\n"


def errors_of(text: str, team_size: int | None = None, fmt=BADMINTON) -> list[tuple[int, str]]:
    with pytest.raises(ImportFormatError) as err:
        parse_matches(text, fmt, team_size)
    return err.value.errors


def test_parses_a_small_file() -> None:
    text = (
        HEADER
        + "2024-03-01,Ann,Bob,21-15 19-21 21-18,\n"
        + '2024-03-01,Ann;Cat,Bob;Dan,21-10 21-12,"{""Ann"": {""kills"": 3}}"\n'
    )
    with pytest.raises(ImportFormatError):  # team sizes differ within the file
        parse_matches(text, BADMINTON)
    (first,) = parse_matches(text.splitlines()[:2], BADMINTON)
    assert first == MatchResult(
        date(2024, 3, 1), ("Ann",), ("Bob",), ((21, 15), (19, 21), (21, 18)), None, id=1, line=2
    )


def test_stats_and_team_size() -> None:
    text = (
        HEADER
        + '2024-03-01,Ann;Cat,Bob;Dan,21-10 21-12,"{""Ann"": {""kills"": 3, ""adr"": 80.5}}"\n'
    )
    (m,) = parse_matches(text, BADMINTON, team_size=2)
    assert m.side_a == ("Ann", "Cat") and m.side_b == ("Bob", "Dan")
    assert m.stats == {"Ann": {"kills": 3.0, "adr": 80.5}}


def test_header_without_stats_column_and_blank_lines_and_bom() -> None:
    text = "\ufeffplayed_on,side_a,side_b,score\n\n2024-03-01,Ann,Bob,21-15 21-15\n\n"
    (m,) = parse_matches(text, BADMINTON)
    assert m.line == 3 and m.stats is None


def test_ids_in_file_order_and_stable_date_sort() -> None:
    text = (
        HEADER
        + "2024-03-02,A,B,21-15 21-15,\n"
        + "2024-03-01,C,D,21-15 21-15,\n"
        + "2024-03-02,E,F,21-15 21-15,\n"
        + "2024-03-01,G,H,21-15 21-15,\n"
    )
    matches = parse_matches(text, BADMINTON)
    assert [(m.side_a[0], m.id, m.line) for m in matches] == [
        ("C", 2, 3),
        ("G", 4, 5),
        ("A", 1, 2),
        ("E", 3, 4),
    ]


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("2024-13-01,Ann,Bob,21-15 21-15,", "not a real date"),
        ("01/03/2024,Ann,Bob,21-15 21-15,", "not a date like"),
        ("2024-03-01,Ann,Bob,21:15 21-15,", "not games like"),
        ("2024-03-01,Ann,Bob,,", "score is empty"),
        ("2024-03-01,Ann,Bob,21-20 21-15,", "Game 1: 21-20 is not a valid badminton game to 21"),
        (
            "2024-03-01,Ann,Bob,21-15 21-15 21-3,",
            "Game 3: the match was already decided after game 2",
        ),
        ("2024-03-01,Ann,Bob,21-15 15-21,", "not finished: 1-1"),
        ("2024-03-01,Ann,Ann,21-15 21-15,", "Ann appears twice in the match"),
        ("2024-03-01,Ann;Cat,Bob,21-15 21-15,", "side A has 2 players but side B has 1"),
        ("2024-03-01,,Bob,21-15 21-15,", "side A has no players"),
        ("2024-03-01,Ann;,Bob,21-15 21-15,", "empty player name"),
        ("2024-03-01,Ann,Bob,21-15 21-15,{not json", "stats are not valid JSON"),
        ('2024-03-01,Ann,Bob,21-15 21-15,"[1, 2]"', "stats must look like"),
        (
            '2024-03-01,Ann,Bob,21-15 21-15,"{""Ann"": {""kills"": ""x""}}"',
            "stats of 'Ann' are not",
        ),
        (
            '2024-03-01,Ann,Bob,21-15 21-15,"{""Zoe"": {""kills"": 1}}"',
            "stats for 'Zoe', who is not in this match",
        ),
        ("2024-03-01,Ann,Bob", "expected 5 columns"),
    ],
)
def test_each_error_with_its_line(row: str, problem: str) -> None:
    text = HEADER + "2024-03-01,X,Y,21-15 21-15,\n" + row + "\n"
    errors = errors_of(text)
    assert [line for line, _ in errors] == [3]
    assert problem in errors[0][1]


def test_bad_header() -> None:
    assert errors_of("date,a,b,score,stats\n2024-03-01,Ann,Bob,21-15 21-15,\n") == [
        (1, "the header must be played_on,side_a,side_b,score,stats, not date,a,b,score,stats")
    ]
    assert errors_of("")[0][0] == 1


def test_team_size_given() -> None:
    text = HEADER + "2024-03-01,Ann,Bob,21-15 21-15,\n2024-03-01,Ann;Cat,Bob;Dan,21-15 21-15,\n"
    errors = errors_of(text, team_size=2)
    assert errors == [(2, "sides have 1 players; this ladder plays 2 per side")]
    with pytest.raises(EngineError):
        parse_matches(text, BADMINTON, team_size=6)


def test_team_size_inconsistent_with_first_row() -> None:
    text = HEADER + "2024-03-01,Ann,Bob,21-15 21-15,\n2024-03-01,Ann;Cat,Bob;Dan,21-15 21-15,\n"
    ((line, problem),) = errors_of(text)
    assert line == 3
    assert "first match (line 2) has 1" in problem


def test_all_errors_collected_and_listed_by_line() -> None:
    text = (
        HEADER
        + "2024-03-01,Ann,Bob,21-15 21-15,\n"
        + "2024-02-30,Ann,Bob,21-20 21-15,\n"  # two problems on one line
        + "2024-03-01,Ann,Bob,21-15 21-15,\n"
        + "2024-03-01,Ann,Ann,21-15 21-15,\n"
    )
    with pytest.raises(ImportFormatError) as err:
        parse_matches(text, BADMINTON)
    assert [line for line, _ in err.value.errors] == [3, 3, 5]
    lines = str(err.value).splitlines()
    assert lines[0] == "line 3: played_on '2024-02-30' is not a real date"
    assert lines[1].startswith("line 3: Game 1: 21-20")
    assert lines[2] == "line 5: Ann appears twice in the match"


def test_quoted_field_spanning_lines_keeps_line_numbers() -> None:
    text = (
        HEADER
        + '2024-03-01,Ann,Bob,21-15 21-15,"{""Ann"":\n {""k"": 1}}"\n2024-03-01,Ann,Ann,21-15 21-15,\n'
    )
    ((line, _),) = errors_of(text)
    assert line == 4


def test_round_trip() -> None:
    matches = [
        MatchResult(
            date(2024, 3, 1), ("Ann",), ("Bob",), ((21, 15), (19, 21), (21, 18)), None, id=1
        ),
        MatchResult(date(2024, 3, 1), ("Cat",), ("Dan, Jr.",), ((30, 29), (21, 0)), None, id=2),
        MatchResult(
            date(2024, 3, 5),
            ("Éva",),
            ("Bob",),
            ((15, 21), (8, 21)),
            {"Éva": {"smashes": 3.0}},
            id=3,
        ),
    ]
    text = write_matches(matches)
    assert text.splitlines()[0] == HEADER.strip()
    parsed = parse_matches(text, BADMINTON)
    assert [(m.played_on, m.side_a, m.side_b, m.games, m.stats, m.id) for m in parsed] == [
        (m.played_on, m.side_a, m.side_b, m.games, m.stats, m.id) for m in matches
    ]
    assert write_matches(parsed) == text


def test_write_refuses_unwritable_names() -> None:
    with pytest.raises(EngineError):
        write_matches([MatchResult(date(2024, 3, 1), ("A;B",), ("C",), ((21, 0), (21, 0)))])


def test_real_bwf_file() -> None:
    text = (DATA / "bwf_mens_singles_2018_2021.csv").read_text(encoding="utf-8")
    matches = parse_matches(text, BADMINTON, team_size=1)
    assert len(matches) == 3691
    assert [m.played_on for m in matches] == sorted(m.played_on for m in matches)
    assert sorted(m.id for m in matches) == list(range(1, 3692))
    again = parse_matches(write_matches(sorted(matches, key=lambda m: m.id or 0)), BADMINTON)
    assert [(m.played_on, m.side_a, m.games) for m in again] == [
        (m.played_on, m.side_a, m.games) for m in matches
    ]


def test_real_csgo_file() -> None:
    fmt = get_format("generic", best_of=1, points_per_game=16)
    with open(DATA / "csgo_5v5_2022.csv", encoding="utf-8", newline="") as f:
        matches = parse_matches(f, fmt, team_size=5)
    assert len(matches) == 200
    assert all(len(m.side_a) == len(m.side_b) == 5 for m in matches)
    assert all(m.stats and set(m.stats) == set(m.side_a + m.side_b) for m in matches)
    assert set(matches[0].stats["JDC"]) == {"adr", "deaths", "kills"}


# -- the fast path: each distinct cell checked once, plain rows for `rate` -------------

REAL_FILES = [
    ("bwf_mens_singles_2018_2021.csv", BADMINTON),
    ("csgo_5v5_2022.csv", get_format("generic", None, 16)),
    ("tennis_doubles_club_2021_2024.csv", get_format("generic", 5, 6)),
]


@pytest.mark.parametrize("name,fmt", REAL_FILES)
def test_the_cached_path_reads_real_files_as_the_slow_path(name: str, fmt) -> None:  # type: ignore[no-untyped-def]
    text = (DATA / name).read_text(encoding="utf-8")
    slow = parse_matches(text, fmt, cached=False)
    assert parse_matches(text, fmt) == slow
    assert parse_rows(text, fmt) == [
        (m.played_on, m.side_a, m.side_b, m.games, m.id, m.stats) for m in slow
    ]


def test_the_cached_path_reports_every_problem_as_the_slow_path() -> None:
    # Repeated bad cells (the cache must give their problems again, with each row's line),
    # good cells after bad ones, a repeated player, sizes that change, NUL, blank rows,
    # stats, and a date before the row above.
    rows = [
        "2024-03-01,Ann,Bob,21-15 21-18,",
        "2024-03-01,Ann,Bob,21-15 21-18,",
        "2024-02-30,Ann,Bob,21-15 21-18,",
        "2024-02-30,Cat,Dan,21-15 21-18,",
        "2024-03-02,Ann,Ann,21-15 21-18,",
        "2024-03-02,Ann,Bob,21-20 21-18,",
        "2024-03-02,Ann,Bob,21-20 21-18,",
        "2024-03-02,Ann;Cat,Bob;Dan,21-15 21-18,",
        "2024-03-02,Ann,,21-15 21-18,",
        '2024-03-02,Ann,Bob,21-15 21-18,"{""Zed"": {""k"": 1}}"',
        '2024-03-02,Ann,Bob,21-15 21-18,"{""Ann"": {""k"": 1}}"',
        ",,,,",
        "2024-03-03,Ann,Bob\x00,21-15 21-18,",
        "2024-03-03,Ann,Bob,21-15,",
        "2024-01-01,Ann,Bob,21-15 21-18,",
        "2024-03-03,Ann,Bob,21-15 21-18,  ",
    ]
    text = HEADER + "\n".join(rows) + "\n"
    with pytest.raises(ImportFormatError) as slow:
        parse_matches(text, BADMINTON, cached=False)
    with pytest.raises(ImportFormatError) as fast:
        parse_matches(text, BADMINTON)
    with pytest.raises(ImportFormatError) as plain_rows:
        parse_rows(text, BADMINTON)
    assert fast.value.errors == slow.value.errors == plain_rows.value.errors
    lines = {line for line, _ in slow.value.errors}
    assert lines == {4, 5, 6, 7, 8, 9, 10, 11, 14, 15}
    good = HEADER + "\n".join(r for i, r in enumerate(rows, 2) if i not in lines) + "\n"
    assert parse_matches(good, BADMINTON) == parse_matches(good, BADMINTON, cached=False)


def test_rate_prints_what_the_slow_path_rates(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from ratings.engine.replay import Replayer
    from ratings.engine.types import Params
    from ratings.lab.cli import main

    path = DATA / "bwf_mens_singles_2018_2021.csv"
    assert main(["rate", str(path)]) == 0
    printed = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    replayer = Replayer(Params(), BADMINTON)
    replayer.rate_all(parse_matches(path.read_text(encoding="utf-8"), BADMINTON, cached=False))
    want = [["player", "rating", "rd", "volatility", "matches"]] + [
        [p, repr(s.rating), repr(s.rd), repr(s.volatility), str(s.matches)]
        for p, s in sorted(replayer.states.items())
    ]
    assert printed == want and len(want) > 500
