"""The integrity API (issue 26 item 3): the paths are the contract. Moderators only (403 for
members, 401 for visitors, 404 for a ladder the caller may not see); bad input is a 400 that
changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from ladder.integrity.models import Ban, Flag, IntegrityEntry
from ladder.matches.models import Match
from ratings.pipeline import rate_ladder
from tests.factories import login
from tests.integrity.support import confirmed, ratings_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def traded(club):  # type: ignore[no-untyped-def]
    """Ann and Ben trade wins twelve times: a win-trading flag on the club's ladder."""
    ann, ben = club.members[1], club.members[2]
    start = timezone.localdate() - timedelta(days=40)
    for i in range(12):
        a, b = (ann, ben) if i % 2 == 0 else (ben, ann)
        confirmed(club.ladder, a, b, [(21, 19), (22, 20)], start + timedelta(days=3 * i))
    rate_ladder(club.ladder.pk)
    return club


def test_moderators_read_the_flags_in_the_contract_shape(traded, mod) -> None:
    response = login(Client(), mod).get("/api/v1/ladders/honest/integrity/")
    assert response.status_code == 200
    flags = response.json()["flags"]
    trading = [f for f in flags if f["kind"] == "win_trading"]
    assert len(trading) == 1
    flag = trading[0]
    assert {"id", "kind", "players", "matches", "reason", "state"} <= set(flag)
    assert sorted(flag["players"]) == ["ann", "ben"]
    assert flag["state"] == "open"
    assert len(flag["matches"]) >= 12
    assert set(Match.objects.filter(pk__in=flag["matches"]).values_list("state", flat=True)) == {
        "confirmed"
    }
    assert "Ann and Ben played each other" in flag["reason"]


def test_members_are_refused(traded) -> None:
    client = login(Client(), traded.members[1])
    response = client.get("/api/v1/ladders/honest/integrity/")
    assert response.status_code == 403
    assert client.post("/api/v1/ladders/honest/bans/", {}).status_code == 403
    assert not Flag.objects.exists()  # nothing ran for them


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/api/v1/ladders/honest/integrity/"),
        ("post", "/api/v1/ladders/honest/integrity/1/"),
        ("get", "/api/v1/ladders/honest/bans/"),
        ("post", "/api/v1/ladders/honest/bans/"),
        ("delete", "/api/v1/ladders/honest/bans/ann/"),
    ],
)
def test_a_visitor_is_asked_to_sign_in_as_everywhere_in_the_api(traded, method, path) -> None:
    # Issue 36: the moderation API answered a visitor 403 where the rest answers 401.
    response = getattr(Client(), method)(path, {} if method == "post" else None)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert not Flag.objects.exists() and not Ban.objects.exists()


def test_a_private_ladder_is_404_to_an_outsider_and_a_wrong_method_is_refused(
    private_ladder, outsider, mod
) -> None:
    assert login(Client(), outsider).get("/api/v1/ladders/squad/integrity/").status_code == 404
    client = login(Client(), mod)
    assert client.get("/api/v1/ladders/nope/integrity/").status_code == 404
    assert client.put("/api/v1/ladders/squad/integrity/", {}).status_code == 405


def test_keep_and_dismiss_a_flag_with_a_note(traded, mod) -> None:
    client = login(Client(), mod)
    flag = client.get("/api/v1/ladders/honest/integrity/").json()["flags"][0]
    url = f"/api/v1/ladders/honest/integrity/{flag['id']}/"

    refused = client.post(url, {"state": "maybe", "note": ""}, content_type="application/json")
    assert refused.status_code == 400
    assert set(refused.json()) == {"state", "note"}
    assert Flag.objects.get(pk=flag["id"]).state == "open"
    assert not IntegrityEntry.objects.exists()

    kept = client.post(
        url, {"state": "kept", "note": "Watching them."}, content_type="application/json"
    )
    assert kept.status_code == 200
    assert kept.json()["state"] == "kept" and kept.json()["note"] == "Watching them."
    dismissed = client.post(
        url, {"state": "dismissed", "note": "Club champions."}, content_type="application/json"
    )
    assert dismissed.json()["state"] == "dismissed"
    trail = list(IntegrityEntry.objects.values_list("action", "actor__username", "text"))
    assert trail == [("keep", "mod", "Watching them."), ("dismiss", "mod", "Club champions.")]
    again = client.get("/api/v1/ladders/honest/integrity/").json()["flags"]
    assert next(f for f in again if f["id"] == flag["id"])["state"] == "dismissed"
    assert (
        client.post(
            "/api/v1/ladders/honest/integrity/99999/",
            {"state": "kept", "note": "x"},
            content_type="application/json",
        ).status_code
        == 404
    )


def test_ban_and_lift_through_the_api(club, mod) -> None:
    client = login(Client(), mod)
    ratings = ratings_of(club.ladder)
    created = client.post(
        "/api/v1/ladders/honest/bans/",
        {"username": "cheat", "reason": "Win trading.", "void_since": None},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["username"] == "cheat" and body["reason"] == "Win trading."
    assert body["void_since"] is None
    assert body["matches"] == sorted(
        Match.objects.filter(players__user=club.cheat).values_list("pk", flat=True)
    )
    assert body["changed"] and all(v[0] in "+\u2212l" for v in body["changed"].values())
    assert Ban.objects.active().filter(user=club.cheat).exists()

    again = client.post(
        "/api/v1/ladders/honest/bans/",
        {"username": "cheat", "reason": "Twice."},
        content_type="application/json",
    )
    assert again.status_code == 409
    listed = client.get("/api/v1/ladders/honest/bans/").json()["bans"]
    assert [b["username"] for b in listed] == ["cheat"]

    lifted = client.delete("/api/v1/ladders/honest/bans/cheat/")
    assert lifted.status_code == 200
    assert lifted.json()["lifted_by"] == "mod"
    assert ratings_of(club.ladder) == ratings
    assert client.delete("/api/v1/ladders/honest/bans/cheat/").status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"reason": "Why."}, "username"),
        ({"username": "cheat", "reason": ""}, "reason"),
        ({"username": "cheat", "reason": "Why.", "void_since": "yesterday"}, "void_since"),
        ({"username": "nobody", "reason": "Why."}, "username"),
    ],
)
def test_bad_ban_input_is_a_400_that_changes_nothing(club, mod, body, field) -> None:
    client = login(Client(), mod)
    response = client.post("/api/v1/ladders/honest/bans/", body, content_type="application/json")
    assert response.status_code == 400
    assert field in response.json()
    assert not Ban.objects.exists()
    assert set(Match.objects.values_list("state", flat=True)) == {"confirmed"}
