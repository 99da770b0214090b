"""Points at stake (RATINGS.md §6; ratings/stakes.py): the engine's rule on the stored
states, shown on the report form and the head-to-head page and answered by the API."""

from __future__ import annotations

from datetime import timedelta
from html import unescape

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from ladder.clubs.formatting import format_change
from ladder.matches.models import Match
from ratings.engine import Replayer
from ratings.models import PlayerRating, RatingChange
from ratings.pipeline import initial_states, load_matches, rate_ladder
from ratings.stakes import points_at_stake
from tests.factories import LadderFactory, login
from tests.ratings.pages_support import NOON, TODAY, member, play, text_of

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def frozen(time_machine):  # type: ignore[no-untyped-def]
    time_machine.move_to(NOON, tick=False)


@pytest.fixture
def club(db):  # type: ignore[no-untyped-def]
    """A singles ladder: Ann has met Ben three times lately, and Cat once."""
    ladder = LadderFactory(name="Club", slug="club")
    ann, ben, cat = (member(ladder, n, f"{n.capitalize()} N") for n in ("ann", "ben", "cat"))
    play(ladder, [ann], [ben], [(21, 12), (21, 15)], TODAY - timedelta(days=20))
    play(ladder, [ben], [ann], [(21, 19), (21, 17)], TODAY - timedelta(days=15))
    play(ladder, [cat], [ann], [(12, 21), (21, 18), (15, 21)], TODAY - timedelta(days=12))
    play(ladder, [ann], [ben], [(21, 10), (21, 11)], TODAY - timedelta(days=5))
    rate_ladder(ladder.pk)
    return ladder, ann, ben, cat


def from_scratch(ladder, side_a, side_b):  # type: ignore[no-untyped-def]
    """The engine's stakes after replaying every rated match from the start."""
    replayer = Replayer(ladder.params(), ladder.scoring(), initial_states(ladder))
    replayer.rate_all(load_matches(ladder))
    return replayer.stakes([str(u.pk) for u in side_a], [str(u.pk) for u in side_b], TODAY)


def test_stakes_are_the_engines_on_todays_states_and_store_nothing(club):
    ladder, ann, ben, _ = club
    stored = (RatingChange.objects.count(), list(PlayerRating.objects.values()))
    stakes = points_at_stake(ladder, [ann], [ben], TODAY)
    expected = from_scratch(ladder, [ann], [ben])
    got_ann, got_ben = stakes.players
    assert (got_ann.user, got_ann.side, got_ben.user, got_ben.side) == (ann, "a", ben, "b")
    assert got_ann.rating == PlayerRating.objects.get(ladder=ladder, user=ann).rating
    assert got_ann.narrow_win == pytest.approx(expected["a_narrow"][0].change)
    assert got_ann.clear_win == pytest.approx(expected["a_clear"][0].change)
    assert got_ann.narrow_loss == pytest.approx(expected["b_narrow"][0].change)
    assert got_ann.clear_loss == pytest.approx(expected["b_clear"][0].change)
    assert got_ben.narrow_win == pytest.approx(expected["b_narrow"][1].change)
    assert got_ben.clear_loss == pytest.approx(expected["a_clear"][1].change)
    # The lookback window is read too: a fourth meeting in 90 days counts for less.
    assert expected["a_narrow"][0].repetition_weight < 1
    # A win never lowers a rating, a loss never raises one; a clear result moves more.
    for s in stakes.players:
        assert s.clear_win >= s.narrow_win >= 0 >= s.narrow_loss >= s.clear_loss
    assert (stakes.narrow_score, stakes.clear_score) == ("22-20 22-20", "21-15 21-15")
    assert (RatingChange.objects.count(), list(PlayerRating.objects.values())) == stored


def test_new_members_stake_from_their_starting_ratings(ladder, alice, bob):
    stakes = points_at_stake(ladder, [alice], [bob], TODAY)
    expected = from_scratch(ladder, [alice], [bob])
    assert stakes.players[0].narrow_win == pytest.approx(expected["a_narrow"][0].change)
    assert stakes.players[1].clear_loss == pytest.approx(expected["a_clear"][1].change)


