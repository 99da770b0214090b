"""Visitors' pages answered by the first middleware (issue 17 item 3): the response the full
path gave, byte for byte and header for header, for no query; never stale (a change replaces
the epoch), never a member's, never a hidden member's; anything else goes the full way."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.signals import account_saved
from core.cache import EPOCH_KEY
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import save_membership
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory
from tests.ratings.pages_support import TODAY, member, play, season, text_of

HTMX = {"HX-Request": "true", "HX-Target": "leaderboard"}


@pytest.fixture
def club(db, settings):  # type: ignore[no-untyped-def]
    settings.VISITOR_PAGES_EARLY = True
    ladder = LadderFactory(name="Early club", slug="early")
    players = [member(ladder, f"e{i}", display_name=f"Early Player {i}") for i in range(6)]
    season(ladder, players, 10)
    return ladder, players


def pages(ladder: Ladder) -> list[str]:
    return [
        "/",
        "/ladders/",
        f"/ladders/{ladder.slug}/",
        f"/ladders/{ladder.slug}/?status=ranked&page=1",
        "/players/e1/",
        "/players/e5/?ladder=early",
        f"/ladders/{ladder.slug}/head-to-head/?a=e5&b=e0",
    ]


def get(url: str, **headers: str) -> tuple[object, int]:
    """A visitor's response (no cookie) and how many queries it took."""
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(url, headers=headers)
    return response, len(queries)


def full_path(url: str, settings, **headers: str):  # type: ignore[no-untyped-def]
    """The response of the views alone (nothing answered early, nothing kept)."""
    settings.VISITOR_PAGES_EARLY = False
    caches["leaderboard"].clear()
    response, _ = get(url, **headers)
    settings.VISITOR_PAGES_EARLY = True
    caches["leaderboard"].clear()
    return response


def test_a_repeat_is_the_full_paths_response_for_no_query(club, settings) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    for url in pages(ladder):
        for headers in ({}, HTMX) if url.startswith("/ladders/early/?") else ({},):
            full = full_path(url, settings, **headers)
            first, built = get(url, **headers)  # not kept yet: the full path, which keeps it
            assert built > 0, url
            again, queries = get(url, **headers)
            assert queries == 0, url
            for response in (first, again):
                assert response.status_code == 200, url
                assert response.content == full.content, url
                assert dict(response.headers) == dict(full.headers), url
                assert not response.cookies, url
            assert "Content-Security-Policy" in again and "X-Frame-Options" in again
            assert "public" in again["Cache-Control"] and "Cookie" in again["Vary"]


def test_a_repeat_with_its_etag_is_the_full_paths_304(club, settings) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    for url in pages(ladder):
        etag = full_path(url, settings)["ETag"]
        settings.VISITOR_PAGES_EARLY = False
        full, _ = get(url, **{"If-None-Match": etag})
        settings.VISITOR_PAGES_EARLY = True
        assert full.status_code == 304, url
        get(url)  # kept
        early, queries = get(url, **{"If-None-Match": etag})
        assert queries == 0
        assert early.status_code == 304, url
        assert early.content == b""
        assert dict(early.headers) == dict(full.headers), url
        other, _ = get(url, **{"If-None-Match": '"another"'})
        assert other.status_code == 200 and other["ETag"] == etag


def test_head_is_answered_early_too(club) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    url = f"/ladders/{ladder.slug}/"
    page, _ = get(url)
    with CaptureQueriesContext(connection) as queries:
        head = Client().head(url)
    assert len(queries) == 0
    assert head.status_code == 200 and head.content == b""
    assert head["ETag"] == page["ETag"]


def test_a_rating_change_shows_at_once(club, settings) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    kept = {url: get(url)[0].content for url in pages(ladder)}
    for url in pages(ladder):
        assert get(url)[1] == 0  # answered early
    play(ladder, [players[5]], [players[0]], [(21, 0), (21, 0)], TODAY)
    rate_ladder(ladder.pk)
    for url in pages(ladder):
        now, queries = get(url)
        assert queries > 0, url  # the epoch changed: the full path, to the database
        if "e5" in url or url == f"/ladders/{ladder.slug}/":  # they show the match
            assert now.content != kept[url], url
        assert now.content == full_path(url, settings).content, url


