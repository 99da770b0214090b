"""Seasons and time away by phone (390 px) in Chromium, on the demo club: the current
season's table on the ladder page, the archive, a moderator adding a season, a member
marking themselves away and back; every tap target of these forms at least 44 px, nothing
sideways at 360 px, axe clean."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from ladder.clubs.models import Membership
from ratings.models import Season
from tests.browser.test_phone import MEMBER, MODERATOR, NARROWEST, PHONE, axe, log_in, sideways

pytestmark = pytest.mark.browser
__all__ = ["axe"]  # the fixture, shared with test_phone

TARGET = 44  # px: the smallest tap target these pages offer


@pytest.fixture
def demo(transactional_db):  # type: ignore[no-untyped-def]
    call_command("seed_demo", force=True, stdout=io.StringIO())


@pytest.fixture
def viewport():  # type: ignore[no-untyped-def]
    return PHONE


def small_targets(page, selector: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The visible controls under ``selector`` shorter than TARGET px."""
    return page.evaluate(
        """([selector, least]) => [...document.querySelectorAll(selector)]
            .filter(e => e.offsetParent !== null)
            .map(e => [e, e.getBoundingClientRect()])
            .filter(([e, r]) => r.height < least)
            .map(([e, r]) => `${e.tagName.toLowerCase()} ${e.name || e.textContent.trim()}: ${r.height}px`)""",
        [selector, TARGET],
    )


def check(page, axe) -> None:  # type: ignore[no-untyped-def]
    assert sideways(page) is None
    assert axe(page) == []
    page.set_viewport_size({"width": NARROWEST, "height": PHONE["height"]})
    assert sideways(page) is None
    page.set_viewport_size(PHONE)


def test_a_member_sees_the_season_and_goes_away_and_back(page, demo, axe, screenshot):  # type: ignore[no-untyped-def]
    log_in(page, MEMBER)
    page.goto("/ladders/singles/")
    card = page.locator("#season")
    current = Season.objects.filter(ladder__slug="singles").order_by("-starts_on").first()
    expect(card.get_by_role("heading", name=current.name)).to_be_visible()
    expect(card.locator("table.season-table tbody tr")).to_have_count(10)
    check(page, axe)

    today = timezone.localdate()
    until = today + timedelta(days=9)
    form = page.locator("form.away-form")
    assert (
        small_targets(page, ".away-form button, .away-form input, .season-card .card-links a") == []
    )
    form.get_by_label("Away until").fill(until.isoformat())
    form.get_by_role("button", name="Mark me away").click()
    shown = f"{until.day} {until.strftime('%b')} {until.year}"
    expect(page.get_by_text(f"You are away on Singles until {shown}.")).to_be_visible()
    expect(
        page.locator("#leaderboard .tag.away", has_text=f"Away until {shown}").first
    ).to_be_visible()
    assert Membership.objects.get(ladder__slug="singles", user__username=MEMBER).away_until == until
    screenshot(page, "away-phone")
    page.get_by_role("button", name="I'm back").click()
    expect(page.get_by_text("Welcome back")).to_be_visible()
    assert Membership.objects.get(ladder__slug="singles", user__username=MEMBER).away_until is None

    page.get_by_role("link", name="The whole table").click()
    expect(page.get_by_role("heading", name=current.name, level=1)).to_be_visible()
    check(page, axe)
    page.get_by_role("link", name="Seasons").last.click()
    archived = Season.objects.filter(ladder__slug="singles").order_by("starts_on").first()
    page.get_by_role("link", name=re.compile(archived.name)).click()
    expect(page.get_by_text("the table as it stood on")).to_be_visible()
    assert page.locator("table.season-table tbody tr").count() > 5
    check(page, axe)
    screenshot(page, "season-archived-phone")


def test_a_moderator_adds_a_season_and_an_overlap_is_refused(page, demo, axe, screenshot):  # type: ignore[no-untyped-def]
    log_in(page, MODERATOR)
    page.goto("/ladders/singles/seasons/")
    current = Season.objects.filter(ladder__slug="singles").order_by("-starts_on").first()
    assert (
        small_targets(page, ".season-form button, .season-form input, .season-list .button") == []
    )
    check(page, axe)

    def add(name: str, slug: str, first, last) -> None:  # type: ignore[no-untyped-def]
        page.get_by_label("Name").fill(name)
        page.get_by_label("Slug").fill(slug)
        page.get_by_label("First day").fill(first.isoformat())
        page.get_by_label("Last day").fill(last.isoformat())
        page.get_by_role("button", name="Add the season").click()

    add("Clash", "clash", current.ends_on, current.ends_on + timedelta(days=30))
    expect(page.get_by_role("alert")).to_contain_text(f"These days overlap {current.name}")
    assert not Season.objects.filter(slug="clash").exists()
    check(page, axe)
    screenshot(page, "season-refused-phone")
    first = current.ends_on + timedelta(days=1)
    add("Winter league", "winter-league", first, first + timedelta(days=60))
    expect(page.get_by_text("Winter league is saved")).to_be_visible()
    expect(page.locator("a.season-link", has_text="Winter league")).to_be_visible()
    assert Season.objects.filter(ladder__slug="singles", slug="winter-league").exists()
