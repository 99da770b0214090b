"""A generated weekly club season (`generate_season`), imported the way a club would
(`import_matches`): the stored rating changes are fair, regulars are ranked, and the
ratings find the players' true order (issue 13, "Done when")."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from ladder.clubs.models import Ladder
from ratings.engine.formats import get_format
from ratings.lab.evaluate import spearman
from ratings.lab.importfmt import parse_matches
from ratings.models import PlayerRating
from tests.support.fairness import check_ladder


def generate(tmp_path: Path, *args: str) -> tuple[Path, dict[str, float]]:
    season, levels = tmp_path / "season.csv", tmp_path / "levels.csv"
    call_command("generate_season", "--output", str(season), "--levels", str(levels), *args)
    with levels.open(encoding="utf-8") as f:
        return season, {row["player"]: float(row["level"]) for row in csv.DictReader(f)}


@pytest.mark.django_db(transaction=True)
def test_an_imported_club_season_is_fair_ranked_and_in_true_order(tmp_path: Path) -> None:
    today = timezone.localdate()
    season, levels = generate(
        tmp_path, "--players", "18", "--weeks", "12", "--spread", "1.1", "--end", str(today)
    )
    assert len(levels) == 18
    assert min(levels.values()) == pytest.approx(4.5 - 1.1)
    assert max(levels.values()) == pytest.approx(4.5 + 1.1)

    call_command(
        "import_matches",
        str(season),
        "--ladder",
        "club",
        "--create-ladder",
        "--create-players",
        stdout=io.StringIO(),
        verbosity=0,
    )
    ladder = Ladder.objects.get(slug="club")
    check = check_ladder(ladder, today)
    assert check.changes > 2 * 250  # a season: hundreds of matches
    assert check.wins_lowering == 0
    assert check.losses_raising == 0
    assert check.regulars >= 15
    assert check.ranked_share >= 0.8

    rows = PlayerRating.objects.filter(ladder=ladder).select_related("user")
    rated = {row.user.name: row.rating for row in rows}
    assert set(rated) == set(levels)
    players = sorted(levels)
    rho = spearman([rated[p] for p in players], [levels[p] for p in players])
    assert rho is not None and rho >= 0.9


def test_the_season_file_is_the_import_format_and_reproducible(tmp_path: Path) -> None:
    args = ("--players", "10", "--weeks", "4", "--end", "2025-06-30", "--seed", "3")
    first = io.StringIO()
    call_command("generate_season", *args, stdout=first)
    again = io.StringIO()
    call_command("generate_season", *args, stdout=again)
    assert first.getvalue() == again.getvalue()
    matches = parse_matches(first.getvalue(), get_format("badminton_21"), team_size=1)
    assert len(matches) >= 4 * 10  # four club nights, several rounds
    nights = {m.played_on for m in matches}
    assert {d.weekday() for d in nights} == {1}  # Tuesdays
    assert min(nights).isoformat() >= "2025-06-03" and max(nights).isoformat() <= "2025-06-30"


def test_doubles_and_generic_seasons(tmp_path: Path) -> None:
    out = io.StringIO()
    call_command(
        "generate_season",
        "--players",
        "12",
        "--team-size",
        "2",
        "--nights",
        "mon,thu",
        "--weeks",
        "2",
        "--end",
        "2025-06-30",
        stdout=out,
    )
    doubles = parse_matches(out.getvalue(), get_format("badminton_21"), team_size=2)
    assert {m.played_on.weekday() for m in doubles} == {0, 3}
    out = io.StringIO()
    call_command(
        "generate_season",
        "--players",
        "10",
        "--team-size",
        "5",
        "--format",
        "generic",
        "--points-per-game",
        "16",
        "--attendance",
        "1",
        "--weeks",
        "1",
        stdout=out,
    )
    fives = parse_matches(out.getvalue(), get_format("generic", 1, 16), team_size=5)
    assert fives and all(max(m.games[0]) == 16 for m in fives)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(CommandError, match="two sides"):
        call_command("generate_season", "--players", "3", "--team-size", "2")
    with pytest.raises(CommandError, match="points_per_game"):
        call_command("generate_season", "--format", "generic")
    with pytest.raises(CommandError, match="attendance"):
        call_command("generate_season", "--attendance", "1.5")
