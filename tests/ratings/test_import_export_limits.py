"""Imports refuse what the site cannot store (line numbers, nothing imported); exports never
crash and never hand a spreadsheet a formula (issue 15, items 5 and 6)."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import User
from ladder.clubs.models import Ladder, Membership
from ladder.matches import operations as matches
from ladder.matches.models import Game, Match, MatchPlayer
from ladder.matches.validation import Report
from ratings.lab.importfmt import from_spreadsheet_safe, spreadsheet_safe
from tests.factories import LadderFactory, MembershipFactory, UserFactory

HEADER = "played_on,side_a,side_b,score,stats\n"


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO(), verbosity=0)
    return out.getvalue()


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (User, Ladder, Membership, Match, MatchPlayer, Game))


def refused(tmp_path: Path, rows: str) -> str:
    path = tmp_path / "bad.csv"
    path.write_text(HEADER + rows, encoding="utf-8")
    before = counts()
    with pytest.raises(CommandError) as error:
        run(
            "import_matches",
            str(path),
            "--ladder",
            "imp",
            "--create-ladder",
            "--create-players",
            "--format",
            "generic",
            "--best-of",
            "1",
            "--points-per-game",
            "16",
        )
    assert counts() == before
    message = str(error.value)
    assert "nothing imported" in message and "Traceback" not in message
    return message


@pytest.mark.django_db
def test_a_score_beyond_what_is_stored_is_refused_with_its_line(tmp_path: Path) -> None:
    message = refused(tmp_path, "2024-01-01,Ann,Bea,16-3,\n2024-01-02,Ann,Bea,40000-3,\n")
    assert "line 3: game 1 (40000-3) has more than 9999 points" in message
    huge = refused(tmp_path, "2024-01-01,Ann,Bea," + "9" * 5000 + "-3,\n")
    assert "line 2: score" in huge


@pytest.mark.django_db
def test_a_new_players_name_too_long_to_store_is_refused_not_cut(tmp_path: Path) -> None:
    long_a, long_b = "A" * 61 + "x", "A" * 61 + "y"  # would both become "A" * 60
    message = refused(tmp_path, f"2024-01-01,{long_a},{long_b},16-3,\n")
    assert "line 2: player name" in message and "at most 60" in message


@pytest.mark.django_db
@pytest.mark.parametrize("day", ["0001-01-01", "1899-12-31", "9999-12-31", "tomorrow"])
def test_dates_outside_1900_to_today_are_refused(tmp_path: Path, day: str) -> None:
    if day == "tomorrow":
        day = (timezone.localdate() + timedelta(days=1)).isoformat()
    message = refused(tmp_path, f"2024-01-01,Ann,Bea,16-3,\n{day},Ann,Bea,16-3,\n")
    assert f"line 3: played_on {day} is" in message
    assert "line 2:" not in message


@pytest.mark.django_db
def test_a_nul_byte_in_a_row_is_refused_with_its_line(tmp_path: Path) -> None:
    message = refused(tmp_path, "2024-01-01,Ann,Bea,16-3,\n2024-01-02,An\x00n,Bea,16-3,\n")
    assert "line 3: the row contains a NUL character" in message


# ---- exports -----------------------------------------------------------------------------


@pytest.fixture
def played(db):  # type: ignore[no-untyped-def]
    ladder = LadderFactory(name="Exports", slug="exports")
    people = [
        UserFactory(username="eve", display_name='=HYPERLINK("http://x","y")'),
        UserFactory(username="semi", display_name="Ann; Bea"),
        UserFactory(username="plus", display_name="+1"),
        UserFactory(username="gone", display_name="Gone Away"),
    ]
    for user in people:
        MembershipFactory(ladder=ladder, user=user)
    today = timezone.localdate()
    for day, (a, b) in enumerate([(0, 1), (2, 3), (1, 3)]):
        match = matches.report_match(
            Report(
                ladder=ladder,
                reporter=people[a],
                played_on=today - timedelta(days=day + 1),
                side_a=[people[a]],
                side_b=[people[b]],
                games=[(21, 15), (21, 18)],
            )
        )
        matches.confirm_match(match, people[b])
    # An admin removes a member who has played.
    Membership.objects.filter(ladder=ladder, user=people[3]).delete()
    return ladder


def cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


@pytest.mark.django_db(transaction=True)
def test_exports_neutralise_formulas_and_survive_odd_names_and_removed_members(
    played, tmp_path: Path
) -> None:
    exported_matches = run("export_matches", "--ladder", "exports")
    exported_ratings = run("export_ratings", "--ladder", "exports")
    for text in (exported_matches, exported_ratings):
        assert not [c for c in cells(text) if c[:1] in ("=", "+", "-", "@")]
    assert "'=HYPERLINK" in exported_matches and "'+1" in exported_ratings
    # "Ann; Bea" cannot be written as one name: the username stands in; the removed member
    # is still named.
    assert "semi" in exported_matches and "Gone Away" in exported_matches
    # The export imports back as the same players and matches.
    path = tmp_path / "matches.csv"
    path.write_text(exported_matches, encoding="utf-8")
    run("import_matches", str(path), "--ladder", "again", "--create-ladder")
    assert Match.objects.filter(ladder__slug="again").count() == 3
    names = set(
        MatchPlayer.objects.filter(match__ladder__slug="again").values_list(
            "user__username", flat=True
        )
    )
    assert names == {"eve", "semi", "plus", "gone"}


def test_spreadsheet_safe_round_trips() -> None:
    for cell in ("=1+1", "+1", "-2", "@x", "\tx", "Ann", "'quoted", "'=kept"):
        assert from_spreadsheet_safe(spreadsheet_safe(cell)) == cell
    assert spreadsheet_safe("=1+1") == "'=1+1"
