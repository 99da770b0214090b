"""Every page on a phone (390×844) and a desktop (1280×800), signed out, as a member and as a
moderator, on the demo club: nothing scrolls sideways (nor at 360 px), and axe-core finds no
serious or critical problem. Also the name type-ahead from the keyboard and a cancel that asks
first. UPDATE_SCREENSHOTS=1 saves the main pages under docs/screenshots/ (looked at)."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from accounts.tokens import issue_token
from ladder.clubnight import services as clubnight
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import join_ladder, set_away
from ladder.demo import DEMO_PASSWORD
from ladder.matches.models import Match
from ladder.matches.operations import correct_match
from ladder.matches.permissions import allowed_actions
from tests.browser import support
from tests.browser.checks import check_widths, make_axe, sideways
from tests.factories import UserFactory

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
NARROWEST = 360
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# The demo's member and moderator (ladder/demo.py).
MEMBER, MODERATOR = "daniel", "mod"
# The pages kept in docs/screenshots/, by role.
SHOWCASE = {
    "member": {
        "home",
        "leaderboard",
        "player",
        "report-form",
        "match",
        "match-rated",
        "inbox",
        "notifications",
        "club-night",
        "season-current",
        "club-night-round-scores",
    },
    "moderator": {"moderation", "seasons"},
}


@pytest.fixture
def demo(transactional_db):  # type: ignore[no-untyped-def]
    """The demo club, and the matches each page needs: one for the member to confirm, one of
    the member's own reports, and a dispute for the moderator."""
    call_command("seed_demo", force=True, stdout=io.StringIO())  # pytest-django: DEBUG off
    member = User.objects.get(username=MEMBER)
    # The newest report the member may confirm: one by the other side (on a Friday evening
    # the newest is a 5v5 map that the member's own teammate may have reported).
    pending = Match.objects.filter(state="pending", players__user=member).distinct()
    return {
        "to_confirm": next(
            m for m in pending if {"confirm", "dispute"} <= allowed_actions(m, member)
        ),
        "disputed": Match.objects.filter(state="disputed").first(),
        **widening_states(member),
    }


# Names as long as members have them: two surnames, a hyphen, a long first name.
LONG_NAMES = {
    MEMBER: "Daniel Oluwaseun Kim-Featherstonehaugh",
    "priya": "Priya Venkataraman-Subramanian",
    "emma": "Emma Clarke-Wolfeschlegelsteinhausen",
}


