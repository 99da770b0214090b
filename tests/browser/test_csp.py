"""The Content-Security-Policy holds on the site's pages and on the API docs (new_page fails
the test on any violation Chromium reports)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_api_docs_render_under_their_policy(page, csp_expected) -> None:  # type: ignore[no-untyped-def]
    # Redoc's "API docs by Redocly" badge is an image on its CDN: the site is served
    # offline, so the policy refusing it is what should happen.
    csp_expected.append("https://cdn.redoc.ly/")
    page.goto("/api/docs/")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "Club ladder API" in page.inner_text(".swagger-ui .info .title")
    assert page.locator(".opblock").count() > 10

    page.goto("/api/redoc/")
    page.wait_for_selector("h1")
    assert "Club ladder API" in page.inner_text("h1")
    page.get_by_placeholder("Search...").fill("token")
    page.wait_for_selector("[role=search] li, .search-results li, [data-role='search:results'] li")


def test_a_page_sends_the_policy(page, live_server) -> None:  # type: ignore[no-untyped-def]
    response = page.goto("/accounts/login/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy


def test_the_browsable_api_keeps_the_policy(new_page, live_server, transactional_db) -> None:  # type: ignore[no-untyped-def]
    """Issue 23, bug 8: DRF's pages inlined a <style> and floated buttons with style
    attributes; new_page fails the test on any violation Chromium reports."""
    from django.utils import timezone

    from ladder.matches.operations import report_match
    from ladder.matches.validation import Report
    from tests.factories import PASSWORD, LadderFactory, MembershipFactory, UserFactory

    ladder = LadderFactory(name="Singles", slug="singles")
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    for user in (alice, bob):
        MembershipFactory(ladder=ladder, user=user)
    match = report_match(
        Report(
            ladder=ladder,
            reporter=alice,
            played_on=timezone.localdate(),
            side_a=[alice],
            side_b=[bob],
            games=[(21, 15), (21, 18)],
        )
    )
    page = new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("bob")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    for url in ("/api/v1/ladders/", f"/api/v1/matches/{match.pk}/", "/api/v1/inbox/"):
        response = page.goto(url)
        assert response is not None and response.ok, url
        assert "text/html" in response.headers["content-type"]
        # The code colours came from the file: a key in the JSON is coloured.
        colour = page.locator(".highlight, pre.prettyprint").first.evaluate(
            "e => getComputedStyle(e).backgroundColor"
        )
        assert colour
    page.goto(f"/api/v1/matches/{match.pk}/")
    extra = page.get_by_role("button", name="Extra Actions")
    expect(extra).to_be_visible()
    assert extra.evaluate("e => getComputedStyle(e.parentElement).float") == "right"


def test_favicon_ico_is_the_sites_icon(page, live_server) -> None:  # type: ignore[no-untyped-def]
    response = page.request.get(f"{live_server.url}/favicon.ico")
    assert response.ok
    assert response.headers["content-type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    assert response.body()[:4] == b"\x00\x00\x01\x00"  # an ICO file


# Each violation the page's document reports, beside what Chromium writes to the console.
REPORT_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.sourceFile}:${e.lineNumber} ${e.sample}`);
});
"""


def test_a_type_ahead_pick_and_a_guest_keep_the_policy(new_page, csp_violations) -> None:  # type: ignore[no-untyped-def]
    """Issue 37, "Why" 6: an inline style was reported when a type-ahead's options or a
    club night's guest arrived. On a phone: the report form's and the challenge form's
    type-ahead (a pick by tap, no match, a pick by the keyboard) and a guest added (Enter,
    then the button) and removed; new_page fails on a violation in the console, and the
    page's own report of violations stays empty."""
    from tests.browser.support import ladder_with, log_in, pick

    ladder_with(
        [("alice", "Alice Archer", "5.0"), ("bob", "Bob Baker", "4.5"), ("cat", "Cat Cole", "")],
        name="Club Singles",
        slug="singles",
    )
    page = new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.add_init_script(REPORT_VIOLATIONS)
    log_in(page, "alice")

    for address in ("/ladders/singles/report/", "/ladders/singles/challenge/"):
        page.goto(address)
        pick(page, "Opponent", "bo", "Bob Baker")
        slot = page.locator(".player-slot", has=page.get_by_label("Opponent", exact=True))
        box = slot.get_by_label("Opponent", exact=True)
        box.fill("")
        box.press_sequentially("zzz", delay=40)
        expect(slot.get_by_role("option")).to_contain_text("No member")
        box.fill("")
        box.press_sequentially("ca", delay=40)
        expect(slot.get_by_role("option", name="Cat Cole")).to_be_visible()
        box.press("ArrowDown")
        box.press("Enter")
        expect(slot.locator(".picked")).to_have_text("✓ Cat Cole")
        assert page.evaluate("window.__violations") == [], address

    page.goto("/ladders/singles/club-night/")
    guest = page.get_by_label(re.compile("^Add a guest"))
    guest.fill("Sam Visitor")
    guest.press("Enter")
    expect(page.locator("#present-list li", has_text="Sam Visitor")).to_be_visible()
    page.get_by_label(re.compile("^Add a guest")).fill("Pat Visitor")
    page.get_by_role("button", name="Add guest").click()
    expect(page.locator("#present-list li", has_text="Pat Visitor")).to_be_visible()
    # With guests listed, Enter in the name still adds (the form's first button would be a
    # guest's Remove).
    page.get_by_label(re.compile("^Add a guest")).fill("Kim Visitor")
    page.get_by_label(re.compile("^Add a guest")).press("Enter")
    expect(page.locator("#present-list li", has_text="Kim Visitor")).to_be_visible()
    expect(page.locator("#present-list li", has_text="Sam Visitor")).to_be_visible()
    page.get_by_role("button", name="Remove the guest Sam Visitor").click()
    expect(page.locator("#present-list li", has_text="Sam Visitor")).to_have_count(0)
    assert page.evaluate("window.__violations") == []
    assert csp_violations == []
