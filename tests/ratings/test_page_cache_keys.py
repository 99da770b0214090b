"""Issue 22.7 / What 5: the page cache keys only on the parameters a page reads, so a flood
of addresses with made-up parameters (``?junk=N``) does not grow it."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import LadderFactory
from tests.ratings.pages_support import member, season


@pytest.fixture
def club(db, settings):  # type: ignore[no-untyped-def]
    settings.VISITOR_PAGES_EARLY = True
    ladder = LadderFactory(name="Flood club", slug="flood")
    players = [member(ladder, f"f{i}", display_name=f"Flood Player {i}") for i in range(6)]
    season(ladder, players, 10)
    return ladder, players


def kept() -> int:
    """How many entries the page cache holds (its process memory in the tests)."""
    return len(caches["leaderboard"]._cache)  # type: ignore[attr-defined]


def test_junk_parameters_do_not_grow_the_page_cache(club) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    url = f"/ladders/{ladder.slug}/"
    page = Client().get(url)
    for url_ in (
        url,
        url + "?page=1",
        "/players/f1/",
        f"/ladders/{ladder.slug}/head-to-head/?a=f1&b=f2",
    ):
        Client().get(url_)
    before = kept()
    for n in range(1500):
        response = Client().get(f"{url}?junk={n}")
        assert response.status_code == 200
    assert kept() == before
    # The same page as without the parameter: its links do not echo it.
    assert response.content == page.content
    assert b"junk" not in response.content
    for n in range(50):  # on a page that reads parameters too
        assert Client().get(f"/players/f1/?ladder={ladder.slug}&junk={n}").status_code == 200
    assert kept() == before + 1  # ?ladder= is read: one page more, whatever the junk


def test_junk_parameters_do_not_grow_the_api_cache(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    url = f"/api/v1/ladders/{ladder.slug}/leaderboard/"
    client = APIClient()
    first = client.get(url)
    before = kept()
    for n in range(100):
        response = client.get(f"{url}?junk={n}")
        assert response.status_code == 200
        assert response.json()["results"] == first.json()["results"]
    assert kept() == before


def test_the_parameters_a_page_reads_still_count(club) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    url = f"/ladders/{ladder.slug}/"
    everyone = Client().get(url).content.decode()
    found = Client().get(f"{url}?q=Player+3&junk=1").content.decode()
    assert "Flood Player 3" in found and "Flood Player 4" not in found
    assert "Flood Player 4" in everyone
