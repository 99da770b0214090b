"""In Chromium, with the BWF men's singles history (3,691 matches, 2018–2021) imported:
the leaderboard with its live search, a top player's page, and a head-to-head.

The history ends on 2021-03-28, so today every player is inactive (no match within the
ladder's 90-day lookback). The first screenshot shows that case; then the clock is set
to 2021-03-31 (time_machine, in this process, which runs the live server) so the
leaderboard has ranked players, as it had the week the data ends.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from ladder.clubs.models import Ladder
from ratings.models import PlayerRating

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data" / "bwf_mens_singles_2018_2021.csv"
END_OF_DATA = datetime(2021, 3, 31, 12, tzinfo=UTC)


@pytest.fixture
def bwf(transactional_db) -> Ladder:  # type: ignore[no-untyped-def]
    call_command(
        "import_matches", str(DATA), "--ladder", "bwf", "--create-ladder", "--create-players"
    )
    return Ladder.objects.get(slug="bwf")


@pytest.fixture
def viewport(journeys):  # type: ignore[no-untyped-def]
    """Browsing on a phone (390×844) and a desktop (1280×800) screen."""
    return journeys


def test_leaderboard_player_page_and_head_to_head(new_page, screenshot, bwf, time_machine):
    assert PlayerRating.objects.filter(ladder=bwf).count() > 500
    page = new_page()

    # Today: nobody has played for years. Everyone is listed, as inactive, without ranks.
    page.goto("/ladders/bwf/")
    expect(page.get_by_text("No one is ranked right now")).to_be_visible()
    expect(page.locator("tr.section-head.section-inactive")).to_have_count(1)
    screenshot(page, "leaderboard_all_inactive")

    # The week the data ends. A new browser context: a visitor's page may be kept for 30 s
    # (ladder.caching), and the browser would otherwise show the one it has from "today".
    time_machine.move_to(END_OF_DATA, tick=True)
    page = new_page()
    page.goto("/ladders/bwf/")
    board = page.locator("#leaderboard")
    expect(board.locator("tr.section-head.section-ranked")).to_have_count(1)
    ranked = board.locator("tr.status-ranked")
    expect(ranked.first.locator("td.rank")).to_have_text("1")
    top_name = ranked.first.locator("td.player a").inner_text()
    rating = ranked.first.locator("td.rating").inner_text()
    assert re.fullmatch(r"\d\.\d\d", rating), rating
    expect(board.locator(".board-summary")).to_contain_text(
        re.compile(r"\d+ ranked · \d+ provisional · \d+ inactive")
    )
    screenshot(page, "leaderboard")

    # Live search: the table is swapped in place, no page load.
    page.evaluate("window.stillHere = true")
    search = page.get_by_label("Search players")
    search.press_sequentially("axel", delay=40)
    expect(board.locator("tbody tr:not(.section-head)")).to_have_count(1)
    expect(page.locator("#leaderboard td.player")).to_contain_text(["Viktor Axelsen"])
    assert page.evaluate("window.stillHere") is True
    expect(page).to_have_url(re.compile(r"[?&]q=axel"))
    search.fill("")
    search.press("Backspace")  # a keyup: the full list again
    expect(board.locator("tbody tr:not(.section-head)")).to_have_count(50)
    expect(board.locator("tr.status-ranked").first.locator("td.player")).to_have_text(top_name)
    page.get_by_text("Provisional", exact=True).click()  # a filter, in place as well
    expect(board.locator("tr.section-head")).to_have_count(1)
    expect(board.locator("tr.section-head.section-provisional")).to_have_count(1)
    assert page.evaluate("window.stillHere") is True
    expect(page).to_have_url(re.compile(r"status=provisional"))  # pushed: this request is done
    page.get_by_text("Everyone", exact=True).click()
    expect(board.locator("tr.section-head.section-ranked")).to_have_count(1)

    # The top player's page: the chart with its band, and every match explained.
    board.locator("tr.status-ranked").first.locator("td.player a").click()
    expect(page.get_by_role("heading", name=re.compile(re.escape(top_name)))).to_be_visible()
    chart = page.locator("figure.chart svg:visible")  # the drawing for this screen
    expect(chart).to_be_visible()
    expect(chart.locator("path.band")).to_have_count(1)
    expect(chart.locator("path.line")).to_have_count(1)
    explanations = page.locator("#matches .explain")
    expect(explanations).to_have_count(20)
    expect(explanations.first).to_contain_text(re.compile(r"^\d+% chance to win, (won|lost) "))
    screenshot(page, "player_page")

    # Paging the match list swaps it in place.
    page.evaluate("window.stillHere = true")
    page.locator("#matches").get_by_role("link", name="Next →").click()
    expect(page.locator("#matches")).to_contain_text("Page 2 of")
    assert page.evaluate("window.stillHere") is True

    # Head-to-head with the most frequent opponent, from the player's table.
    page.locator("table.h2h tbody tr").first.locator("a").click()
    expect(page.get_by_role("heading", name="Head-to-head")).to_be_visible()
    expect(page.locator(".prediction")).to_contain_text(re.compile(r"with probability \d+%"))
    expect(page.locator(".h2h-result table tbody tr").first).to_be_visible()
    screenshot(page, "head_to_head")
