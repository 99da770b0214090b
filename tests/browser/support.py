"""What the browser tests share: a ladder of named members, and signing in and out through
the pages as a member does."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from playwright.sync_api import Page, expect

from ladder.clubs.models import Ladder
from tests.factories import PASSWORD, LadderFactory, MembershipFactory, UserFactory


def ladder_with(members: Iterable[tuple[str, str, str]], **fields: object) -> Ladder:
    """A ladder (``LadderFactory(**fields)``) and its members: (username, display name,
    self-assessed level, or "" for none)."""
    ladder = LadderFactory(**fields)
    for username, name, level in members:
        user = UserFactory(username=username, display_name=name)
        MembershipFactory(ladder=ladder, user=user, self_level=Decimal(level) if level else None)
    return ladder


def log_in(page: Page, username: str, password: str = PASSWORD) -> None:
    """Sign in on the login page and wait for the signed-in bar (its Inbox link)."""
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(
        page.get_by_role("navigation", name="Site").get_by_role("link", name="Inbox")
    ).to_be_visible()


def log_out(page: Page) -> None:
    """Log out from the site's menu (templates/base.html), opened first."""
    nav = page.get_by_role("navigation", name="Site")
    nav.locator("details.nav-menu > summary").click()
    nav.get_by_role("button", name="Log out").click()


def follow_nav(page: Page, name: str) -> None:
    """Follow the site bar's link ``name``, from its menu where the screen puts it there."""
    nav = page.get_by_role("navigation", name="Site")
    link = nav.get_by_role("link", name=name)
    if not link.is_visible():
        nav.locator("details.nav-menu > summary").click()
    link.click()


def pick(page: Page, label: str, text: str, name: str) -> None:
    """Type into a player input and choose ``name`` from the type-ahead."""
    slot = page.locator(".player-slot", has=page.get_by_label(label, exact=True))
    slot.get_by_label(label, exact=True).press_sequentially(text, delay=40)
    slot.get_by_role("listbox", name="Matching members").get_by_role("option", name=name).click()
    expect(slot.locator(".picked")).to_have_text(f"✓ {name}")
