"""In Chromium, on a phone (390×844): points at stake appear on the report form as soon as
both sides are chosen, before any score, with the numbers of ratings.stakes; nothing is
created. Screenshot: report_stakes_phone (looked at)."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from ladder.matches.models import Match
from ratings.stakes import points_at_stake
from tests.browser.support import log_in, pick
from tests.browser.test_matches import club  # noqa: F401 - club is a fixture

pytestmark = pytest.mark.browser


def test_points_at_stake_on_the_report_form_on_a_phone(new_page, screenshot, club):  # noqa: F811
    page = new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, "alice")
    page.goto("/ladders/doubles/report/")
    expect(page.locator("#prediction .stakes")).to_have_count(0)
    pick(page, "Your partner", "bo", "Bob Baker")
    pick(page, "Opponent 1", "cha", "Charlie Chen")
    expect(page.locator("#prediction .stakes")).to_have_count(0)  # a side still incomplete
    pick(page, "Opponent 2", "Dun", "Dave Dunn")
    stakes_table = page.locator("#prediction .stakes-table")
    expect(stakes_table.locator("tbody tr")).to_have_count(4)

    ladder = club["ladder"]
    expected = points_at_stake(
        ladder,
        [club["alice"], club["bob"]],
        [club["charlie"], club["dave"]],
        timezone.localdate(),
    )
    for row, stake in zip(stakes_table.locator("tbody tr").all(), expected.players, strict=True):
        shown = stake.shown
        expect(row.locator("th")).to_contain_text(stake.user.name)
        expect(row.locator("td")).to_have_text(
            [shown["narrow_win"], shown["clear_win"], shown["narrow_loss"], shown["clear_loss"]]
        )
    # Alice (5.0) is the favourite: a narrow win gains her less than a clear one.
    assert expected.players[0].clear_win > expected.players[0].narrow_win >= 0
    expect(page.locator("#prediction")).to_contain_text(
        f"a narrow win is {expected.narrow_score}, a clear one {expected.clear_score}"
    )
    width = page.evaluate("document.querySelector('#prediction').scrollWidth")
    assert width <= page.evaluate("document.querySelector('#prediction').clientWidth")
    screenshot(page, "report_stakes_phone")
    assert not Match.objects.exists()
