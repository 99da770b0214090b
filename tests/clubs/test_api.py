"""/api/v1/ladders/: read-only, with the pages' visibility rules."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from ratings.engine.types import Params

LIST = "/api/v1/ladders/"


@pytest.fixture
def api():
    return APIClient()


def slugs(response):
    return [item["slug"] for item in response.json()["results"]]


def test_visitor_lists_public_ladders(api, alice, bob, private_ladder):
    response = api.get(LIST)
    assert response.status_code == 200
    assert slugs(response) == ["singles"]
    item = response.json()["results"][0]
    assert item["member_count"] == 2
    assert item["is_member"] is False
    assert item["url"] == "http://testserver/api/v1/ladders/singles/"
    assert item["page"] == "http://testserver/ladders/singles/"


def test_detail_by_slug_with_params(api, ladder):
    response = api.get(f"{LIST}singles/")
    assert response.status_code == 200
    data = response.json()
    assert data["name"] == "Club Singles"
    assert data["scoring_format"] == "badminton_21"
    assert (data["best_of"], data["points_per_game"], data["team_size"]) == (3, 21, 1)
    assert data["params"]["tau"] == Params().tau
    assert data["params"]["initial_rating"] == 4500
    assert data["params"]["stat_weights"] == {}
    assert data["max_report_age_days"] == 14 and data["reports_per_hour"] == 20
    # RATINGS.md §3 step 1's raise at a season's start is a setting; the first days are not.
    assert data["params"]["season_start_periods"] == 0
    assert "season_starts" not in data["params"]
    ladder.season_start_periods = 4
    ladder.save()
    assert api.get(f"{LIST}singles/").json()["params"]["season_start_periods"] == 4


def test_private_ladder_is_hidden_from_outsiders(api, outsider, private_ladder):
    assert api.get(f"{LIST}squad/").status_code == 404
    api.force_authenticate(outsider)
    assert api.get(f"{LIST}squad/").status_code == 404
    assert "squad" not in slugs(api.get(LIST))


def test_members_and_moderators_see_the_private_ladder(api, alice, mod, private_ladder):
    api.force_authenticate(alice)
    assert sorted(slugs(api.get(LIST))) == ["singles", "squad"]
    assert api.get(f"{LIST}squad/").json()["is_member"] is True
    api.force_authenticate(mod)
    assert sorted(slugs(api.get(LIST))) == ["singles", "squad"]


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("post", LIST),
        ("put", f"{LIST}singles/"),
        ("patch", f"{LIST}singles/"),
        ("delete", f"{LIST}singles/"),
    ],
)
def test_the_endpoint_is_read_only_even_for_moderators(api, mod, ladder, method, url):
    api.force_authenticate(mod)
    assert getattr(api, method)(url, {"name": "X"}, format="json").status_code == 405
    ladder.refresh_from_db()
    assert ladder.name == "Club Singles"


def test_schema_documents_the_endpoint(client, db):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/v1/ladders/{slug}/" in response.content
