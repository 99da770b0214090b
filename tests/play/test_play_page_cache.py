"""Issue 25 under the page cache (ladder/pagecache.py): the pages that show seasons, time
away, challenges and open games never serve what was true before a change. A visitor's page
is kept under the epoch, which every change to what it shows replaces (ratings.pipeline's
bump_board: a rating run, a membership's time away, a season's save); the play pages and
the calendar feed are a member's own and are never kept.

Every test runs twice: the views alone, and with the kept pages answered early."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.core.cache import caches
from django.test import Client
from icalendar import Calendar

from ladder.clubs.services import set_away
from ladder.matches import operations as matches
from ladder.matches.validation import Report
from ladder.play import services as play
from ladder.play.models import CalendarFeed, Challenge
from ratings.models import Season
from ratings.pipeline import rate_ladder
from ratings.upkeep import save_season
from tests.matches.support import api_client, report_payload
from tests.play.support import soon, started

TODAY = date.today()


@pytest.fixture(autouse=True, params=["full path", "answered early"])
def _either_way(request, settings):  # type: ignore[no-untyped-def]
    settings.VISITOR_PAGES_EARLY = request.param == "answered early"
    caches["leaderboard"].clear()
    caches["default"].clear()  # the throttles' history


def visitor(url: str) -> str:
    response = Client().get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def fresh(url: str) -> str:
    """The page as the database gives it now (nothing kept)."""
    caches["leaderboard"].clear()
    return visitor(url)


def current_season(ladder) -> Season:  # type: ignore[no-untyped-def]
    return save_season(
        Season(
            ladder=ladder,
            name="Winter",
            slug="winter",
            starts_on=TODAY - timedelta(days=10),
            ends_on=TODAY + timedelta(days=20),
        )
    )


def test_a_new_season_shows_at_once_on_the_kept_ladder_page(ladder, alice, bob) -> None:
    before = visitor("/ladders/singles/")
    assert 'id="season"' not in before
    assert visitor("/ladders/singles/") == before  # kept (or built again: the same)
    current_season(ladder)
    after = visitor("/ladders/singles/")
    assert 'id="season"' in after and "Winter" in after
    assert after == fresh("/ladders/singles/")


def test_time_away_shows_at_once_on_the_kept_board_and_player_page(ladder, alice, bob) -> None:
    played = matches.report_match(
        Report(
            ladder=ladder,
            reporter=alice,
            played_on=TODAY - timedelta(days=3),
            side_a=[alice],
            side_b=[bob],
            games=[(21, 15), (21, 18)],
        )
    )
    matches.confirm_match(played, bob)
    rate_ladder(ladder.pk)  # both on the board
    pages = ["/ladders/singles/", "/players/bob/?ladder=singles"]
    for url in pages:
        assert "Away until" not in visitor(url)
    until = TODAY + timedelta(days=5)
    set_away(bob, ladder, until)
    for url in pages:
        now = visitor(url)
        assert "Away until" in now, url
        assert now == fresh(url), url
    set_away(bob, ladder, None)
    for url in pages:
        assert "Away until" not in visitor(url), url


def test_a_challenge_played_counts_in_the_kept_season_table_at_once(  # type: ignore[no-untyped-def]
    ladder, alice, bob, client
) -> None:
    season = current_season(ladder)
    table_url = season.get_absolute_url()
    standings = f"/api/v1/ladders/singles/seasons/{season.slug}/standings/"
    kept = {url: visitor(url) for url in ("/ladders/singles/", table_url)}
    assert Client().get(standings).json() == []

    as_alice, as_bob = api_client(alice), api_client(bob)
    made = as_alice.post(
        "/api/v1/ladders/singles/challenges/",
        {"opponents": ["bob"], "proposed_times": [soon(1).isoformat()]},
        format="json",
    ).json()
    feed = CalendarFeed.objects.create(user=bob).get_absolute_url()
    assert Calendar.from_ical(Client().get(feed).content).walk("VEVENT") == []  # not yet
    accepted = as_bob.post(
        f"/api/v1/challenges/{made['id']}/accept/", {"time": soon(1).isoformat()}, format="json"
    )
    assert accepted.json()["state"] == "scheduled"
    # The feed (its secret, no session) is never kept: the event is there at once.
    events = Calendar.from_ical(Client().get(feed).content).walk("VEVENT")
    assert [str(e["UID"]).split("@")[0] for e in events] == [f"challenge-{made['id']}"]
    started(Challenge.objects.get(pk=made["id"]))
    reported = as_alice.post(
        "/api/v1/matches/",
        report_payload(ladder, [alice], [bob], challenge=made["id"], played_on=TODAY.isoformat()),
        format="json",
    )
    assert reported.status_code == 201, reported.json()
    assert as_bob.post(f"/api/v1/matches/{reported.json()['id']}/confirm/").status_code == 200
    rate_ladder(ladder.pk)  # what the worker does after the confirmation

    assert as_alice.get(f"/api/v1/challenges/{made['id']}/").json()["state"] == "played"
    rows = {r["username"]: r for r in Client().get(standings).json()}
    assert (rows["alice"]["matches"], rows["alice"]["wins"], rows["alice"]["losses"]) == (1, 1, 0)
    assert (rows["bob"]["matches"], rows["bob"]["wins"], rows["bob"]["losses"]) == (1, 0, 1)
    for url, before in kept.items():
        now = visitor(url)
        assert now != before, url
        assert now == fresh(url), url
        assert "Alice Archer" in now and "1–0" in now, url


def test_the_play_pages_and_answers_are_never_kept(ladder, alice, bob, charlie) -> None:
    game = play.post_open_game(ladder=ladder, by=alice, starts_at=soon(2), place="Court 1")
    signed_in = Client()
    signed_in.force_login(bob)
    page = signed_in.get("/ladders/singles/open-games/")
    assert "private" in page.get("Cache-Control", "private") and "ETag" not in page
    listed = api_client(bob).get("/api/v1/ladders/singles/open-games/").json()
    assert [len(g["players"]) for g in listed] == [1]
    play.join_open_game(game, charlie)
    assert "Charlie" in signed_in.get("/ladders/singles/open-games/").content.decode()
    listed = api_client(bob).get("/api/v1/ladders/singles/open-games/").json()
    assert [len(g["players"]) for g in listed] == [2]
    assert Client().get("/challenges/").status_code == 302  # to log in, never a kept page
