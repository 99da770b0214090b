"""Visitor pages that caches can keep (issue 17 #1): no cookie, an ETag built from what the
page shows, 304 for a repeat, public for a short while; members' pages stay private."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.signals import account_saved
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import save_membership
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory
from tests.ratings.pages_support import TODAY, member, play, season, text_of

PASSWORD = "correct-horse-battery-9"


@pytest.fixture(autouse=True, params=["full path", "answered early"])
def _either_way(request, settings):  # type: ignore[no-untyped-def]
    """Every test twice: the views alone, and with VisitorPageMiddleware answering repeats."""
    settings.VISITOR_PAGES_EARLY = request.param == "answered early"


@pytest.fixture
def club(db):  # type: ignore[no-untyped-def]
    ladder = LadderFactory(name="Open club", slug="open")
    players = [member(ladder, f"v{i}", display_name=f"Visitor Seen {i}") for i in range(6)]
    season(ladder, players, 10)
    return ladder, players


def pages(ladder: Ladder) -> list[str]:
    return [
        "/",
        "/ladders/",
        f"/ladders/{ladder.slug}/",
        f"/ladders/{ladder.slug}/?status=ranked",
        "/players/v1/",
        f"/ladders/{ladder.slug}/head-to-head/?a=v1&b=v2",
    ]


def test_every_visitor_page_is_public_sets_no_cookie_and_answers_304(club) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    for url in pages(ladder):
        visitor = Client()
        first = visitor.get(url)
        assert first.status_code == 200, url
        assert not first.cookies, (url, first.cookies)
        assert "Set-Cookie" not in first.headers, url
        assert "public" in first["Cache-Control"] and "max-age=30" in first["Cache-Control"], url
        assert "Cookie" in first["Vary"], url
        etag = first["ETag"]
        assert etag.startswith('"') and len(etag) > 10, url

        again = Client().get(url, headers={"If-None-Match": etag})
        assert again.status_code == 304, url
        assert again.content == b""
        assert again["ETag"] == etag

        stale = Client().get(url, headers={"If-None-Match": '"something-else"'})
        assert stale.status_code == 200, url
        assert stale.content == first.content, url


def test_each_address_and_fragment_has_its_own_etag(club) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    tags = {Client().get(url)["ETag"] for url in pages(ladder)}
    assert len(tags) == len(pages(ladder))
    url = f"/ladders/{ladder.slug}/"
    fragment = Client().get(url, headers={"HX-Request": "true", "HX-Target": "leaderboard"})
    assert fragment["ETag"] not in tags
    assert b"<html" not in fragment.content  # the fragment, not the page
    assert "HX-Request" in fragment["Vary"]


def test_a_rating_change_changes_the_etag_at_once(client, club) -> None:  # type: ignore[no-untyped-def]
    """The ETag is the content's: a page that shows the change is sent again at once, one
    that does not (home, the list, an empty filter) stays 304."""
    ladder, players = club
    before = {url: Client().get(url) for url in pages(ladder)}
    play(ladder, [players[5]], [players[0]], [(21, 0), (21, 0)], TODAY)
    rate_ladder(ladder.pk)
    changed = []
    for url in pages(ladder):
        response = Client().get(url, headers={"If-None-Match": before[url]["ETag"]})
        if response.status_code == 200:
            assert response.content != before[url].content, url
            assert response["ETag"] != before[url]["ETag"], url
            changed.append(url)
        else:
            assert response.status_code == 304, url
            assert Client().get(url).content == before[url].content, url
    assert f"/ladders/{ladder.slug}/" in changed


def test_a_rename_and_a_hidden_member_change_the_etag(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    url = f"/ladders/{ladder.slug}/"
    tag = Client().get(url)["ETag"]
    players[3].display_name = "Someone Else"
    players[3].save()
    account_saved(players[3], ["display_name"])  # as the profile page does
    renamed = Client().get(url, headers={"If-None-Match": tag})
    assert renamed.status_code == 200
    assert "Someone Else" in text_of(renamed.content.decode())
    membership = Membership.objects.get(ladder=ladder, user=players[4])
    membership.is_public = False
    save_membership(membership, update_fields=["is_public"])
    hidden = Client().get(url, headers={"If-None-Match": renamed["ETag"]})
    assert hidden.status_code == 200
    assert "Visitor Seen 4" not in text_of(hidden.content.decode())


def test_a_new_public_ladder_changes_the_list(club) -> None:  # type: ignore[no-untyped-def]
    tag = Client().get("/ladders/")["ETag"]
    LadderFactory(name="Second club", slug="second")
    response = Client().get("/ladders/", headers={"If-None-Match": tag})
    assert response.status_code == 200
    assert "Second club" in response.content.decode()


def test_members_pages_are_private_with_no_etag(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    visitor_tags = {url: Client().get(url)["ETag"] for url in pages(ladder)}
    signed_in = Client()
    signed_in.force_login(players[0])
    for url in pages(ladder):
        response = signed_in.get(url, headers={"If-None-Match": visitor_tags[url]})
        assert response.status_code == 200, url  # never the visitor's page
        assert "ETag" not in response, url
        assert "private" in response["Cache-Control"], url
        assert "public" not in response["Cache-Control"], url


def test_a_visitor_with_a_cookie_gets_a_private_page(club) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    url = f"/ladders/{ladder.slug}/"
    tag = Client().get(url)["ETag"]
    with_cookie = Client()
    with_cookie.cookies["messages"] = "something"
    response = with_cookie.get(url, headers={"If-None-Match": tag})
    assert response.status_code == 200
    assert "ETag" not in response
    assert "private" in response["Cache-Control"]


def test_private_ladders_and_unknown_players_are_not_cached(db) -> None:  # type: ignore[no-untyped-def]
    ladder = LadderFactory(name="Closed", slug="closed", is_public=False)
    member(ladder, "secret")
    for url in ("/ladders/closed/", "/ladders/closed/head-to-head/", "/players/nobody/"):
        response = Client().get(url)
        assert response.status_code == 404, url
        assert "ETag" not in response, url
        assert "public" not in response.get("Cache-Control", ""), url


def test_a_login_page_still_sets_its_csrf_cookie(db) -> None:  # type: ignore[no-untyped-def]
    """Forms keep their CSRF cookie: only the pages without a form lost it."""
    response = Client().get("/accounts/login/")
    assert "csrftoken" in response.cookies


def test_a_visitor_can_still_log_in_after_browsing(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    browser = Client(enforce_csrf_checks=True)
    browser.get(f"/ladders/{ladder.slug}/")
    form = browser.get("/accounts/login/")
    token = form.cookies["csrftoken"].value
    response = browser.post(
        "/accounts/login/",
        {"username": players[0].username, "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302
