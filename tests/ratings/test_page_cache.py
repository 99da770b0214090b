"""Server-side caching of the visitors' pages and the API leaderboard (issue 17 #2): served from
the shared cache, never stale (keyed by the versions, so a change shows at once), and never
showing a hidden member to someone who may not see them."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.test import Client
from rest_framework.test import APIClient

from accounts.signals import account_saved
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import save_membership
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory
from tests.ratings.pages_support import TODAY, member, play, season, text_of


@pytest.fixture(autouse=True, params=["full path", "answered early"])
def _either_way(request, settings):  # type: ignore[no-untyped-def]
    """Every test twice: the views alone, and with VisitorPageMiddleware answering repeats."""
    settings.VISITOR_PAGES_EARLY = request.param == "answered early"


@pytest.fixture
def club(db):  # type: ignore[no-untyped-def]
    ladder = LadderFactory(name="Kept club", slug="kept")
    players = [member(ladder, f"k{i}", display_name=f"Kept Player {i}") for i in range(6)]
    season(ladder, players, 10)
    return ladder, players


def pages(ladder: Ladder) -> list[str]:
    return [
        "/",
        "/ladders/",
        f"/ladders/{ladder.slug}/",
        f"/ladders/{ladder.slug}/?page=1&q=Kept",
        "/players/k1/",
        "/players/k5/",
        f"/ladders/{ladder.slug}/head-to-head/?a=k5&b=k0",
    ]


def fresh(url: str) -> bytes:
    """The page as the database gives it now (nothing kept)."""
    caches["leaderboard"].clear()
    response = Client().get(url)
    assert response.status_code == 200, url
    return response.content


def test_visitor_pages_are_served_from_the_cache(  # type: ignore[no-untyped-def]
    club, settings, django_assert_num_queries
) -> None:
    ladder, _ = club
    settings.VISITOR_PAGES_EARLY = True  # whole pages are kept with a shared cache only
    for url in pages(ladder):
        first = Client().get(url)
        assert first.status_code == 200, url
        # Another visitor: the kept page, no query.
        with django_assert_num_queries(0):
            again = Client().get(url)
        assert again.status_code == 200
        assert again.content == first.content, url
        assert again["ETag"] == first["ETag"]
        assert again["Content-Type"] == first["Content-Type"]
        assert "public" in again["Cache-Control"] and not again.cookies


def test_a_rating_change_shows_at_once_on_every_kept_page(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    kept = {url: Client().get(url).content for url in pages(ladder)}
    play(ladder, [players[5]], [players[0]], [(21, 0), (21, 0)], TODAY)
    rate_ladder(ladder.pk)
    for url in pages(ladder):
        now = Client().get(url).content
        if "k5" in url or url.startswith(f"/ladders/{ladder.slug}/"):  # they show the match
            assert now != kept[url], url
        assert now == fresh(url), url  # the new numbers, exactly as if nothing were kept


def test_a_rename_shows_at_once(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    for url in [*pages(ladder), "/players/k0/"]:
        Client().get(url)
    players[0].display_name = "Renamed Zero"
    players[0].save()
    account_saved(players[0], ["display_name"])  # as the profile page does
    for url in (f"/ladders/{ladder.slug}/", "/players/k0/"):
        assert "Renamed Zero" in text_of(Client().get(url).content.decode()), url


def test_hidden_members_never_reach_visitors_through_the_cache(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    for url in [*pages(ladder), "/players/k3/"]:
        Client().get(url)  # every page kept while player 3 is public
    assert "Kept Player 3" in text_of(Client().get(f"/ladders/{ladder.slug}/").content.decode())
    membership = Membership.objects.get(ladder=ladder, user=players[3])
    membership.is_public = False
    save_membership(membership, update_fields=["is_public"])
    # Members who may see more look first: their pages must not become the visitors'.
    hidden_self = Client()
    hidden_self.force_login(players[3])
    assert hidden_self.get("/players/k3/").status_code == 200
    assert "Kept Player 3" in hidden_self.get(f"/ladders/{ladder.slug}/").content.decode()
    for url in [*pages(ladder), "/players/k3/"]:
        response = Client().get(url)
        if url == "/players/k3/":
            assert response.status_code == 404
            continue
        assert "Kept Player 3" not in text_of(response.content.decode()), url
    h2h = Client().get(f"/ladders/{ladder.slug}/head-to-head/?a=k3&b=k0")
    assert "Kept Player 3" not in h2h.content.decode()


def test_members_pages_are_never_the_kept_visitors_page(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    url = f"/ladders/{ladder.slug}/"
    visitor_page = Client().get(url).content
    signed_in = Client()
    signed_in.force_login(players[1])
    mine = signed_in.get(url)
    assert mine.content != visitor_page  # their name in the navigation, their row marked
    assert "private" in mine["Cache-Control"]
    assert Client().get(url).content == visitor_page


@pytest.fixture
def api_club(club):  # type: ignore[no-untyped-def]
    ladder, players = club
    membership = Membership.objects.get(ladder=ladder, user=players[2])
    membership.is_public = False
    save_membership(membership, update_fields=["is_public"])
    return ladder, players


def names(client: APIClient, slug: str) -> list[str]:
    response = client.get(f"/api/v1/ladders/{slug}/leaderboard/")
    assert response.status_code == 200
    return [row["name"] for row in response.json()["results"]]


def test_api_leaderboard_is_cached_per_kind_of_viewer(
    api_club, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    ladder, players = api_club
    hidden = APIClient()
    hidden.force_authenticate(players[2])
    assert "Kept Player 2" in names(hidden, ladder.slug)  # their own hidden row
    other = APIClient()
    other.force_authenticate(players[1])
    assert "Kept Player 2" not in names(other, ladder.slug)
    assert "Kept Player 2" not in names(APIClient(), ladder.slug)
    with django_assert_max_num_queries(3):  # ladder, moderator check, own membership
        again = names(other, ladder.slug)
    assert "Kept Player 2" not in again
    assert "Kept Player 2" in names(hidden, ladder.slug)


def test_api_leaderboard_shows_a_rating_change_at_once(api_club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = api_club
    client = APIClient()
    url = f"/api/v1/ladders/{ladder.slug}/leaderboard/"
    before = client.get(url).json()
    play(ladder, [players[5]], [players[0]], [(21, 0), (21, 0)], TODAY)
    rate_ladder(ladder.pk)
    after = client.get(url).json()
    assert after != before
    caches["leaderboard"].clear()
    assert client.get(url).json() == after  # what the database gives
