"""import_matches / export_* / recompute_ratings on real data, and bad files that import nothing."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from accounts.models import User
from ladder.clubs.models import Ladder
from ladder.matches.models import Game, Match, MatchPlayer
from ratings.models import PlayerRating, RatingChange

DATA = Path(__file__).resolve().parents[1] / "data"
ROOT = Path(__file__).resolve().parents[2]
BWF = DATA / "bwf_mens_singles_2018_2021.csv"


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO(), verbosity=0)
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_bwf_import_then_export_equals_the_engine_command_line(tmp_path: Path) -> None:
    run("import_matches", str(BWF), "--ladder", "bwf", "--create-ladder", "--create-players")
    ladder = Ladder.objects.get(slug="bwf")
    assert ladder.team_size == 1 and ladder.scoring_format == "badminton_21"
    assert (
        Match.objects.filter(ladder=ladder, state="confirmed", needs_rating=False).count() == 3691
    )
    assert RatingChange.objects.filter(ladder=ladder).count() == 2 * 3691
    exported = tmp_path / "ratings.csv"
    run("export_ratings", "--ladder", "bwf", "--output", str(exported))
    engine = subprocess.run(
        [sys.executable, "-m", "ratings.engine", "rate", str(BWF)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert exported.read_text() == engine.stdout
    assert engine.stdout.count("\n") == PlayerRating.objects.filter(ladder=ladder).count() + 1

    # The exported history reads back as the same matches, in the same order.
    matches = tmp_path / "matches.csv"
    run("export_matches", "--ladder", "bwf", "--output", str(matches))
    original = BWF.read_text().splitlines()
    assert sorted(matches.read_text().splitlines()[1:]) == sorted(
        line for line in original[1:] if line.strip()
    )

    # Recomputing changes nothing.
    before = list(
        PlayerRating.objects.filter(ladder=ladder)
        .order_by("user_id")
        .values_list("rating", "rd", "volatility", "matches")
    )
    assert "3691 rated matches" in run("recompute_ratings", "--ladder", "bwf")
    after = list(
        PlayerRating.objects.filter(ladder=ladder)
        .order_by("user_id")
        .values_list("rating", "rd", "volatility", "matches")
    )
    assert before == after


def counts() -> tuple[int, ...]:
    return (
        Ladder.objects.count(),
        User.objects.count(),
        Match.objects.count(),
        MatchPlayer.objects.count(),
        Game.objects.count(),
        RatingChange.objects.count(),
    )


@pytest.mark.django_db
def test_a_bad_file_imports_nothing_and_names_every_bad_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "played_on,side_a,side_b,score,stats\n"
        "2024-03-01,Ann,Bea,21-15 21-18,\n"
        "2024-13-01,Ann,Cid,21-15 21-18,\n"
        "2024-03-02,Ann,Bea,21-20 21-18,\n"
        "2024-03-03,Ann;Dee,Bea;Cid,21-15 21-18,\n"
        "2024-03-04,Ann,Bea,21-15 21-18 21-3,\n"
    )
    before = counts()
    with pytest.raises(CommandError) as error:
        run("import_matches", str(bad), "--ladder", "newone", "--create-ladder", "--create-players")
    message = str(error.value)
    assert "nothing imported" in message
    for line in ("line 3:", "line 4:", "line 5:", "line 6:"):
        assert line in message
    assert "line 2:" not in message
    assert counts() == before


@pytest.mark.django_db
def test_unknown_players_without_create_players_import_nothing(
    tmp_path: Path, ladder, alice
) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.csv"
    good.write_text("played_on,side_a,side_b,score,stats\n2024-03-01,alice,Stranger,21-15 21-18,\n")
    before = counts()
    with pytest.raises(CommandError, match=r"line 2: 'Stranger' is not a member of the site"):
        run("import_matches", str(good), "--ladder", ladder.slug)
    assert counts() == before


@pytest.mark.django_db
def test_import_into_a_missing_ladder_needs_create_ladder(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no ladder 'nowhere'"):
        run("import_matches", str(BWF), "--ladder", "nowhere")


@pytest.mark.django_db(transaction=True)
def test_csgo_5v5_import_uses_the_file_team_size_and_stats(tmp_path: Path) -> None:
    run(
        "import_matches",
        str(DATA / "csgo_5v5_2022.csv"),
        "--ladder",
        "csgo",
        "--create-ladder",
        "--create-players",
        "--format",
        "generic",
        "--best-of",
        "1",
        "--points-per-game",
        "16",
    )
    ladder = Ladder.objects.get(slug="csgo")
    assert ladder.team_size == 5
    assert Match.objects.filter(ladder=ladder).count() == 200
    assert RatingChange.objects.filter(ladder=ladder).count() == 2000
    stats = MatchPlayer.objects.filter(match__ladder=ladder, stats__isnull=False)
    assert all(isinstance(s, dict) and s for s in stats.values_list("stats", flat=True))
    assert stats.filter(stats__has_key=next(iter(stats[0].stats))).count() == stats.count()


TENNIS = DATA / "tennis_doubles_club_2021_2024.csv"
TENNIS_LADDER = ("--format", "generic", "--best-of", "5", "--points-per-game", "6")


@pytest.mark.django_db(transaction=True)
def test_tennis_doubles_best_of_3_and_5_import_into_one_ladder() -> None:
    run(
        "import_matches",
        str(TENNIS),
        "--ladder",
        "tennis",
        "--create-ladder",
        "--create-players",
        *TENNIS_LADDER,
    )
    ladder = Ladder.objects.get(slug="tennis")
    assert (ladder.team_size, ladder.best_of, ladder.points_per_game) == (2, 5, 6)
    assert Match.objects.filter(ladder=ladder).count() == 238
    lengths = {m.games.count() for m in Match.objects.filter(ladder=ladder)}
    assert lengths == {2, 3, 4, 5}
    assert RatingChange.objects.filter(ladder=ladder).count() == 4 * 238


@pytest.mark.django_db(transaction=True)
def test_a_tennis_tie_or_a_set_after_the_match_imports_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "tennis.csv"
    bad.write_text(
        "played_on,side_a,side_b,score,stats\n"
        "2024-05-04,Ana;Ben,Cid;Dee,6-4 3-6 7-6,\n"
        "2024-05-04,Ana;Cid,Ben;Dee,6-4 4-6,\n"
        "2024-05-11,Ana;Dee,Ben;Cid,6-3 6-7 7-5 4-6 6-2,\n"
        "2024-05-11,Ana;Ben,Cid;Dee,6-2 6-1 3-6,\n",
        encoding="utf-8",
    )
    before = counts()
    with pytest.raises(CommandError) as error:
        run(
            "import_matches",
            str(bad),
            "--ladder",
            "tennis",
            "--create-ladder",
            "--create-players",
            *TENNIS_LADDER,
        )
    message = str(error.value)
    assert "nothing imported" in message
    assert "line 3: The match is tied 1-1 in games" in message
    assert "line 5: Game 3: the match was already decided after game 2" in message
    assert "line 2:" not in message and "line 4:" not in message
    assert counts() == before
