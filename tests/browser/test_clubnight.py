"""In Chromium: a doubles club night. Tick nine players (with the live search), get two
matches and a bye, take the next round, and report one proposed match from its link.
Screenshot: club_night (looked at)."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from ladder.clubnight.models import ClubNight
from ladder.matches.models import Match
from tests.browser.support import ladder_with, log_in

pytestmark = pytest.mark.browser

HALL = [
    ("alice", "Alice Archer", "5.5"),
    ("bob", "Bob Baker", "5.0"),
    ("charlie", "Charlie Chen", "4.5"),
    ("dave", "Dave Dunn", "4.0"),
    ("erin", "Erin Evans", "5.0"),
    ("frank", "Frank Fischer", "3.5"),
    ("grace", "Grace Green", "4.5"),
    ("heidi", "Heidi Hart", "6.0"),
    ("ivan", "Ivan Ito", "3.0"),
]


@pytest.fixture
def club(transactional_db):  # type: ignore[no-untyped-def]
    """A doubles ladder with the nine in the hall and two members who stayed home."""
    stayed_home = [("judy", "Judy Jones", "4.0"), ("ken", "Ken Kim", "")]
    return ladder_with([*HALL, *stayed_home], name="Club Doubles", slug="doubles", team_size=2)


def sides(rnd: dict) -> set[frozenset[str]]:
    return {frozenset(m[side]) for m in rnd["matches"] for side in ("side_a", "side_b")}


@pytest.fixture
def viewport(journeys):  # type: ignore[no-untyped-def]
    """Every journey here on a phone (390×844) and a desktop (1280×800) screen."""
    return journeys


def test_club_night_two_rounds_and_a_report(page, screenshot, club):  # type: ignore[no-untyped-def]
    log_in(page, "alice")
    page.goto("/ladders/doubles/")
    page.get_by_role("link", name="Run a club night").click()
    expect(page.get_by_role("heading", name=re.compile("^Club night"))).to_be_visible()

    # The live search narrows the list without a page load; ticking counts.
    search = page.get_by_placeholder("Find a member…")
    search.fill("gre")
    expect(page.locator("#present-list li:visible")).to_have_count(1)
    page.get_by_label(re.compile("Grace Green")).check()
    search.fill("")
    expect(page.locator("#present-list li:visible")).to_have_count(11)
    for _, name, _ in HALL:
        page.get_by_label(re.compile(name)).check()
    expect(page.locator("[data-count]")).to_have_text("9")
    expect(page.locator("[data-summary]")).to_have_text("· 2 matches, 1 sits out")
    # Fewer courts than matches: the count says the courts' limit (issue 37, "Why" 6).
    courts = page.get_by_label("Courts")
    courts.fill("1")
    expect(page.locator("[data-summary]")).to_have_text("· 1 court: 4 play, 5 sit out")
    courts.fill("2")
    expect(page.locator("[data-summary]")).to_have_text("· 2 matches, 1 sits out")
    courts.fill("")
    expect(page.locator("[data-summary]")).to_have_text("· 2 matches, 1 sits out")

    page.get_by_role("button", name="Propose a round").click()
    rounds = page.locator("#rounds")
    expect(rounds.get_by_role("heading", name="Round 1")).to_be_visible()
    expect(rounds.locator(".proposed-match")).to_have_count(2)
    expect(rounds.locator(".byes")).to_have_count(1)
    expect(rounds.locator(".proposed-match").first).to_contain_text("Quality 0.")
    expect(rounds.locator(".proposed-match").first).to_contain_text("% –")
    first = ClubNight.objects.get().rounds[0]

    rounds.get_by_role("button", name="Next round").click()
    expect(rounds.get_by_role("heading", name="Round 2")).to_be_visible()
    expect(rounds.locator(".round").first.locator(".proposed-match")).to_have_count(2)
    night = ClubNight.objects.get()
    assert len(night.rounds) == 2
    second = night.rounds[1]
    assert second["byes"] != first["byes"]  # the bye rotates
    assert sides(first).isdisjoint(sides(second))  # no partnership again
    page.get_by_role("heading", name=re.compile("^Club night")).scroll_into_view_if_needed()
    screenshot(page, "club_night")

    # Alice reports one of her proposed matches (the latest round she plays in).
    link = page.get_by_role("link", name="Report this match").first
    query = parse_qs(urlsplit(link.get_attribute("href")).query)
    side_a, side_b = query["side_a"][0].split(","), query["side_b"][0].split(",")
    assert side_a[0] == "alice"
    link.click()
    expect(page.get_by_role("heading", name="Report a match")).to_be_visible()
    slots = {
        "Your partner": side_a[1],
        "Opponent 1": side_b[0],
        "Opponent 2": side_b[1],
    }
    for label, username in slots.items():  # filled in from the link
        expect(page.get_by_label(label, exact=True)).to_have_value(username)
    page.get_by_label("Game 1: your side").fill("21")
    page.get_by_label("Game 1: opponents").fill("15")
    page.get_by_label("Game 2: your side").fill("21")
    page.get_by_label("Game 2: opponents").fill("18")
    page.get_by_role("button", name="Report match").last.click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))

    match = Match.objects.with_details().get()
    assert match.state == "pending"
    assert [u.username for u in match.side_a_players] == side_a
    assert [u.username for u in match.side_b_players] == side_b


def test_everyone_from_last_time_and_start_over(page, club):  # type: ignore[no-untyped-def]
    ClubNight.objects.create(
        ladder=club,
        date=timezone.localdate() - timedelta(days=7),
        present=["alice", "bob", "charlie", "dave", "erin"],
    )
    log_in(page, "alice")
    page.goto("/ladders/doubles/club-night/")
    expect(page.locator("[data-count]")).to_have_text("0")
    page.get_by_role("link", name="Everyone from the last club night").click()
    expect(page.locator("[data-count]")).to_have_text("5")
    expect(page.locator("[data-summary]")).to_have_text("· 1 match, 1 sits out")
    expect(page.get_by_label(re.compile("Erin Evans"))).to_be_checked()
    page.get_by_role("button", name="Propose a round").click()
    expect(page.locator("#rounds .proposed-match")).to_have_count(1)

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Start over").click()
    expect(page.get_by_role("button", name="Propose a round")).to_be_visible()
    expect(page.locator("#rounds .proposed-match")).to_have_count(0)
    assert ClubNight.objects.get(date=timezone.localdate()).rounds == []