def test_a_change_in_a_transaction_that_commits_later_is_not_kept_stale(club) -> None:  # type: ignore[no-untyped-def]
    """The epoch is replaced at the change and again at the commit: a page built from the
    data before the commit is not served after it."""
    ladder, players = club
    url = f"/ladders/{ladder.slug}/"
    get(url)
    epochs = []
    with transaction.atomic():
        players[2].display_name = "Renamed Mid Way"
        players[2].save()
        account_saved(players[2], ["display_name"])  # as the profile page does
        epochs.append(caches["leaderboard"].get(EPOCH_KEY))
    epochs.append(caches["leaderboard"].get(EPOCH_KEY))
    assert None not in epochs
    # In the test's own transaction the commit is the test's end; the change's own
    # replacement is what shows here.
    assert "Renamed Mid Way" in text_of(get(url)[0].content.decode())


def test_hidden_members_and_names_never_reach_visitors(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    for url in [*pages(ladder), "/players/e3/"]:
        get(url)
        assert get(url)[1] == 0
    membership = Membership.objects.get(ladder=ladder, user=players[3])
    membership.is_public = False
    save_membership(membership, update_fields=["is_public"])
    assert get("/players/e3/")[0].status_code == 404
    for url in pages(ladder):
        assert "Early Player 3" not in text_of(get(url)[0].content.decode()), url
    players[4].display_name = "New Name Four"
    players[4].save()
    account_saved(players[4], ["display_name"])  # as the profile page does
    assert "New Name Four" in text_of(get(f"/ladders/{ladder.slug}/")[0].content.decode())


def test_a_ladder_made_private_is_gone_at_once(club) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    url = f"/ladders/{ladder.slug}/"
    get(url)
    assert get(url)[1] == 0
    ladder.is_public = False
    ladder.save()
    assert get(url)[0].status_code == 404
    assert "Early club" not in get("/ladders/")[0].content.decode()


def test_signed_in_members_and_visitors_with_a_cookie_go_the_full_way(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    url = f"/ladders/{ladder.slug}/"
    visitor, _ = get(url)
    assert get(url)[1] == 0
    signed_in = Client()
    signed_in.force_login(players[1])
    mine = signed_in.get(url, headers={"If-None-Match": visitor["ETag"]})
    assert mine.status_code == 200
    assert mine.content != visitor.content and "ETag" not in mine
    assert "private" in mine["Cache-Control"]
    with_cookie = Client()
    with_cookie.cookies["csrftoken"] = "x" * 32
    theirs = with_cookie.get(url)
    assert "ETag" not in theirs and "private" in theirs["Cache-Control"]
    token = Client().get(url, headers={"Authorization": "Token abc"})
    assert "ETag" not in token and "private" in token["Cache-Control"]
    assert get(url)[0].content == visitor.content  # still the visitors' page


def test_a_lost_epoch_is_a_miss_and_others_fall_through(club, settings) -> None:  # type: ignore[no-untyped-def]
    ladder, _ = club
    url = f"/ladders/{ladder.slug}/"
    get(url)
    caches["leaderboard"].delete(EPOCH_KEY)  # the cache restarted, say
    response, queries = get(url)
    assert queries > 0 and response.status_code == 200
    assert get(url)[1] == 0  # kept again under the new epoch
    # Not visitor pages: the login page (its CSRF cookie), a POST, an unknown host.
    login = Client().get("/accounts/login/")
    assert "csrftoken" in login.cookies
    assert Client().post(url).status_code == 405
    assert Client().get(url, headers={"Host": "evil.example"}).status_code == 400
    settings.LEADERBOARD_CACHE_SECONDS = 0  # no cache at all: every page built
    assert get(url)[1] > 0