def widening_states(member) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The states that made pages wider than a phone (issue 23): long names, a corrected
    match (its history says before → after, the date and the proposal), an API token,
    lineups chosen (doubles and five a side: points at stake for 4 and 10 players), and a
    member not yet rated who is away."""
    for username, name in LONG_NAMES.items():
        User.objects.filter(username=username).update(display_name=name)
    member.refresh_from_db()
    issue_token(member, "results script on the club's old laptop in the hall")
    moderator = User.objects.get(username=MODERATOR)
    confirmed = (
        Match.objects.filter(state="confirmed", players__user=member, ladder__slug="singles")
        .with_details()
        .order_by("-played_on")
        .first()
    )
    corrected = correct_match(
        confirmed,
        moderator,
        [(21, 19), (15, 21), (21, 17)],
        "Both players agree on three games; it was played the day before.",
        played_on=confirmed.played_on - timedelta(days=1),
    )
    fives = list(
        Membership.objects.filter(ladder__slug="team-5v5")
        .exclude(user=member)
        .order_by("user__username")
        .values_list("user__username", flat=True)[:9]
    )
    doubles = ["priya", "mei", "emma"]
    guest_court_correct = club_night_with_guests_and_courts(member)
    # Not yet rated and away, with a long name: the doubles board's "Not yet rated" row.
    newcomer = UserFactory(username="zara", display_name="Zara Oluwaseun-Featherstonehaugh")
    join_ladder(newcomer, Ladder.objects.get(slug="doubles"))
    set_away(
        newcomer, Ladder.objects.get(slug="doubles"), timezone.localdate() + timedelta(days=30)
    )
    return {
        "guest_court_correct": guest_court_correct,
        "corrected": corrected,
        "doubles_h2h": f"/ladders/doubles/head-to-head/?a={MEMBER}&a={doubles[0]}"
        f"&b={doubles[1]}&b={doubles[2]}",
        "doubles_report": f"/ladders/doubles/report/?side_a={MEMBER},{doubles[0]}"
        f"&side_b={doubles[1]},{doubles[2]}",
        "fives_h2h": "/ladders/team-5v5/head-to-head/?"
        + "&".join([f"a={MEMBER}", *(f"a={u}" for u in fives[:4]), *(f"b={u}" for u in fives[4:])]),
        "fives_report": f"/ladders/team-5v5/report/?side_a={','.join([MEMBER, *fives[:4]])}"
        f"&side_b={','.join(fives[4:])}",
    }


@pytest.fixture(scope="session")
def axe() -> Callable[[object], list[str]]:
    """Run axe-core (shipped in axe-playwright-python, injected: no network) on a page."""
    return make_axe()


def log_in(page, username: str) -> None:  # type: ignore[no-untyped-def]
    support.log_in(page, username, DEMO_PASSWORD)


def save_screenshot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """The visible part of the page as a small palette PNG under docs/screenshots/."""
    from PIL import Image

    DOCS.mkdir(parents=True, exist_ok=True)
    image = Image.open(io.BytesIO(page.screenshot()))
    image.convert("RGB").quantize(colors=256).save(DOCS / f"{name}.png", optimize=True)


def survey(page, axe, pages: dict[str, str], role: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Visit each page once and check it at 360, 390 and 1280 px (resized, not reloaded):
    a list of what is wrong (empty when all is well)."""
    problems = []
    shots = os.environ.get("UPDATE_SCREENSHOTS")
    for name, url in pages.items():
        page.set_viewport_size(PHONE)
        response = page.goto(url)
        where = f"{role} {name} {url}"
        # 304: a visitor's page the browser kept (public for 30 s) and revalidated.
        if response is None or response.status not in (200, 304):
            problems.append(f"{where}: HTTP {response.status if response else '?'}")
            continue
        problems += check_widths(page, axe, where)
        if shots and name in SHOWCASE.get(role, ()):
            for size, label in ((PHONE, "phone"), (DESKTOP, "desktop")):
                page.set_viewport_size(size)
                save_screenshot(page, f"{name}-{label}")
    return problems


def visitor_pages() -> dict[str, str]:
    return {
        "home": "/",
        "ladders": "/ladders/",
        "leaderboard": "/ladders/singles/",
        "leaderboard-doubles": "/ladders/doubles/",
        "leaderboard-5v5": "/ladders/team-5v5/",
        "player": f"/players/{MEMBER}/",
        "head-to-head": f"/ladders/singles/head-to-head/?a={MEMBER}&b=priya",
        "login": "/accounts/login/",
        "signup": "/accounts/signup/",
        "password-reset": "/accounts/password/reset/",
        **season_pages(),
    }


def season_pages() -> dict[str, str]:
    """The seasons list, the current season's table and the archived one (RULES.md "Seasons")."""
    from ratings.models import Season

    seasons = Season.objects.filter(ladder__slug="singles").order_by("starts_on")
    archived, current = seasons[0], seasons[1]
    return {
        "seasons": "/ladders/singles/seasons/",
        "season-archived": archived.get_absolute_url(),
        "season-current": current.get_absolute_url(),
    }


