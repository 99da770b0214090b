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
