"""The Content-Security-Policy holds on the site's pages and on the API docs (new_page fails
the test on any violation Chromium reports)."""

from __future__ import annotations

import pytest

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