def member_pages(demo) -> dict[str, str]:  # type: ignore[no-untyped-def]
    match = demo["to_confirm"]
    rated = Match.objects.filter(state="confirmed", players__user__username=MEMBER).first()
    assert rated is not None
    return {
        "home": "/",
        "leaderboard": "/ladders/singles/",
        "player": f"/players/{MEMBER}/",
        "head-to-head": "/ladders/doubles/head-to-head/",
        "report-form": "/ladders/doubles/report/",
        "report-form-5v5": "/ladders/team-5v5/report/",
        "match": f"/matches/{match.pk}/",
        "match-rated": f"/matches/{rated.pk}/",
        "player-3-months": f"/players/{MEMBER}/?range=3m",
        "dispute-form": f"/matches/{match.pk}/dispute/",
        "inbox": "/inbox/",
        "notifications": "/notifications/",
        "club-night": "/ladders/singles/club-night/",
        "challenge-form": "/ladders/singles/challenge/",
        "challenges": "/challenges/",
        "open-games": "/ladders/singles/open-games/",
        "open-games-doubles": "/ladders/doubles/open-games/",
        "calendar": "/calendar/",
        "profile": "/accounts/profile/",
        "tokens": "/accounts/tokens/",
        "password-change": "/accounts/password/change/",
        "report-start": "/report/",
        # The states that widen pages (widening_states).
        "match-corrected": f"/matches/{demo['corrected'].pk}/",
        "head-to-head-doubles-chosen": demo["doubles_h2h"],
        "head-to-head-5v5-chosen": demo["fives_h2h"],
        "report-form-doubles-chosen": demo["doubles_report"],
        "report-form-5v5-chosen": demo["fives_report"],
        "season-current": season_pages()["season-current"],
        # Club night (the "club-night" page above) with a guest and four courts, and its
        # round's scores on one screen, and the guest's game's score to correct.
        "club-night-round-scores": "/ladders/singles/club-night/rounds/1/scores/",
        "club-night-correct": demo["guest_court_correct"],
    }


def club_night_with_guests_and_courts(member) -> str:  # type: ignore[no-untyped-def]
    """Tonight's singles club night: a guest with a long name, a round on four courts, the
    first court's score and the guest's entered (its round's screen shows the others'
    boxes); the address that corrects the guest's."""
    singles = Ladder.objects.get(slug="singles")
    others = (
        Membership.objects.filter(ladder=singles, is_public=True, user__is_active=True)
        .exclude(user=member)
        .select_related("user")
        .order_by("user__username")[:6]
    )
    guest = clubnight.add_guest(singles, member, "Visiting Venkataraman-Subramanian-Okonkwo")
    hall = [member, *(m.user for m in others)]
    _, rnd = clubnight.add_round(singles, member, hall, courts=4, guest_ids=[guest.id])
    court = next(n for n, m in enumerate(rnd.matches, start=1) if guest.id in m.side_a + m.side_b)
    clubnight.enter_scores(singles, member, 1, {1: [(21, 15), (21, 18)], court: [(21, 9), (21, 7)]})
    return f"/ladders/singles/club-night/rounds/1/courts/{court}/correct/"


def moderator_pages(demo) -> dict[str, str]:  # type: ignore[no-untyped-def]
    match = demo["disputed"]
    return {
        "home": "/",
        "moderation": "/moderation/",
        "disputed-match": f"/matches/{match.pk}/",
        "resolve-form": f"/matches/{match.pk}/resolve/",
        "inbox": "/inbox/",
        "notifications": "/notifications/",
        "club-night": "/ladders/doubles/club-night/",
        "integrity": "/ladders/singles/integrity/",
        "leaderboard": "/ladders/singles/",
        **season_pages(),
        "season-edit": season_pages()["season-current"] + "edit/",
        "challenges-everyone": "/challenges/?all=1",
    }


@pytest.mark.parametrize("role", ["visitor", "member", "moderator"])
def test_every_page_fits_a_phone_and_passes_axe(role, new_page, demo, axe) -> None:  # type: ignore[no-untyped-def]
    pages = {
        "visitor": visitor_pages,
        "member": lambda: member_pages(demo),
        "moderator": lambda: moderator_pages(demo),
    }[role]()
    page = new_page()
    if role != "visitor":
        log_in(page, MEMBER if role == "member" else MODERATOR)
    problems = survey(page, axe, pages, role)
    assert not problems, "\n".join(problems)


