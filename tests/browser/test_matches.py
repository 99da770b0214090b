"""In Chromium: report a doubles match with the type-ahead, confirm it from the inbox in a
second browser, dispute another and correct it in the moderation queue; and reporting
without JavaScript. Screenshots: report_form, inbox, moderation_queue (looked at)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.roles import make_moderator
from ladder.matches.models import AuditEntry, Dispute, Match
from tests.browser.support import follow_nav, log_in, pick
from tests.factories import LadderFactory, MembershipFactory, UserFactory, reported_match

pytestmark = pytest.mark.browser


@pytest.fixture
def club(transactional_db):  # type: ignore[no-untyped-def]
    """The doubles ladder with alice & bob v charlie & dave, and a moderator."""
    ladder = LadderFactory(name="Club Doubles", slug="doubles", team_size=2)
    people = {}
    for username, name, level in [
        ("alice", "Alice Archer", "5.0"),
        ("bob", "Bob Baker", "4.5"),
        ("charlie", "Charlie Chen", "4.5"),
        ("dave", "Dave Dunn", "4.5"),
    ]:
        people[username] = UserFactory(username=username, display_name=name)
        MembershipFactory(ladder=ladder, user=people[username], self_level=Decimal(level))
    people["mod"] = UserFactory(username="mod", display_name="Morgan Moderator")
    make_moderator(people["mod"])
    people["ladder"] = ladder
    return people


@pytest.fixture
def viewport(journeys):  # type: ignore[no-untyped-def]
    """Every journey here on a phone (390×844) and a desktop (1280×800) screen."""
    return journeys


def test_report_doubles_and_opponent_confirms_from_the_inbox(new_page, screenshot, club):
    alice_page = new_page()
    log_in(alice_page, "alice")
    alice_page.goto("/ladders/doubles/")
    alice_page.get_by_role("link", name="Report a match").click()
    expect(alice_page.get_by_role("heading", name="Report a match")).to_be_visible()
    expect(alice_page.locator("#prediction .odds")).to_have_text("—")

    pick(alice_page, "Your partner", "bo", "Bob Baker")
    pick(alice_page, "Opponent 1", "cha", "Charlie Chen")
    pick(alice_page, "Opponent 2", "Dun", "Dave Dunn")
    alice_page.get_by_label("Game 1: your side").fill("21")
    alice_page.get_by_label("Game 1: opponents").fill("20")
    alice_page.get_by_label("Game 2: your side").click()
    # Validation as you type: the domain's message, nothing created.
    expect(alice_page.locator("#errors-games")).to_contain_text("needs a 2-point lead")
    assert not Match.objects.exists()
    alice_page.get_by_label("Game 1: opponents").fill("15")
    alice_page.get_by_label("Game 2: your side").fill("21")
    alice_page.get_by_label("Game 2: opponents").fill("18")
    alice_page.get_by_role("heading", name="Report a match").click()  # leave the field: "change"
    expect(alice_page.locator("#errors-games")).to_be_hidden()
    expect(alice_page.locator("#prediction .odds")).to_have_text(re.compile(r"^\d+%$"))
    expect(alice_page.locator("#prediction")).to_contain_text(
        "chance that you and Bob Baker beat Charlie Chen and Dave Dunn"
    )
    screenshot(alice_page, "report_form")

    alice_page.get_by_role("button", name="Report match").last.click()
    expect(alice_page).to_have_url(re.compile(r"/matches/\d+/$"))
    expect(
        alice_page.get_by_text("Match reported. Charlie Chen or Dave Dunn can now confirm")
    ).to_be_visible()
    match = Match.objects.with_details().get()
    assert [u.username for u in match.side_a_players] == ["alice", "bob"]
    assert [u.username for u in match.side_b_players] == ["charlie", "dave"]
    assert match.game_scores == [(21, 15), (21, 18)]

    # Charlie, in another browser: the badge, the inbox, confirm in place.
    charlie_page = new_page()
    log_in(charlie_page, "charlie")
    nav = charlie_page.get_by_role("navigation")
    expect(nav.locator("#inbox-badge")).to_have_text("1")
    nav.get_by_role("link", name=re.compile("Inbox")).click()
    row = charlie_page.locator(f"#inbox-match-{match.pk}")
    expect(row).to_contain_text("Alice Archer and Bob Baker")
    expect(row).to_contain_text("21-15 21-18")
    screenshot(charlie_page, "inbox")
    row.get_by_role("button", name="Confirm").click()
    expect(row).to_contain_text("Confirmed: thanks")
    expect(row.get_by_role("button", name="Confirm")).to_have_count(0)
    expect(nav.locator("#inbox-badge")).to_have_text("")  # the badge reloads after the action
    assert charlie_page.url.endswith("/inbox/")  # in place, no page load

    match.refresh_from_db()
    assert match.state == "confirmed"
    entries = list(AuditEntry.objects.filter(match=match).order_by("at", "pk"))
    assert [(e.action, e.actor.username, e.from_state, e.to_state) for e in entries] == [
        ("report", "alice", "", "pending"),
        ("confirm", "charlie", "pending", "confirmed"),
    ]

    charlie_page.goto(match.get_absolute_url())
    expect(charlie_page.get_by_text("Confirmed on")).to_be_visible()
    expect(charlie_page.locator("table.audit tbody tr")).to_have_count(2)


def test_back_after_a_report_keeps_the_players_picked(new_page, club):  # type: ignore[no-untyped-def]
    """Issue 37, "Why" 6: Back after reporting showed the form with the games typed but the
    players gone (their boxes say autocomplete="off"). They come back with their chips; a
    new visit to the form starts empty."""
    page = new_page()
    log_in(page, "alice")
    page.goto("/ladders/doubles/report/")
    picks = {"Your partner": "Bob Baker", "Opponent 1": "Charlie Chen", "Opponent 2": "Dave Dunn"}
    for (label, name), typed in zip(picks.items(), ("bo", "cha", "Dun"), strict=True):
        pick(page, label, typed, name)
    for game, (ours, theirs) in enumerate([("21", "15"), ("21", "18")], 1):
        page.get_by_label(f"Game {game}: your side").fill(ours)
        page.get_by_label(f"Game {game}: opponents").fill(theirs)
    page.get_by_role("button", name="Report match").last.click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))

    page.go_back()
    expect(page.get_by_role("heading", name="Report a match")).to_be_visible()
    for label, name in picks.items():
        slot = page.locator(".player-slot", has=page.get_by_label(label, exact=True))
        expect(slot.locator(".picked")).to_have_text(f"✓ {name}")
    expect(page.get_by_label("Opponent 1", exact=True)).to_have_value("charlie")
    expect(page.get_by_label("Game 1: your side")).to_have_value("21")

    page.goto("/ladders/doubles/")
    page.get_by_role("link", name="Report a match").click()
    expect(page.get_by_label("Opponent 1", exact=True)).to_have_value("")
    expect(page.locator(".picked", has_text="✓")).to_have_count(0)


def test_dispute_in_the_inbox_and_moderator_corrects(new_page, screenshot, club):
    match = reported_match(
        club["ladder"],
        club["alice"],
        [club["alice"], club["bob"]],
        [club["charlie"], club["dave"]],
        games=[(21, 15), (21, 19)],
    )
    dave_page = new_page()
    log_in(dave_page, "dave")
    dave_page.goto("/inbox/")
    row = dave_page.locator(f"#inbox-match-{match.pk}")
    row.get_by_role("link", name="Dispute").click()  # the form in place of the row
    row.get_by_label("What is wrong?").fill("We won the second game 21-19, then lost the third.")
    row.get_by_label("Game 1: Alice Archer and Bob Baker").fill("21")
    row.get_by_label("Game 1: Charlie Chen and Dave Dunn").fill("15")
    row.get_by_label("Game 2: Alice Archer and Bob Baker").fill("19")
    row.get_by_label("Game 2: Charlie Chen and Dave Dunn").fill("21")
    row.get_by_label("Game 3: Alice Archer and Bob Baker").fill("21")
    row.get_by_label("Game 3: Charlie Chen and Dave Dunn").fill("17")
    row.get_by_role("button", name="Send dispute").last.click()
    expect(row).to_contain_text("Disputed: a moderator will look at it.")
    match.refresh_from_db()
    assert match.state == "disputed"
    assert Dispute.objects.get(match=match).proposed_games == [[21, 15], [19, 21], [21, 17]]

    mod_page = new_page()
    log_in(mod_page, "mod")
    follow_nav(mod_page, "Moderation")
    case = mod_page.locator(f"#case-{match.pk}")
    expect(case).to_contain_text("Reported by Alice Archer")
    expect(case).to_contain_text("21-15 19-21 21-17")
    # Pre-filled with the proposal.
    expect(case.get_by_label("Game 3: Charlie Chen and Dave Dunn")).to_have_value("17")
    case.get_by_label("Reason").fill("Both pairs agree on three games.")
    screenshot(mod_page, "moderation_queue")
    case.get_by_role("button", name="Correct to the score above").click()
    expect(case).to_contain_text("Corrected: the new score counts for the ratings.")

    match = Match.objects.with_details().get(pk=match.pk)
    assert match.state == "corrected"
    assert match.game_scores == [(21, 15), (19, 21), (21, 17)]
    dispute = Dispute.objects.get(match=match)
    assert (dispute.resolution, dispute.resolved_by.username) == ("corrected", "mod")
    actions = list(
        AuditEntry.objects.filter(match=match).order_by("pk").values_list("action", flat=True)
    )
    assert actions == ["report", "dispute", "resolve_correct"]

    mod_page.goto(match.get_absolute_url())
    expect(mod_page.get_by_text("21-15 21-19 → 21-15 19-21 21-17")).to_be_visible()


def test_report_without_javascript(browser, live_server, screenshot, club):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        log_in(page, "charlie")
        page.goto("/ladders/doubles/report/")
        # Without JavaScript the page names the members' usernames (Playwright's switch keeps
        # the parser's scripting flag, so <noscript> is not rendered here: check it is sent).
        assert "Usernames on Club Doubles" in page.content()
        page.get_by_label("Your partner").fill("dave")
        page.get_by_label("Opponent 1", exact=True).fill("alice")
        page.get_by_label("Opponent 2", exact=True).fill("bob")
        page.get_by_role("button", name="+ Add a game").click()  # a round trip adds the row
        expect(page.locator("input[name=game_a]")).to_have_count(3)
        for number, (a, b) in enumerate([(21, 15), (12, 21), (21, 19)], start=1):
            page.get_by_label(f"Game {number}: your side").fill(str(a))
            page.get_by_label(f"Game {number}: opponents").fill(str(b))
        page.get_by_role("button", name="Report match").last.click()
        expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
        screenshot(page, "match_page_no_js")
    finally:
        context.close()
    match = Match.objects.with_details().get()
    assert match.game_scores == [(21, 15), (12, 21), (21, 19)]
    assert match.played_on == timezone.localdate()
    assert [u.username for u in match.side_b_players] == ["alice", "bob"]
