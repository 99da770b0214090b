"""Issue 23 in Chromium: the bugs a member met at the court, each reproduced as they met it
(on a phone, by keyboard and touch), and the pages in the states that made them too wide."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.roles import make_moderator
from accounts.tokens import issue_token
from ladder.matches import operations
from ladder.matches.models import Match
from tests.browser.support import log_in
from tests.browser.test_phone import save_screenshot, sideways
from tests.factories import LadderFactory, MembershipFactory, UserFactory, reported_match

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
NARROW = {"width": 360, "height": 740}


@pytest.fixture
def court(transactional_db):  # type: ignore[no-untyped-def]
    """Singles and doubles ladders with the names members have: accents, two words, long."""
    singles = LadderFactory(name="Singles", slug="singles")
    doubles = LadderFactory(name="Doubles", slug="doubles", team_size=2)
    people = {}
    for username, name, level in [
        ("alice", "Alice Archer", "5.0"),
        ("tom", "Tom Okafor", "4.5"),
        ("chloe", "Chloé Dubois", "4.0"),
        ("max", "Maximilian Featherstonehaugh-Wolfeschlegel", "4.5"),
        ("bob", "Bob Baker", "4.5"),
    ]:
        people[username] = UserFactory(username=username, display_name=name)
        for ladder in (singles, doubles):
            MembershipFactory(ladder=ladder, user=people[username], self_level=Decimal(level))
    people["mod"] = UserFactory(username="mod", display_name="Morgan Moderator")
    make_moderator(people["mod"])
    return {"singles": singles, "doubles": doubles, **people}


@pytest.fixture
def phone_page(new_page):  # type: ignore[no-untyped-def]
    page = new_page()
    page.set_viewport_size(PHONE)
    return page


# ---- bug 1: the opponent picker --------------------------------------------------------------


def test_a_full_name_typed_without_picking_reports_the_match(phone_page, court) -> None:  # type: ignore[no-untyped-def]
    page = phone_page
    log_in(page, "alice")
    page.goto("/ladders/singles/report/")
    box = page.get_by_role("combobox", name="Opponent")
    box.fill("Tom Okafor")  # typed in full; the list opens but nothing is tapped
    page.get_by_label("Game 1: your side").fill("21")
    page.get_by_label("Game 1: opponents").fill("15")
    page.get_by_label("Game 2: your side").fill("21")
    page.get_by_label("Game 2: opponents").fill("18")
    page.get_by_role("button", name="Report match").last.click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
    match = Match.objects.with_details().get()
    assert [u.username for u in match.side_b_players] == ["tom"]
    assert match.game_scores == [(21, 15), (21, 18)]


def test_the_type_ahead_finds_a_first_name_and_an_initial(phone_page, court) -> None:  # type: ignore[no-untyped-def]
    page = phone_page
    log_in(page, "alice")
    page.goto("/ladders/singles/report/")
    box = page.get_by_role("combobox", name="Opponent")
    box.press_sequentially("chloe d", delay=30)
    options = page.get_by_role("listbox", name="Matching members").get_by_role("option")
    expect(options).to_have_count(1)
    expect(options.first).to_contain_text("Chloé Dubois")
    options.first.click()
    expect(page.locator("#picked-opponent_1")).to_have_text("✓ Chloé Dubois")


def test_an_unknown_name_says_so_once_as_you_type(phone_page, court) -> None:  # type: ignore[no-untyped-def]
    page = phone_page
    log_in(page, "alice")
    page.goto("/ladders/singles/report/")
    page.get_by_role("combobox", name="Opponent").fill("Tom Okafer")
    page.get_by_label("Game 1: your side").click()  # leaves the box: the live check runs
    expect(page.locator("#errors-opponent_1")).to_have_text(
        "No member of Singles is called 'Tom Okafer'."
    )
    expect(page.locator("#errors-side_b")).to_be_hidden()


# ---- bug 2: tabbing past "Remove" ------------------------------------------------------------


def test_tabbing_onto_remove_does_not_remove_a_game_in_the_live_check(phone_page, court) -> None:  # type: ignore[no-untyped-def]
    page = phone_page
    log_in(page, "alice")
    page.goto("/ladders/singles/report/")
    page.get_by_role("combobox", name="Opponent").fill("tom")
    page.get_by_label("Game 1: your side").fill("21")
    page.get_by_label("Game 1: opponents").fill("15")
    page.get_by_label("Game 2: your side").fill("21")
    page.get_by_label("Game 2: opponents").fill("18")
    with page.expect_response(re.compile(r"/report/validate/$")) as checked:
        page.keyboard.press("Tab")  # onto game 2's Remove; the change event checks the form
    assert checked.value.ok
    expect(page.get_by_role("button", name="Remove game 2")).to_be_focused()
    expect(page.locator("#errors-games")).to_be_hidden()
    expect(page.locator("input[name=game_a]")).to_have_count(2)
    assert not Match.objects.exists()


# ---- bug 4: the states that made pages too wide -----------------------------------------------


def test_a_token_a_corrected_match_and_doubles_stakes_fit_360_px(new_page, court) -> None:  # type: ignore[no-untyped-def]
    issue_token(court["alice"], "results script on the club laptop")
    match = reported_match(
        court["singles"],
        court["alice"],
        [court["alice"]],
        [court["tom"]],
        games=[(21, 19), (21, 15)],
    )
    operations.dispute_match(
        match, court["tom"], "We played three games.", proposed_games=[(21, 19), (15, 21), (21, 17)]
    )
    operations.resolve_dispute(
        match,
        court["mod"],
        "correct",
        "Both agree on three games, played the day before.",
        games=[(21, 19), (15, 21), (21, 17)],
        played_on=match.played_on - timedelta(days=1),
    )
    page = new_page()
    page.set_viewport_size(NARROW)
    log_in(page, "alice")
    h2h = "/ladders/doubles/head-to-head/?a=alice&a=max&b=tom&b=chloe"
    wide = []
    for url in ("/accounts/tokens/", f"/matches/{match.pk}/", h2h):
        page.goto(url)
        if why := sideways(page):
            wide.append(f"{url}: {why}")
    page.goto(h2h)
    expect(page.locator(".stakes-table tbody tr")).to_have_count(4)
    assert not wide, "\n".join(wide)


# ---- the basics, by touch on a phone -------------------------------------------------------------


@pytest.fixture
def touch_page(browser, live_server, csp_violations):  # type: ignore[no-untyped-def]
    """A phone page with touch (taps, not clicks), in its own context."""
    context = browser.new_context(
        base_url=live_server.url, viewport=PHONE, has_touch=True, is_mobile=True
    )
    context.set_default_timeout(10_000)
    context.on(
        "console",
        lambda m: csp_violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    yield context.new_page()
    context.close()


def test_report_from_the_header_with_stakes_above_the_button(touch_page, court) -> None:  # type: ignore[no-untyped-def]
    page = touch_page
    reported_match(
        court["doubles"],
        court["alice"],
        [court["alice"], court["bob"]],
        [court["tom"], court["chloe"]],
    )
    log_in(page, "alice")
    page.goto("/inbox/")
    report = page.get_by_role("banner").get_by_role("link", name="Report", exact=True)
    expect(report).to_be_in_viewport()  # in the header on a phone, no scrolling
    if os.environ.get("UPDATE_SCREENSHOTS"):
        save_screenshot(page, "report-button-phone")
    report.tap()
    expect(page.get_by_role("heading", name="Report a match")).to_be_visible()
    page.get_by_role(
        "link", name=re.compile("You and Bob Baker v Tom Okafor and Chloé Dubois")
    ).tap()
    expect(page.locator("#prediction .stakes-table tbody tr")).to_have_count(4)
    stakes = page.locator("#prediction .stakes").bounding_box()
    button = page.get_by_role("button", name="Report match").last.bounding_box()
    assert stakes["y"] + stakes["height"] <= button["y"], "the points at stake come first"
    assert sideways(page) is None
    if os.environ.get("UPDATE_SCREENSHOTS"):
        page.locator("#prediction").scroll_into_view_if_needed()
        page.evaluate("window.scrollBy(0, 260)")
        save_screenshot(page, "stakes-above-submit-phone")


def test_the_chart_reads_a_day_out_on_a_tap(touch_page, court) -> None:  # type: ignore[no-untyped-def]
    from ratings.pipeline import rate_ladder

    singles, alice, tom = court["singles"], court["alice"], court["tom"]
    for day, games in (
        (3, [(21, 15), (21, 18)]),
        (2, [(15, 21), (18, 21)]),
        (1, [(21, 5), (21, 9)]),
    ):
        match = reported_match(
            singles,
            alice,
            [alice],
            [tom],
            games=games,
            played_on=timezone.localdate() - timedelta(days=day),
        )
        operations.confirm_match(match, tom)
    rate_ladder(singles.pk)
    page = touch_page
    page.goto("/players/alice/?ladder=singles")
    chart = page.locator("svg.chart-narrow")
    expect(chart).to_be_visible()
    expect(page.locator("svg.chart-wide")).to_be_hidden()
    # The axis labels read at 10 px or more on a 390 px phone.
    sizes = chart.locator("text").evaluate_all(
        "ts => ts.map(t => t.getBoundingClientRect().height)"
    )
    assert sizes and min(sizes) >= 10, sizes
    readout = page.locator(".chart-readout")
    first = chart.locator("circle.dot").first
    box = first.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2 + 6, box["y"] + 40)  # near it, not on it
    expect(first).to_have_class(re.compile("active"))
    expect(readout).to_have_text(first.get_attribute("data-reading"))
    chart.focus()
    page.keyboard.press("ArrowRight")
    second = chart.locator("circle.dot").nth(1)
    expect(readout).to_have_text(second.get_attribute("data-reading"))


def test_a_new_token_copies_and_revoke_all_asks_first(new_page, court) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    log_in(page, "alice")
    page.goto("/accounts/tokens/")
    page.get_by_label("Name").fill("phone")
    page.get_by_role("button", name="Make a token").click()
    secret = page.locator("#new-token").inner_text()
    page.get_by_role("button", name="Copy the token").click()
    expect(page.locator("#copy-status")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == secret
    page.goto("/accounts/tokens/")
    yes = page.get_by_role("button", name="Yes, revoke all")
    expect(yes).to_be_hidden()
    page.get_by_text("Revoke all", exact=True).click()
    page.get_by_role("button", name="Keep them").click()
    expect(yes).to_be_hidden()
    assert court["alice"].auth_token_set.count() == 1
    page.get_by_text("Revoke all", exact=True).click()
    yes.click()
    expect(page.get_by_text("Revoked all your API tokens (1).")).to_be_visible()
    assert court["alice"].auth_token_set.count() == 0


def test_club_night_on_the_halls_courts(phone_page, court) -> None:  # type: ignore[no-untyped-def]
    page = phone_page
    log_in(page, "alice")
    page.goto("/ladders/doubles/club-night/")
    boxes = page.locator("input[name=present]")
    for i in range(boxes.count()):
        boxes.nth(i).check()
    page.get_by_label("Courts").fill("1")
    page.get_by_role("button", name="Propose a round").click()
    rounds = page.locator("#rounds")
    expect(rounds.get_by_role("heading", name="Round 1")).to_be_visible()
    expect(rounds.locator(".proposed-match")).to_have_count(1)  # 5 in the hall, 1 court
    expect(rounds.locator(".byes")).to_contain_text("Sitting out:")
    expect(rounds.locator(".proposed-match .who").first).not_to_have_text(re.compile("…"))
    assert sideways(page) is None
    if os.environ.get("UPDATE_SCREENSHOTS"):
        rounds.scroll_into_view_if_needed()
        save_screenshot(page, "club-night-courts-phone")
