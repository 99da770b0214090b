"""In Chromium: a moderator opens a ladder's integrity page on a phone, dismisses a flag with a
note, bans a member and lifts the ban; the banned member reads the decision. The pages fit
360, 390 and 1280 px without sideways scrolling, axe-core finds nothing serious or critical,
and every control is at least 44 px high. Screenshot: integrity (looked at)."""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.roles import make_moderator
from ladder.integrity.models import Ban, Flag
from ladder.matches.models import Game, Match, MatchPlayer
from ratings.pipeline import rate_ladder
from tests.browser.support import log_in
from tests.factories import LadderFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.browser

SIZES = (
    {"width": 360, "height": 800},
    {"width": 390, "height": 844},
    {"width": 1280, "height": 800},
)
NAMES = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"]


@pytest.fixture
def club(transactional_db):  # type: ignore[no-untyped-def]
    """A singles ladder of eight, a season of matches, and Ann and Ben trading wins."""
    ladder = LadderFactory(name="Club Singles", slug="singles")
    users = {}
    for i, name in enumerate(NAMES):
        users[name] = UserFactory(username=name, display_name=f"{name.capitalize()} Player")
        MembershipFactory(
            ladder=ladder, user=users[name], self_level=Decimal(f"{3.5 + i % 4 * 0.5}")
        )
    mod = UserFactory(username="mod", display_name="Morgan Moderator")
    make_moderator(mod)
    rng = random.Random(3)
    start = timezone.localdate() - timedelta(days=60)

    def play(a: str, b: str, day: int, games: list[tuple[int, int]]) -> None:
        match = Match.objects.create(
            ladder=ladder,
            played_on=start + timedelta(days=day),
            reporter=users[a],
            state="confirmed",
            needs_rating=True,
        )
        MatchPlayer.objects.create(match=match, user=users[a], side="a", position=0)
        MatchPlayer.objects.create(match=match, user=users[b], side="b", position=0)
        for n, (x, y) in enumerate(games, 1):
            Game.objects.create(match=match, number=n, a_points=x, b_points=y)

    for day in range(50):
        a, b = rng.sample(NAMES, 2)
        if {a, b} == {"ann", "ben"}:
            continue  # they meet only to trade
        play(a, b, day, [(21, rng.randint(5, 19)), (21, rng.randint(5, 19))])
    for i in range(12):
        play(*(("ann", "ben") if i % 2 else ("ben", "ann")), 20 + i * 3, [(21, 19), (22, 20)])
    rate_ladder(ladder.pk)
    return ladder


def problems(page, axe) -> list[str]:  # type: ignore[no-untyped-def]
    """Sideways scrolling at each size, axe's serious or critical findings, small controls."""
    found = []
    for size in SIZES:
        page.set_viewport_size(size)
        wide = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        if wide[0] > wide[1]:
            found.append(f"{size['width']} px: {wide[0]} px wide")
        small = page.evaluate(
            """() => [...document.querySelectorAll('main button, main input, main textarea,'
                 + ' main summary, main .match-links a')]
                .filter(e => e.offsetParent !== null && !e.classList.contains('visually-hidden'))
                .filter(e => e.type !== 'radio' && e.getBoundingClientRect().height < 44)
                .map(e => `${e.tagName} ${e.name || e.textContent.trim().slice(0, 30)}`)"""
        )
        found += [f"{size['width']} px: under 44 px: {s}" for s in small]
    found += axe(page)
    return found


@pytest.fixture
def axe():  # type: ignore[no-untyped-def]
    from axe_playwright_python.sync_playwright import Axe

    runner = Axe()

    def run(page) -> list[str]:  # type: ignore[no-untyped-def]
        violations = runner.run(page).response["violations"]
        return [
            f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in violations
            if v["impact"] in ("serious", "critical")
        ]

    return run


def test_a_moderator_dismisses_a_flag_bans_and_lifts_on_a_phone(
    club, new_page, axe, screenshot
) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, "mod")
    page.goto("/ladders/singles/integrity/")
    flag = page.locator("article.flag").filter(has_text="Win trading")
    expect(flag).to_contain_text("Ann Player and Ben Player played each other 12 times")
    assert problems(page, axe) == []
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "integrity")

    flag.get_by_label("Note on flag").fill("They train together on Tuesdays.")
    flag.get_by_role("button", name="Dismiss").click()
    expect(page.locator(".message")).to_contain_text("dismissed: They train together on Tuesdays.")
    assert Flag.objects.get(kind="win_trading").state == "dismissed"

    page.get_by_label("Member's username").fill("ann")
    page.get_by_label("Reason (the member sees it)").fill("Arranged results with Ben.")
    page.get_by_role("button", name="Ban and recalculate").click()
    expect(page.locator(".message")).to_contain_text("Ann Player is banned from Club Singles")
    assert problems(page, axe) == []
    assert Ban.objects.active().get().user.username == "ann"

    member = new_page()
    member.set_viewport_size({"width": 390, "height": 844})
    log_in(member, "ann")
    member.goto("/notifications/")
    member.get_by_role("link", name="A moderator banned you from Club Singles").click()
    expect(member.locator("main")).to_contain_text("Arranged results with Ben.")
    assert problems(member, axe) == []

    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_role("button", name="Lift the ban of Ann Player").click()
    expect(page.locator(".message")).to_contain_text("The ban of Ann Player is lifted")
    assert not Ban.objects.active().exists()
