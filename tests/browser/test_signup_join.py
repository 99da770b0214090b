"""In Chromium: sign up, log out, log in, and join a ladder with a self-assessment."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from accounts.models import User
from ladder.clubs.models import Membership
from tests.browser.support import log_out
from tests.factories import LadderFactory

PASSWORD = "a-long-and-unusual-pass-42"

pytestmark = pytest.mark.browser


@pytest.fixture
def singles(transactional_db):
    return LadderFactory(name="Club Singles", slug="singles", description="Weekly singles.")


@pytest.fixture
def viewport(journeys):  # type: ignore[no-untyped-def]
    """Every journey here on a phone (390×844) and a desktop (1280×800) screen."""
    return journeys


def test_sign_up_log_out_log_in_and_join(new_page, live_server, screenshot, singles):
    page = new_page()

    page.goto("/accounts/signup/")
    page.get_by_label("Your name").fill("Dana Scully")
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Email address").fill("dana@example.org")
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="Check your inbox")).to_be_visible()
    assert not User.objects.get(username="dana").is_active
    (message,) = mail.outbox
    link = re.search(r"(/accounts/signup/confirm/\S+/)", message.body).group(1)
    page.goto(link)
    page.get_by_label("New password", exact=True).fill(PASSWORD)
    page.get_by_label("New password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Confirm my account").click()
    expect(page).to_have_url(re.compile(r"/ladders/$"))
    expect(page.get_by_text("Welcome, Dana Scully!")).to_be_visible()
    assert User.objects.filter(username="dana").exists()

    nav = page.get_by_role("navigation")
    log_out(page)
    expect(nav.get_by_role("link", name="Log in")).to_be_visible()
    assert not nav.get_by_role("button", name="Log out").count()

    nav.get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Hello, Dana Scully")).to_be_visible()

    nav.get_by_role("link", name="Ladders", exact=True).click()
    card = page.locator("article", has_text="Club Singles")
    card.get_by_role("link", name="Join").click()  # HTMX swaps the form into the card
    card.get_by_label("Your level").select_option("4.5")
    card.get_by_label("I play regularly").check()
    card.get_by_role("button", name="Join Club Singles").click()
    expect(card.get_by_text("✓ Member")).to_be_visible()
    expect(card.get_by_text("You start at 4.50 ± 0.20.")).to_be_visible()
    expect(card.locator("#members-singles")).to_have_text("1")
    assert page.url.endswith("/ladders/")  # joined in place, no page load

    membership = Membership.objects.get(user__username="dana", ladder=singles)
    assert (membership.initial_rating, membership.initial_rd) == (4500, 200)
    assert membership.self_certainty == "regular"
    screenshot(page, "signup_join")

    page.goto("/ladders/singles/")
    expect(page.get_by_role("heading", name="You're a member")).to_be_visible()
    screenshot(page, "ladder_page_member")


def test_join_works_without_javascript(browser, live_server, screenshot, singles):
    User.objects.create_user("erin", "erin@example.org", PASSWORD)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto("/accounts/login/?next=/ladders/singles/")
        page.get_by_label("Username").fill("erin")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_role("heading", name="Join this ladder")).to_be_visible()

        page.get_by_label("Your level").select_option("5.5")
        page.get_by_label("I have a rating from league or tournament play").check()
        page.get_by_role("button", name="Join Club Singles").click()
        expect(
            page.get_by_text("Welcome to Club Singles! You start at 5.50 ± 0.15.")
        ).to_be_visible()
        screenshot(page, "join_without_js")
    finally:
        context.close()

    membership = Membership.objects.get(user__username="erin", ladder=singles)
    assert (membership.initial_rating, membership.initial_rd) == (5500, 150)