def test_club_night_rounds_fit_a_phone(page, demo, axe) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(PHONE)
    log_in(page, MEMBER)
    page.goto("/ladders/doubles/club-night/")
    boxes = page.locator("input[name=present]")
    for i in range(9):
        boxes.nth(i).check()
    page.get_by_role("button", name=re.compile("Propose")).first.click()
    expect(page.locator(".proposed-match").first).to_be_visible()
    assert sideways(page) is None
    assert axe(page) == []


def test_the_name_type_ahead_works_from_the_keyboard(page, demo) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(PHONE)
    log_in(page, MEMBER)
    page.goto("/ladders/doubles/report/")
    box = page.get_by_role("combobox", name="Opponent 1")
    expect(box).to_have_attribute("aria-expanded", "false")
    box.press_sequentially("pri", delay=40)
    listbox = page.get_by_role("listbox", name="Matching members").first
    expect(listbox.get_by_role("option", name=re.compile("Priya"))).to_be_visible()
    expect(box).to_have_attribute("aria-expanded", "true")

    box.press("ArrowDown")
    active = box.get_attribute("aria-activedescendant")
    assert active, "ArrowDown highlights the first name"
    expect(page.locator(f"#{active}")).to_have_attribute("aria-selected", "true")
    box.press("Enter")  # picks; does not report the match
    expect(page.locator("#picked-opponent_1")).to_have_text(re.compile("^✓ Priya "))
    expect(page).to_have_url(re.compile(r"/ladders/doubles/report/$"))
    box = page.get_by_role("combobox", name="Opponent 1")
    expect(box).to_be_focused()
    expect(box).to_have_value("priya")
    expect(box).to_have_attribute("aria-expanded", "false")

    other = page.get_by_role("combobox", name="Opponent 2")
    other.press_sequentially("a", delay=40)
    expect(other).to_have_attribute("aria-expanded", "true")
    other.press("Escape")
    expect(other).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#options-opponent_2 [role=option]")).to_have_count(0)

    # Head-to-head's boxes share a <datalist>: Chromium makes each a native combobox (arrows
    # move, Enter picks, Escape closes) and HTMX refreshes the names as you type.
    page.goto("/ladders/doubles/head-to-head/")
    expect(page.get_by_role("combobox", name="Side A, player 1")).to_be_visible()
    expect(page.get_by_role("combobox")).to_have_count(4)


def test_skip_link_and_a_cancel_that_asks_first(page, demo) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(PHONE)
    log_in(page, MEMBER)
    page.goto("/inbox/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    # Focus is visible: an outline of at least 2 px on what has it.
    assert page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2; }"
    )
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()

    mine = Match.objects.filter(state="pending", reporter__username=MEMBER).first()
    row = page.locator(f"#inbox-match-{mine.pk}")
    yes = row.get_by_role("button", name="Yes, cancel it")
    expect(yes).to_be_hidden()
    row.get_by_text("Cancel report").click()  # only asks
    expect(yes).to_be_visible()
    mine.refresh_from_db()
    assert mine.state == "pending"
    yes.click()
    expect(row).to_contain_text("Report cancelled")
    mine.refresh_from_db()
    assert mine.state == "cancelled"


def test_icons_and_web_manifest(page, live_server) -> None:  # type: ignore[no-untyped-def]
    page.goto("/accounts/login/")
    manifest = page.locator("link[rel=manifest]").get_attribute("href")
    icons = page.locator("link[rel=icon], link[rel=apple-touch-icon]")
    assert icons.count() >= 2
    for i in range(icons.count()):
        assert page.request.get(icons.nth(i).get_attribute("href")).ok
    answer = page.request.get(manifest).json()
    assert answer["display"] == "standalone" and answer["start_url"] == "/"
    base = manifest.rsplit("/", 1)[0]
    sizes = set()
    for icon in answer["icons"]:
        assert page.request.get(f"{base}/{icon['src']}").ok, icon["src"]
        sizes.add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes


