"""Issue 22, Why 4 and 10: what hidden members and deactivated accounts leaked before the
one access policy (ladder/clubs/access.py), each written to fail on the main of the day.

- predict gave a visitor a hidden member's rating, and nulls for an unknown name: a
  membership test;
- club night's API (``present``) and the report form's prefill (``?side_b=``) gave members
  a hidden member's rating;
- a deactivated account stayed on the leaderboard, its player page, predict and club night,
  and could still be reported against;
- dispute and moderator reasons and the audit trail were shown to everyone.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.signals import account_saved
from ladder.matches import operations as matches
from ratings.models import PlayerRating
from tests.factories import hide, login, reported_match
from tests.matches.support import API, api_client

PREDICT = "/api/v1/predict/"
NOTHING = {"probability": None, "quality": None, "stakes": None}


def _deactivate(user) -> None:  # type: ignore[no-untyped-def]
    """As the admin does: the account stays, switched off, and the apps are told."""
    user.is_active = False
    user.save()
    account_saved(user, ["is_active"])


@pytest.fixture
def rated(ladder, alice, bob, charlie, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Alice beat Bob and Charlie beat Bob: all three have rating rows."""
    with django_capture_on_commit_callbacks(execute=True):
        matches.confirm_match(reported_match(ladder, alice, [alice], [bob]), bob)
        matches.confirm_match(reported_match(ladder, charlie, [charlie], [bob]), bob)
    assert PlayerRating.objects.filter(ladder=ladder).count() == 3
    return ladder


def _predict(viewer, side_a: str, side_b: str = "bob"):  # type: ignore[no-untyped-def]
    client = api_client(viewer) if viewer.is_authenticated else APIClient()
    response = client.get(PREDICT, {"ladder": "singles", "side_a": side_a, "side_b": side_b})
    assert response.status_code == 200, response.content
    return response.json()


# ---- predict: no rating, no membership oracle ----------------------------------------------


@pytest.mark.parametrize("who", ["visitor", "charlie"])
def test_predict_answers_a_hidden_name_as_an_unknown_one(request, who, rated, alice):
    viewer = AnonymousUser() if who == "visitor" else request.getfixturevalue(who)
    hide(user=alice, ladder=rated)
    hidden = _predict(viewer, "alice")
    unknown = _predict(viewer, "nobody-of-that-name")
    assert hidden == unknown == NOTHING


def test_predict_still_answers_for_those_who_may_see_her(rated, alice, mod):
    hide(user=alice, ladder=rated)
    for viewer in (alice, mod):
        assert _predict(viewer, "alice")["probability"] > 0.5


def test_predict_answers_a_deactivated_name_as_an_unknown_one(rated, alice, mod):
    _deactivate(alice)
    assert _predict(AnonymousUser(), "alice") == NOTHING
    assert _predict(mod, "alice") == NOTHING  # no one plays a deactivated account


# ---- club night and the report form: no hidden member's rating for members -----------------


def _club_night(viewer, ladder, present):  # type: ignore[no-untyped-def]
    url = f"/api/v1/ladders/{ladder.slug}/club-night/"
    return api_client(viewer).post(url, {"present": present}, format="json")


def test_club_night_api_answers_a_hidden_name_as_an_unknown_one(rated, alice, bob, charlie):
    hide(user=alice, ladder=rated)
    hidden = _club_night(charlie, rated, ["charlie", "alice"])
    unknown = _club_night(charlie, rated, ["charlie", "zed"])
    assert hidden.status_code == unknown.status_code == 400
    assert hidden.json() == {"present": ["No member of Club Singles is called alice."]}
    assert unknown.json() == {"present": ["No member of Club Singles is called zed."]}
    assert "rating" not in hidden.content.decode()


def test_club_night_api_still_rates_her_for_herself_and_moderators(rated, alice, bob, mod):
    hide(user=alice, ladder=rated)
    for viewer in (alice, mod):
        response = _club_night(viewer, rated, ["alice", "bob"])
        assert response.status_code == 200, response.content
        assert {p["username"] for p in response.json()["players"]} == {"alice", "bob"}


def test_report_prefill_gives_no_rating_of_a_hidden_opponent(client, rated, alice, charlie):
    hide(user=alice, ladder=rated)
    login(client, charlie)
    url = reverse("ladder:report", args=[rated.slug])
    page = client.get(url, {"side_a": "charlie", "side_b": "alice"}).content.decode()
    assert 'value="alice"' in page  # she may be named: they played face to face
    assert "Points at stake" not in page
    assert "chance that" not in page


