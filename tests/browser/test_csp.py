"""The Content-Security-Policy holds on the site's pages and on the API docs (new_page fails
the test on any violation Chromium reports)."""

from __future__ import annotations

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
