"""Playwright on Debian's Chromium against pytest-django's live server.

Never downloads a browser: it drives /usr/bin/chromium (CHROMIUM_PATH to override).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support import services

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        services.missing("chromium")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread for the session; the
    # ORM calls tests make between browser steps are still synchronous, so Django's async
    # guard is lifted while the browser lives (tests/ladder/test_settings strips it again).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


# What Chromium writes to the console when the Content-Security-Policy blocks something.
CSP_VIOLATION = ("Content Security Policy", "Refused to")


@pytest.fixture
def csp_violations() -> list[str]:
    """Console messages of CSP violations seen by this test's pages (new_page fails on any)."""
    return []


@pytest.fixture
def csp_expected() -> list[str]:
    """Substrings of violations a test expects (the policy doing its job on a page it
    does not own); new_page fails on every other one."""
    return []


PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
def viewport() -> dict[str, int]:
    """The screen of the test's pages; a journey module runs on both (``journeys``)."""
    return DESKTOP


@pytest.fixture
def new_page(
    browser, live_server, csp_violations, csp_expected, viewport
) -> Iterator[Callable[[], object]]:  # type: ignore[no-untyped-def]
    """A factory of pages, each in its own browser context (its own cookies: its own user).

    The site runs with its Content-Security-Policy; a test whose pages break it fails. On a
    phone, no page it showed may scroll sideways (checked after the test, page by page)."""
    contexts = []

    def on_console(message) -> None:  # type: ignore[no-untyped-def]
        text = message.text
        if any(marker in text for marker in CSP_VIOLATION) and not any(
            expected in text for expected in csp_expected
        ):
            csp_violations.append(f"{message.location.get('url', '')}: {text}")

    def make():  # type: ignore[no-untyped-def]
        context = browser.new_context(base_url=live_server.url, viewport=viewport)
        context.set_default_timeout(10_000)
        context.on("console", on_console)
        contexts.append(context)
        return context.new_page()

    yield make
    wide = []
    for context in contexts:
        for page in context.pages:
            width = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
            if width[0] > width[1]:
                wide.append(f"{page.url}: {width[0]} px wide on a {width[1]} px screen")
        context.close()
    assert not wide, "pages scroll sideways:\n" + "\n".join(wide)
    assert not csp_violations, "the Content-Security-Policy refused:\n" + "\n".join(csp_violations)


@pytest.fixture
def page(new_page):  # type: ignore[no-untyped-def]
    return new_page()


@pytest.fixture
def screenshot() -> Callable[[object, str], Path]:
    """Save a full-page screenshot under tests/browser/screenshots/NAME.png and return its path."""

    def take(page, name: str) -> Path:  # type: ignore[no-untyped-def]
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 1000, "the screenshot is empty"
        return path

    return take


@pytest.fixture(params=[PHONE, DESKTOP], ids=["phone", "desktop"])
def journeys(request) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Both screens: a journey module's ``viewport = journeys`` runs each test on each."""
    return request.param
