"""Issue 23 in Chromium: the bugs a member met at the court, each reproduced as they met it
(on a phone, by keyboard and touch), and the pages in the states that made them too wide."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from accounts.roles import make_moderator
from accounts.tokens import issue_token
from ladder.matches import operations
from ladder.matches.models import Match
from tests.browser.test_phone import sideways
from tests.factories import PASSWORD, LadderFactory, MembershipFactory, UserFactory, reported_match

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


def log_in(page, username: str) -> None:  # type: ignore[no-untyped-def]
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("navigation").get_by_role("button", name="Log out")).to_be_visible()


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
