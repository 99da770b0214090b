"""Dates before 1900 (issue 22, item 6): refused on every path that sets a match's date, and a
match dated so (written before the rule) breaks no page."""

from __future__ import annotations

from datetime import date

import pytest
from django.test import Client
from rest_framework.test import APIClient

from ladder.matches import operations as matches
from ladder.matches.errors import MatchValidationError
from ladder.matches.models import Match
from ladder.matches.validation import EARLIEST_MATCH
from ratings.pipeline import recompute_ladder
from tests.factories import reported_match
from tests.matches.support import counts

ANCIENT = date(1, 1, 1)
TOO_EARLY = [ANCIENT, date(1899, 12, 31)]


def api(user) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def confirmed(ladder, alice, bob) -> Match:  # type: ignore[no-untyped-def]
    match = reported_match(ladder, alice, [alice], [bob])
    return matches.confirm_match(match, bob)


@pytest.mark.parametrize("played_on", TOO_EARLY)
def test_a_moderators_correction_before_1900_is_refused(confirmed, mod, played_on):
    before = counts()
    with pytest.raises(MatchValidationError) as refused:
        matches.correct_match(confirmed, mod, [(21, 10), (21, 12)], "typo", played_on=played_on)
    assert "1900" in str(refused.value.errors["played_on"])
    assert counts() == before
    assert Match.objects.get(pk=confirmed.pk).played_on == confirmed.played_on


def test_the_api_and_the_page_refuse_it_too(confirmed, mod):
    body = {"games": [[21, 10], [21, 12]], "reason": "typo", "played_on": "0001-01-01"}
    response = api(mod).post(f"/api/v1/matches/{confirmed.pk}/correct/", body, format="json")
    assert response.status_code == 400
    assert "1900" in str(response.json())
    page = Client()
    page.force_login(mod)
    form = page.post(
        f"/matches/{confirmed.pk}/correct/",
        {"games": "21-10 21-12", "reason": "typo", "played_on": "1899-12-31"},
    )
    assert form.status_code in (200, 400) and b"1900" in form.content
    assert Match.objects.get(pk=confirmed.pk).played_on == confirmed.played_on


def test_a_report_before_1900_is_refused_even_on_a_ladder_with_no_age_limit(ladder, alice, bob):
    ladder.max_report_age_days = 1_000_000
    ladder.save()
    body = {
        "ladder": "singles",
        "side_a": ["alice"],
        "side_b": ["bob"],
        "games": [[21, 10], [21, 12]],
        "played_on": "1899-12-31",
    }
    response = api(alice).post("/api/v1/matches/", body, format="json")
    assert response.status_code == 400 and "1900" in str(response.json())
    assert not Match.objects.exists()
    assert date(1900, 1, 1) == EARLIEST_MATCH


def test_a_match_dated_0001_breaks_no_page(confirmed, alice, bob):
    """A date written before the rule (or straight into the database)."""
    Match.objects.filter(pk=confirmed.pk).update(played_on=ANCIENT)
    recompute_ladder(confirmed.ladder_id)
    member = Client()
    member.force_login(alice)
    assert (
        member.get("/ladders/singles/head-to-head/", {"a": "alice", "b": "bob"}).status_code == 200
    )
    assert member.get("/ladders/singles/report/", {"side_b": "bob"}).status_code == 200
    predict = member.get(
        "/api/v1/predict/", {"ladder": "singles", "side_a": "alice", "side_b": "bob"}
    )
    assert predict.status_code == 200