def test_changes_read_in_display_units():
    assert format_change(31.4) == "+0.03"
    assert format_change(-151) == "\u22120.15"
    assert format_change(2) == format_change(-3) == format_change(0) == "0.00"
    assert format_change(None) == "–"


def test_head_to_head_shows_what_each_result_would_do(client, club):
    ladder, ann, ben, _ = club
    stakes = points_at_stake(ladder, [ann], [ben], TODAY)
    response = client.get("/ladders/club/head-to-head/", {"a": "ann", "b": "ben"})
    assert response.status_code == 200
    page = text_of(unescape(response.content.decode()))
    assert "Points at stake" in page
    assert "a narrow win is 22-20 22-20, a clear one 21-15 21-15" in page
    ann_row = stakes.players[0]
    shown = ann_row.shown
    assert (
        f"Ann N {ann_row.rating_display} {shown['narrow_win']} {shown['clear_win']} "
        f"{shown['narrow_loss']} {shown['clear_loss']}"
    ) in page


def test_head_to_head_of_part_of_a_side_has_no_stakes(client, db):
    ladder = LadderFactory(name="Pairs", slug="pairs", team_size=2)
    a, _b, c, _d = (member(ladder, n) for n in ("ad", "bd", "cd", "dd"))
    response = client.get("/ladders/pairs/head-to-head/", {"a": a.username, "b": c.username})
    assert response.status_code == 200
    assert response.context["stakes"] is None
    assert "Points at stake" not in response.content.decode()


def test_report_form_shows_stakes_once_both_sides_are_filled(
    client, doubles, alice, bob, charlie, dave
):
    login(client, alice)
    validate = reverse("ladder:report_validate", args=["doubles"])
    base = {
        "played_on": TODAY.isoformat(),
        "partner_1": "bob",
        "opponent_1": "charlie",
        "opponent_2": "dave",
        "game_a": ["", ""],
        "game_b": ["", ""],
    }
    before = Match.objects.count()
    half = client.post(validate, {**base, "opponent_2": ""}, **HX).content.decode()
    assert "Points at stake" not in half
    page = unescape(client.post(validate, base, **HX).content.decode())
    assert "Points at stake" in page  # no score entered yet: the stakes are for choosing
    stakes = points_at_stake(doubles, [alice, bob], [charlie, dave], TODAY)
    for s in stakes.players:
        assert s.user.name in page and s.shown["clear_win"] in page
    # Without JavaScript: the page after a submit with no score has them too.
    response = client.post(reverse("ladder:report", args=["doubles"]), base)
    assert response.status_code == 400
    assert "Points at stake" in response.content.decode()
    assert Match.objects.count() == before


def test_api_predict_answers_the_stakes_raw_and_shown(club):
    ladder, ann, ben, _ = club
    stakes = points_at_stake(ladder, [ann], [ben], TODAY)
    body = (
        APIClient()
        .get("/api/v1/predict/", {"ladder": "club", "side_a": "ann", "side_b": "ben"})
        .json()
    )
    assert body["stakes"]["narrow_score"] == "22-20 22-20"
    first = body["stakes"]["players"][0]
    assert first["username"] == "ann" and first["side"] == "a"
    assert first["narrow_win"] == pytest.approx(stakes.players[0].narrow_win)
    assert first["clear_loss"] == pytest.approx(stakes.players[0].clear_loss)
    assert first["rating_display"] == stakes.players[0].rating_display
    assert first["display"] == stakes.players[0].shown
    incomplete = APIClient().get("/api/v1/predict/", {"ladder": "club", "side_a": "ann"})
    assert incomplete.json() == {"probability": None, "quality": None, "stakes": None}


def test_a_lineup_from_club_night_shows_the_stakes_at_once(client, doubles, alice, outsider):
    login(client, alice)
    report = reverse("ladder:report", args=["doubles"])
    page = client.get(report, {"side_a": "alice,bob", "side_b": "charlie,dave"}).content.decode()
    assert "Points at stake" in page and "Choose every player" not in page
    # A name that is no member of the ladder: no prediction, no stakes, the form as ever.
    for side_b in ("charlie,outsider", "charlie,zed", "charlie"):
        page = client.get(report, {"side_a": "alice,bob", "side_b": side_b}).content.decode()
        assert "Points at stake" not in page and "Choose every player" in page
