"""Issue 37, "Why" 6, in Chromium on a phone (390 px): "Propose other times" (a challenge to
answer) and "The chart as a table" (a player's page) read as plain text. They are
disclosures that look like secondary buttons with a chevron that turns when open, reached
by Tab, opened by Enter, and at least 44 px tall. Screenshots: disclosure_challenge,
disclosure_chart (looked at)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from ladder.play import services
from ratings.pipeline import rate_ladder
from tests.browser.support import ladder_with, log_in
from tests.play.support import soon
from tests.ratings.pages_support import play

pytestmark = pytest.mark.browser


@pytest.fixture
def viewport():  # type: ignore[no-untyped-def]
    return {"width": 390, "height": 844}


@pytest.fixture
def club(transactional_db):  # type: ignore[no-untyped-def]
    return ladder_with(
        [("alice", "Alice Archer", "4.5"), ("bob", "Bob Baker", "4.5")],
        name="Club Singles",
        slug="singles",
    )


def reads_as_a_control(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """The disclosure ``name``: a button's look (a filled background, a chevron), 44 px
    tall, in the Tab order; Enter opens it and the chevron turns."""
    summary = page.locator("summary", has_text=name)
    looks = summary.evaluate(
        """s => {
            const box = s.getBoundingClientRect(), style = getComputedStyle(s);
            const chevron = getComputedStyle(s, '::after');
            return {height: box.height, background: style.backgroundColor,
                    tabIndex: s.tabIndex, chevron: chevron.content !== 'none' && chevron.borderRightStyle !== 'none',
                    turn: chevron.transform};
        }"""
    )
    assert looks["height"] >= 44, looks
    assert looks["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), looks
    assert looks["tabIndex"] == 0 and looks["chevron"], looks
    closed_turn = looks["turn"]
    summary.focus()
    page.keyboard.press("Enter")
    expect(summary.locator("xpath=..")).to_have_attribute("open", "")
    open_turn = summary.evaluate("s => getComputedStyle(s, '::after').transform")
    assert open_turn != closed_turn


def test_propose_other_times_reads_as_a_button(new_page, club, screenshot) -> None:  # type: ignore[no-untyped-def]
    alice, bob = (club.memberships.get(user__username=n).user for n in ("alice", "bob"))
    services.create_challenge(ladder=club, by=alice, opponents=["bob"], proposed_times=[soon()])
    page = new_page()
    log_in(page, "bob")
    page.goto("/challenges/")
    reads_as_a_control(page, "Propose other times")
    expect(page.get_by_role("button", name="Send these times")).to_be_visible()
    screenshot(page, "disclosure_challenge")


def test_the_chart_as_a_table_reads_as_a_button(new_page, club, screenshot) -> None:  # type: ignore[no-untyped-def]
    alice, bob = (club.memberships.get(user__username=n).user for n in ("alice", "bob"))
    today = timezone.localdate()
    play(club, [alice], [bob], [(21, 15), (21, 17)], today - timedelta(days=3))
    play(club, [bob], [alice], [(21, 19), (21, 18)], today - timedelta(days=1))
    rate_ladder(club.pk)
    page = new_page()
    page.goto("/players/alice/")
    page.locator("summary", has_text="The chart as a table").scroll_into_view_if_needed()
    reads_as_a_control(page, "The chart as a table")
    expect(page.locator(".chart-table table")).to_be_visible()
    screenshot(page, "disclosure_chart")
