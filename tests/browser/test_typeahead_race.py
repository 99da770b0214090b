"""The type-ahead on a slow network (at the court, one bar of signal): a name picked from
the list while the answer to later typing is still on its way keeps its "✓" mark."""

from __future__ import annotations

import time

from playwright.sync_api import Route, expect

from tests.browser.support import ladder_with, log_in


def test_a_late_answer_does_not_clear_a_pick(new_page) -> None:  # type: ignore[no-untyped-def]
    ladder_with(
        [("alice", "Alice Archer", "5.0"), ("bob", "Bob Baker", "4.5"), ("cat", "Cat Cole", "")],
        name="Club Singles",
        slug="singles",
    )
    page = new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, "alice")
    page.goto("/ladders/singles/report/")
    slot = page.locator(".player-slot", has=page.get_by_label("Opponent", exact=True))
    box = slot.get_by_label("Opponent", exact=True)
    box.press_sequentially("b", delay=40)
    option = slot.get_by_role("option", name="Bob Baker")
    expect(option).to_be_visible()

    late: list[Route] = []

    def hold_typing(route: Route) -> None:  # the answer to "bo" waits; a pick goes through
        if "pick=" in route.request.url:
            route.continue_()
        else:
            late.append(route)

    page.route("**/ladders/singles/players/**", hold_typing)
    box.press_sequentially("o", delay=40)
    page.wait_for_timeout(400)  # past the type-ahead's 250 ms pause: "bo" is asked
    assert late, "the type-ahead asked nothing"
    option.click()  # from the list "b" brought
    expect(slot.locator(".picked")).to_have_text("✓ Bob Baker")
    for route in late:
        route.continue_()
    time.sleep(0.5)  # the late answer is in
    page.wait_for_load_state("networkidle")
    expect(page.locator(".player-slot .picked").first).to_have_text("✓ Bob Baker")
