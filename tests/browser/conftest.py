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


@pytest.fixture
def new_page(browser, live_server) -> Iterator[Callable[[], object]]:  # type: ignore[no-untyped-def]
    """A factory of pages, each in its own browser context (its own cookies: its own user)."""
    contexts = []

    def make():  # type: ignore[no-untyped-def]
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": 1200, "height": 900}
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


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