def test_the_inbox_dispute_form_fits_a_phone(page, demo, axe) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": NARROWEST, "height": PHONE["height"]})
    log_in(page, MEMBER)
    page.goto("/inbox/")
    row = page.locator(f"#inbox-match-{demo['to_confirm'].pk}")
    row.get_by_role("link", name="Dispute").click()  # the form takes the row's place (HTMX)
    expect(row.get_by_label(re.compile(r"^Game 1: ")).first).to_be_visible()
    # Once HTMX has settled the swap (a loaded machine may catch the row half laid out).
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(100)
    assert sideways(page) is None
    assert axe(page) == []


NAV_ROWS_JS = """() => {
  const nav = document.querySelector('nav.nav');
  const tops = [...nav.children].filter(e => e.offsetWidth > 0 && e.offsetHeight > 0)
    .map(e => Math.round(e.getBoundingClientRect().top));
  return new Set(tops).size;
}"""


@pytest.mark.parametrize("username", [MEMBER, MODERATOR])
def test_the_site_bar_keeps_to_two_rows_on_a_phone(new_page, demo, axe, username) -> None:  # type: ignore[no-untyped-def]
    """At most two rows at 390 and 360 px, one at 1280; what is not in the bar is in its
    menu, which a keyboard opens, whose items are big enough to tap, and which Escape
    closes (focus back on it)."""
    page = new_page()
    log_in(page, username)
    nav = page.get_by_role("navigation", name="Site")
    for width, rows in ((390, 2), (360, 2), (1280, 1)):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto("/ladders/")
        assert page.evaluate(NAV_ROWS_JS) <= rows, f"{username} at {width} px"
        assert sideways(page) is None
        menu = nav.locator("details.nav-menu > summary")
        menu.focus()
        page.keyboard.press("Enter")
        phone = width < 640  # Challenges and Moderation: in the bar on a desktop
        wanted = ["Your profile", "Log out"] + (["Challenges"] if phone else [])
        if username == MODERATOR:
            wanted += ["Admin"] + (["Moderation"] if phone else [])
        for name in wanted:
            item = nav.get_by_role("link", name=name).or_(nav.get_by_role("button", name=name))
            expect(item.first).to_be_visible()
            box = item.first.bounding_box()
            assert box is not None and box["height"] >= 44, (width, name, box)
        # Each is there once at every width: in the bar on a desktop, in the menu on a phone.
        expect(nav.get_by_role("link", name="Challenges")).to_have_count(1)
        expect(nav.get_by_role("link", name="Moderation")).to_have_count(
            1 if username == MODERATOR else 0
        )
        assert sideways(page) is None
        assert axe(page) == []
        page.keyboard.press("Escape")
        expect(nav.get_by_role("button", name="Log out")).to_be_hidden()
        assert page.evaluate("document.activeElement.tagName") == "SUMMARY"


def test_the_admin_s_ladder_page_does_not_scroll_sideways(new_page, demo) -> None:  # type: ignore[no-untyped-def]
    """Seen at 1280 px: the ladder's members table (seven columns) made the whole page
    1,872 px wide. It scrolls inside its own box now, and every member row is still there."""
    page = new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/admin/login/?next=/admin/")
    page.get_by_label("Username").fill("admin")
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    singles = Ladder.objects.get(slug="singles")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"/admin/clubs/ladder/{singles.pk}/change/")
        expect(page.get_by_role("heading", name="Memberships")).to_be_visible()
        assert sideways(page) is None, width
        rows = page.locator(".inline-group .tabular tr.form-row.has_original")
        assert rows.count() == Membership.objects.filter(ladder=singles).count()