def test_report_prefill_still_predicts_a_listed_opponent(client, rated, bob, charlie):
    login(client, charlie)
    url = reverse("ladder:report", args=[rated.slug])
    page = client.get(url, {"side_a": "charlie", "side_b": "bob"}).content.decode()
    assert "Points at stake" in page and "chance that" in page


# ---- deactivated accounts -------------------------------------------------------------------


def test_a_deactivated_account_leaves_the_leaderboard(client, rated, alice, mod):
    _deactivate(alice)
    page = client.get(reverse("ladder:detail", args=[rated.slug])).content.decode()
    assert "Alice Archer" not in page and "Bob Baker" in page
    for viewer in (AnonymousUser(), mod):
        client = api_client(viewer) if viewer.is_authenticated else APIClient()
        rows = client.get(f"/api/v1/ladders/{rated.slug}/leaderboard/").json()["results"]
        assert [r["username"] for r in rows] == ["charlie", "bob"]
        assert [r["rank"] for r in rows if r["rank"] is not None] in ([], [1, 2])


def test_a_deactivated_accounts_player_page_is_gone(client, rated, alice, bob):
    _deactivate(alice)
    assert client.get(reverse("ratings:player", args=["alice"])).status_code == 404
    assert APIClient().get("/api/v1/players/alice/history/").status_code == 404
    login(client, bob)
    assert client.get(reverse("ratings:player", args=["alice"])).status_code == 404


def test_a_deactivated_account_is_not_at_club_night(client, rated, alice, bob, charlie):
    _deactivate(alice)
    response = _club_night(charlie, rated, ["charlie", "alice"])
    assert response.json() == {"present": ["No member of Club Singles is called alice."]}
    login(client, charlie)
    page = client.get(f"/ladders/{rated.slug}/club-night/").content.decode()
    assert "Bob Baker" in page and "Alice Archer" not in page


def test_a_deactivated_account_cannot_be_reported_against(rated, alice, charlie):
    from ladder.matches.models import Match

    _deactivate(alice)
    before = Match.objects.count()
    response = api_client(charlie).post(
        API,
        {
            "ladder": rated.slug,
            "played_on": str(reported_played_on()),
            "side_a": ["charlie"],
            "side_b": ["alice"],
            "games": [[21, 10], [21, 12]],
        },
        format="json",
    )
    assert response.status_code == 400, response.content
    assert response.json()["players"] == [
        "Alice Archer's account is deactivated: no match can be reported against it."
    ]
    assert Match.objects.count() == before


def reported_played_on():  # type: ignore[no-untyped-def]
    from django.utils import timezone

    return timezone.localdate()


# ---- reasons and the audit trail: the match's players and moderators only --------------------


@pytest.fixture
def disputed(ladder, alice, bob, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=True):
        match = reported_match(ladder, alice, [alice], [bob])
        matches.dispute_match(match, bob, "She left early, the second game was 19-21")
    return match


def test_reasons_and_audit_are_not_shown_to_visitors_or_other_members(client, disputed, charlie):
    url = reverse("match_detail", args=[disputed.pk])
    for viewer in (AnonymousUser(), charlie):
        if viewer.is_authenticated:
            login(client, viewer)
        page = client.get(url).content.decode()
        assert "Alice Archer" in page and "Bob Baker" in page  # the result stays public
        assert "She left early" not in page
        assert "History" not in page
        detail = (
            (api_client(viewer) if viewer.is_authenticated else APIClient())
            .get(f"{API}{disputed.pk}/")
            .json()
        )
        assert detail["disputes"] is None and detail["audit"] is None
        assert "She left early" not in str(detail)


@pytest.mark.parametrize("who", ["alice", "bob", "mod"])
def test_reasons_and_audit_are_shown_to_its_players_and_moderators(request, who, client, disputed):
    viewer = request.getfixturevalue(who)
    login(client, viewer)
    page = client.get(reverse("match_detail", args=[disputed.pk])).content.decode()
    assert "She left early" in page and "History" in page
    detail = api_client(viewer).get(f"{API}{disputed.pk}/").json()
    assert detail["disputes"][0]["reason"].startswith("She left early")
    assert [e["action"] for e in detail["audit"]] == ["report", "dispute"]
