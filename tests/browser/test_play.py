"""In Chromium on a phone: Alice challenges Bob, Bob accepts a time, the match appears in
Bob's calendar feed (fetched without a session and parsed back), Bob reports it from the
challenge with the players filled in, Alice confirms, and the challenge reads "Played".
Each page on the way: nothing scrolls sideways, axe-core finds nothing serious, and every
button and form control is at least 44 px tall. Screenshots: challenge_form, challenges."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from icalendar import Calendar
from playwright.sync_api import expect

from ladder.matches.models import Match
from ladder.play.models import CalendarFeed, Challenge
from tests.browser.support import follow_nav, log_in, pick
from tests.browser.test_phone import axe  # noqa: F401  (the fixture)
from tests.factories import LadderFactory, MembershipFactory, UserFactory
from tests.play.support import started

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
TARGET = 44


@pytest.fixture
def viewport():  # type: ignore[no-untyped-def]
    return PHONE


@pytest.fixture
def club(transactional_db):  # type: ignore[no-untyped-def]
    ladder = LadderFactory(name="Club Singles", slug="singles")
    people = {"ladder": ladder}
    for username, name in [("alice", "Alice Archer"), ("bob", "Bob Baker")]:
        people[username] = UserFactory(username=username, display_name=name)
        MembershipFactory(ladder=ladder, user=people[username], self_level=Decimal("4.5"))
    return people


def small_targets(page) -> list[str]:  # type: ignore[no-untyped-def]
    """Buttons and form controls in the page's main part under 44 px tall."""
    return page.evaluate(
        """(min) => [...document.querySelectorAll(
              'main button, main .button, main input:not([type=hidden]), main select, main textarea, main summary')]
            .filter(e => e.offsetParent !== null)
            .map(e => ['radio', 'checkbox'].includes(e.type) ? (e.closest('label') || e) : e)
            .filter(e => e.getBoundingClientRect().height < min - 0.5)
            .map(e => `${e.tagName.toLowerCase()} "${(e.textContent || e.name || '').trim().slice(0, 30)}" ${Math.round(e.getBoundingClientRect().height)} px`)""",
        TARGET,
    )


def checked(page, axe) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    assert axe(page) == []
    assert small_targets(page) == []


def test_challenge_accept_feed_report_confirm_played(new_page, screenshot, club, axe):  # noqa: F811
    when = (timezone.localtime() + timedelta(days=2)).replace(
        hour=18, minute=30, second=0, microsecond=0
    )
    alice = new_page()
    log_in(alice, "alice")
    alice.goto("/ladders/singles/")
    alice.get_by_role("link", name="Challenge someone").click()
    expect(alice.get_by_role("heading", name="Challenge someone")).to_be_visible()
    pick(alice, "Opponent", "bo", "Bob Baker")
    alice.get_by_label("Time 1").fill(when.strftime("%Y-%m-%dT%H:%M"))
    alice.get_by_label("Where (optional)").fill("Court 2")
    alice.get_by_label("Message (optional)").fill("Best of three?")
    checked(alice, axe)
    screenshot(alice, "challenge_form")
    alice.get_by_role("button", name="Send challenge").click()
    expect(alice).to_have_url(re.compile(r"/challenges/$"))
    expect(alice.get_by_text("Challenge sent.")).to_be_visible()
    challenge = Challenge.objects.get()
    assert challenge.state == "open"

    bob = new_page()
    log_in(bob, "bob")
    follow_nav(bob, "Challenges")
    card = bob.locator(f"#challenge-{challenge.pk}")
    expect(card).to_contain_text("Alice Archer v Bob Baker")
    expect(card).to_contain_text("“Best of three?”")
    checked(bob, axe)
    screenshot(bob, "challenges")
    card.get_by_role("button", name="Accept").click()
    expect(bob.get_by_text("Accepted")).to_be_visible()
    card = bob.locator(f"#challenge-{challenge.pk}")
    expect(card).to_contain_text("Scheduled")
    checked(bob, axe)

    # The feed, from the calendar page's address, in a browser with no session.
    bob.goto("/calendar/")
    checked(bob, axe)
    url = bob.get_by_label("Your feed's address").input_value()
    assert url.endswith(f"/calendar/{CalendarFeed.objects.get(user=club['bob']).token}.ics")
    stranger = new_page()
    response = stranger.request.get(url)
    assert response.ok and response.headers["content-type"].startswith("text/calendar")
    (event,) = Calendar.from_ical(response.body()).walk("VEVENT")
    assert str(event["UID"]).startswith(f"challenge-{challenge.pk}@")
    assert event.decoded("DTSTART") == when
    assert str(event["LOCATION"]) == "Court 2"

    # Bob reports it from the challenge once its time has come: Alice is filled in.
    started(challenge)
    bob.goto("/challenges/")
    bob.locator(f"#challenge-{challenge.pk}").get_by_role("link", name="Report the result").click()
    expect(bob.get_by_label("Opponent", exact=True)).to_have_value("alice")
    bob.get_by_label("Date played").fill(timezone.localdate().isoformat())
    bob.get_by_label("Game 1: your side").fill("21")
    bob.get_by_label("Game 1: opponents").fill("15")
    bob.get_by_label("Game 2: your side").fill("21")
    bob.get_by_label("Game 2: opponents").fill("18")
    bob.get_by_role("button", name="Report match").last.click()
    expect(bob).to_have_url(re.compile(r"/matches/\d+/$"))
    match = Match.objects.get()
    challenge.refresh_from_db()
    assert (challenge.match_id, challenge.state) == (match.pk, "scheduled")

    alice.goto(f"/matches/{match.pk}/")
    alice.get_by_role("button", name="Confirm").first.click()
    expect(alice.get_by_text("Confirmed", exact=False).first).to_be_visible()
    alice.goto("/challenges/")
    expect(alice.locator(f"#challenge-{challenge.pk}")).to_contain_text("Played")
    checked(alice, axe)
    assert Challenge.objects.get().state == "played"


def test_open_games_page_on_a_phone(new_page, club, axe):  # noqa: F811
    from ladder.play import services

    services.post_open_game(
        ladder=club["ladder"],
        by=club["alice"],
        starts_at=timezone.now() + timedelta(days=1),
        place="Court 4",
    )
    bob = new_page()
    log_in(bob, "bob")
    bob.goto("/ladders/singles/open-games/")
    checked(bob, axe)
    bob.get_by_role("button", name="Join").click()
    expect(bob.get_by_text("You are in.")).to_be_visible()
    expect(bob.locator(".game").first).to_contain_text("Full")
    checked(bob, axe)
