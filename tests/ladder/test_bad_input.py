"""Bad input (issue 15, items 5 and 6): a clear 4xx in the surface's format, nothing stored,
no answer that tells whether an account exists, no client input echoed back in bulk."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from ladder.matches import operations as matches
from ladder.matches.errors import MatchValidationError
from ladder.matches.models import AuditEntry, Dispute, Match
from ladder.matches.validation import Report

pytestmark = pytest.mark.django_db


def api(user=None) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def report(ladder, alice, bob) -> Match:  # type: ignore[no-untyped-def]
    from django.utils import timezone

    return matches.report_match(
        Report(
            ladder=ladder,
            reporter=alice,
            played_on=timezone.localdate(),
            side_a=[alice],
            side_b=[bob],
            games=[(21, 15), (21, 18)],
        )
    )


# ---- NUL bytes: 400, JSON for the API, a page for the web -------------------------------------

VISITOR_URLS = [
    "/api/v1/matches/?player=a%00b",
    "/api/v1/matches/?ladder=singles%00",
    "/api/v1/players/?search=a%00",
    "/api/v1/players/?ladder=%C3%89%00",
    "/api/v1/ladders/singles/leaderboard/?q=%00",
    "/api/v1/predict/?ladder=singles&side_a=alice%00&side_b=bob",
    "/api/v1/players/alice/history/?ladder=%00",
    "/ladders/singles/?q=%00",
    "/players/alice/?ladder=%00",
    "/ladders/singles/head-to-head/?a=alice%00&b=bob",
    "/ladders/?q=%00",
]


@pytest.mark.parametrize("url", VISITOR_URLS)
def test_a_nul_byte_in_a_query_is_a_400_in_the_surfaces_format(url, ladder, alice, bob):
    response = Client().get(url)
    assert response.status_code == 400
    if url.startswith("/api/"):
        assert response["Content-Type"] == "application/json"
        assert "NUL" in response.json()["detail"]
    else:
        assert response["Content-Type"].startswith("text/html")
        assert b"NUL character" in response.content


def test_a_nul_byte_in_a_form_or_json_body_is_a_400_and_nothing_is_stored(
    ladder, alice, bob, client
):
    match = report(ladder, alice, bob)
    client.force_login(bob)
    page = client.post(f"/matches/{match.pk}/dispute/", {"reason": "wrong\x00score"})
    assert page.status_code == 400 and b"NUL character" in page.content
    encoded = client.post(
        f"/matches/{match.pk}/dispute/",
        "reason=wrong%00score",
        content_type="application/x-www-form-urlencoded",
    )
    assert encoded.status_code == 400 and b"NUL character" in encoded.content
    body = json.dumps({"reason": "wrong\x00score"})
    posted = api(bob).post(
        f"/api/v1/matches/{match.pk}/dispute/", body, content_type="application/json"
    )
    assert posted.status_code == 400 and "NUL" in posted.json()["detail"]
    stats = json.dumps(
        {
            "ladder": "singles",
            "played_on": "2024-01-01",
            "side_a": ["alice"],
            "side_b": ["bob"],
            "games": [[21, 1], [21, 2]],
            "stats": {"alice": {"k\x00": 1}},
        }
    )
    assert (
        api(alice).post("/api/v1/matches/", stats, content_type="application/json").status_code
        == 400
    )
    assert not Dispute.objects.exists()
    assert Match.objects.count() == 1


# ---- unreadable or oversized bodies -------------------------------------------------------------


def test_deeply_nested_json_is_a_400_not_a_500(ladder, alice):
    body = "[" * 100_000 + "]" * 100_000
    response = api(alice).post("/api/v1/predict/", body, content_type="application/json")
    assert response.status_code == 400
    assert "nested" in response.json()["detail"]


def test_an_oversized_body_is_refused_and_a_long_input_is_not_echoed(ladder, alice, bob):
    match = report(ladder, alice, bob)
    huge = json.dumps({"reason": "x" * 3_000_000})
    response = api(bob).post(
        f"/api/v1/matches/{match.pk}/dispute/", huge, content_type="application/json"
    )
    assert response.status_code == 413 and len(response.content) < 1000
    # Under the size limit, a long value in an error message is cut short.
    long_choice = json.dumps({"decision": "y" * 200_000, "reason": "r"})
    answer = api(bob).post(
        f"/api/v1/matches/{match.pk}/resolve/", long_choice, content_type="application/json"
    )
    assert answer.status_code in (400, 403) and len(answer.content) < 2000
    assert not Dispute.objects.exists()


def test_a_2_mb_dispute_reason_is_refused_with_a_message_and_not_stored(ladder, alice, bob, client):
    match = report(ladder, alice, bob)
    long_reason = "The score was wrong. " * 200  # 4,200 characters, under the body limit
    response = api(bob).post(
        f"/api/v1/matches/{match.pk}/dispute/", {"reason": long_reason}, format="json"
    )
    assert response.status_code == 400
    assert "2000" in json.dumps(response.json())
    client.force_login(bob)
    page = client.post(f"/matches/{match.pk}/dispute/", {"reason": long_reason})
    assert page.status_code in (200, 400) and b"2000" in page.content
    with pytest.raises(MatchValidationError):
        matches.dispute_match(match, bob, long_reason, None)
    assert not Dispute.objects.exists()
    assert not AuditEntry.objects.filter(action="dispute").exists()
    match.refresh_from_db()
    assert match.state == "pending"


# ---- API errors in JSON ------------------------------------------------------------------------


def test_unknown_api_addresses_answer_json_404(ladder):
    for url in ("/api/v1/nothing-here/", "/api/v1/ladders/not:a:slug/leaderboard/"):
        response = Client().get(url)
        assert response.status_code == 404
        assert response.json() == {"detail": "Not found."}
    assert Client().get("/no-such-page/")["Content-Type"].startswith("text/html")


def test_bad_page_numbers_are_400_with_a_message(ladder):
    for page in ("", "abc", "0", "-1"):
        response = api().get("/api/v1/ladders/", {"page": page})
        assert response.status_code == 400
        assert response.json() == {"page": ["A page is a whole number from 1."]}
    assert api().get("/api/v1/ladders/", {"page": 99}).status_code == 404


def test_a_blank_state_filter_is_refused(ladder, alice):
    response = api(alice).get("/api/v1/matches/", {"state": ""})
    assert response.status_code == 400 and "state" in response.json()


def test_the_api_accepts_json_only_and_says_so(ladder, alice):
    schema = Client().get("/api/schema/", {"format": "json"}).json()
    content = schema["paths"]["/api/v1/matches/"]["post"]["requestBody"]["content"]
    assert list(content) == ["application/json"]
    form = api(alice).post("/api/v1/matches/", {"ladder": "singles"}, format="multipart")
    assert form.status_code == 415


def test_the_inbox_is_documented_as_the_object_it_is(ladder, alice):
    schema = Client().get("/api/schema/", {"format": "json"}).json()
    ok = schema["paths"]["/api/v1/inbox/"]["get"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Inbox"}
    assert set(api(alice).get("/api/v1/inbox/").json()) == {
        "count",
        "to_confirm",
        "my_pending",
        "disputes",
    }


def test_an_audit_entry_without_a_state_before_validates(ladder, alice, bob):
    match = report(ladder, alice, bob)
    data = api(alice).get(f"/api/v1/matches/{match.pk}/").json()
    assert data["audit"][0]["from_state"] == ""
    schema = Client().get("/api/schema/", {"format": "json"}).json()
    field = schema["components"]["schemas"]["AuditEntry"]["properties"]["from_state"]
    assert "oneOf" in field or "" in field.get("enum", [])


# ---- enumeration ---------------------------------------------------------------------------------


def test_predict_answers_alike_for_unknown_and_non_member_names(ladder, alice, outsider):
    for name in ("zed-no-such-account", outsider.username):
        response = api().get(
            "/api/v1/predict/", {"ladder": "singles", "side_a": "alice", "side_b": name}
        )
        assert response.status_code == 200
        assert response.json() == {"probability": None, "quality": None, "stakes": None}


def test_a_report_answers_alike_for_unknown_and_non_member_names(ladder, alice, outsider):
    answers = []
    for name in ("zed", outsider.username):
        response = api(alice).post(
            "/api/v1/matches/",
            {
                "ladder": "singles",
                "played_on": "2024-01-01",
                "side_a": ["alice"],
                "side_b": [name],
                "games": [[21, 1], [21, 2]],
            },
            format="json",
        )
        assert response.status_code == 400
        answers.append(response.json())
    assert answers == [
        {"players": ["No member of Club Singles is called 'zed'."]},
        {"players": [f"No member of Club Singles is called {outsider.username!r}."]},
    ]
    assert not Match.objects.exists()


def test_the_report_page_answers_alike_for_unknown_and_non_member_names(
    ladder, alice, outsider, client
):
    client.force_login(alice)
    pages = []
    for name in ("zed", outsider.username):
        page = client.post(
            "/ladders/singles/report/",
            {"played_on": "2024-01-01", "opponent_1": name, "game_a": [21, 21], "game_b": [1, 2]},
        )
        pages.append(page.content.decode())
    assert "No member of Club Singles is called &#x27;zed&#x27;." in pages[0]
    assert f"No member of Club Singles is called &#x27;{outsider.username}&#x27;." in pages[1]
    assert outsider.name not in pages[1]
    assert not Match.objects.exists()


def test_a_ladder_description_has_a_limit():
    """The admin's ladder form refuses a description over 2,000 characters."""
    from django.forms import modelform_factory

    from ladder.clubs.models import Ladder

    form = modelform_factory(Ladder, fields=["description"])
    assert form({"description": "x" * 2000}).is_valid()
    too_long = form({"description": "x" * 2001})
    assert not too_long.is_valid()
    assert "at most 2000 characters" in str(too_long.errors["description"])
