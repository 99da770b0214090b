"""The schema and the validation agree (issue 22, item 10): what the schema calls invalid is
refused, and what it calls valid is not refused for its form. The fuzzing pass
(test_api_fuzz.py) looks for these at random; these are the ones it once missed."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from ladder.matches.models import Dispute, Match
from tests.ladder.test_bad_input import report


@pytest.fixture
def schema(db):  # type: ignore[no-untyped-def]
    return Client().get("/api/schema/", {"format": "json"}).json()


def parameter(schema, path: str, name: str) -> dict:  # type: ignore[no-untyped-def]
    (found,) = [p for p in schema["paths"][path]["get"]["parameters"] if p["name"] == name]
    return found["schema"]


def test_a_blank_leaderboard_status_is_refused_as_the_enum_says(schema, ladder, alice):
    assert "" not in parameter(schema, "/api/v1/ladders/{slug}/leaderboard/", "status")["enum"]
    response = APIClient().get("/api/v1/ladders/singles/leaderboard/", {"status": ""})
    assert response.status_code == 400 and "status" in response.json()
    assert APIClient().get("/api/v1/ladders/singles/leaderboard/").status_code == 200


@pytest.mark.parametrize("reason", [0, 12.5, True, ["text"], {"a": "b"}])
def test_a_reason_that_is_not_text_is_refused(ladder, alice, bob, reason):
    match = report(ladder, alice, bob)
    client = APIClient()
    client.force_authenticate(bob)
    response = client.post(
        f"/api/v1/matches/{match.pk}/dispute/", {"reason": reason}, format="json"
    )
    assert response.status_code == 400 and "reason" in response.json()
    assert not Dispute.objects.exists()
    assert Match.objects.get(pk=match.pk).state == "pending"


def test_a_username_that_is_not_text_is_refused(ladder, alice, bob):
    client = APIClient()
    client.force_authenticate(alice)
    body = {"ladder": "singles", "side_a": ["alice"], "side_b": [7], "games": [[21, 10], [21, 12]]}
    response = client.post("/api/v1/matches/", body, format="json")
    assert response.status_code == 400 and "side_b" in response.json()
    assert not Match.objects.exists()


def test_predict_documents_the_blank_ladder_it_refuses(schema, ladder, alice, bob):
    ladder_schema = parameter(schema, "/api/v1/predict/", "ladder")
    assert ladder_schema["minLength"] == 1
    blank = APIClient().get("/api/v1/predict/", {"ladder": "", "side_a": "alice", "side_b": "bob"})
    assert blank.status_code == 400


def test_every_request_body_is_closed_and_its_text_has_no_nul(schema):
    """additionalProperties: false on every request body, and a pattern (no NUL; a
    character that is not a space where blank is refused) on every string it has."""
    bodies = []
    for operations in schema["paths"].values():
        for operation in operations.values():
            for content in operation.get("requestBody", {}).get("content", {}).values():
                bodies.append(content["schema"]["$ref"].rsplit("/", 1)[1])
    components = schema["components"]["schemas"]
    assert {"Report", "DisputeInput", "TokenRequest", "ClubNightRequest", "BanInput"} <= set(bodies)
    for name in bodies:
        assert components[name]["additionalProperties"] is False, name
        for field, prop in components[name]["properties"].items():
            prop = prop.get("items", prop) if prop.get("type") == "array" else prop
            if prop.get("type") == "string" and not prop.get("readOnly") and "enum" not in prop:
                assert "pattern" in prop or "format" in prop, (name, field)
    reason = components["DisputeInput"]["properties"]["reason"]
    assert reason["minLength"] == 1 and "[^\\s\\u0000]" in reason["pattern"]


def test_an_unknown_field_is_refused_and_nothing_is_stored(ladder, alice, bob):
    match = report(ladder, alice, bob)
    client = APIClient()
    client.force_authenticate(bob)
    response = client.post(
        f"/api/v1/matches/{match.pk}/dispute/", {"reasn": "The score was 21-19."}, format="json"
    )
    assert response.status_code == 400
    (message,) = response.json()["non_field_errors"]
    assert message == "Unknown field 'reasn': this request reads only reason, proposed_games."
    assert not Dispute.objects.exists()
    assert Match.objects.get(pk=match.pk).state == "pending"


def test_a_blank_reason_gets_the_domains_words(ladder, alice, bob):
    match = report(ladder, alice, bob)
    client = APIClient()
    client.force_authenticate(bob)
    response = client.post(f"/api/v1/matches/{match.pk}/dispute/", {"reason": "  "}, format="json")
    assert response.status_code == 400
    assert response.json()["reason"][0].startswith("Say what is wrong")
    assert not Dispute.objects.exists()


def test_an_empty_score_is_refused_as_the_schema_says(schema, ladder, alice, bob):
    assert schema["components"]["schemas"]["CorrectInput"]["properties"]["games"]["minItems"] == 1
    client = APIClient()
    client.force_authenticate(alice)
    body = {"ladder": "singles", "played_on": "2026-01-01", "side_a": ["alice"], "side_b": ["bob"]}
    response = client.post("/api/v1/matches/", {**body, "games": []}, format="json")
    assert response.status_code == 400 and response.json()["games"][0].startswith(
        "A match needs at least one game"
    )
    assert not Match.objects.exists()


def test_predict_answers_an_unknown_ladder_in_its_query_with_404(ladder, private_ladder, bob):
    for slug in ("nowhere", "squad"):  # none, and a private one bob does not belong to
        response = APIClient().get("/api/v1/predict/", {"ladder": slug, "side_a": "bob"})
        assert response.status_code == 404, slug
    assert APIClient().get("/api/v1/predict/", {"ladder": "singles"}).status_code == 200


def test_an_edit_without_games_keeps_the_score_and_changes_the_date(ladder, alice, bob):
    from datetime import timedelta

    from django.utils import timezone

    match = report(ladder, alice, bob)
    games = match.game_scores
    client = APIClient()
    client.force_authenticate(alice)
    yesterday = timezone.localdate() - timedelta(days=1)
    response = client.patch(
        f"/api/v1/matches/{match.pk}/", {"played_on": yesterday.isoformat()}, format="json"
    )
    assert response.status_code == 200, response.json()
    match.refresh_from_db()
    assert match.played_on == yesterday and match.game_scores == games
