"""Issue 37 item 4: the integrity page is linked, with its count of open flags, from the
moderators' menu, the moderation queue and the ladder's page; members see none of it."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from ladder.integrity.models import Flag
from ladder.matches.models import Match
from tests.factories import login
from tests.integrity.support import Club
from tests.integrity.test_flags import trade

pytestmark = pytest.mark.django_db

LINK = re.compile(r'<a[^>]*href="/ladders/honest/integrity/"[^>]*>(.*?)</a>', re.S)


def texts(page: str) -> list[str]:
    return [" ".join(re.sub(r"<[^>]+>", " ", m).split()) for m in LINK.findall(page)]


def test_the_moderator_finds_the_integrity_page_with_its_open_flags(club: Club, mod) -> None:  # type: ignore[no-untyped-def]
    trade(club, 12)
    client = login(Client(), mod)
    # The flags are found on the way (the detectors run when the ratings changed): the
    # count is the integrity page's before anyone opened it.
    menu = client.get("/ladders/").content.decode()
    open_flags = Flag.objects.filter(ladder=club.ladder, state="open", current=True).count()
    assert open_flags >= 1
    assert texts(menu) == [f"Integrity: Integrity Singles {open_flags}"]
    assert f'aria-label="{open_flags} open flag' in menu

    queue = client.get("/moderation/").content.decode()
    assert f"Integrity Singles {open_flags} open flag" in " ".join(texts(queue))

    ladder_page = client.get("/ladders/honest/").content.decode()
    assert f"Integrity: {open_flags} open flag" in " ".join(texts(ladder_page))

    Flag.objects.filter(ladder=club.ladder).update(state="dismissed")
    queue = client.get("/moderation/").content.decode()
    assert "Integrity Singles No open flags" in texts(queue)


def test_members_see_no_integrity_link(club: Club) -> None:
    client = login(Client(), club.members[1])
    for url in ("/ladders/", "/ladders/honest/"):
        assert texts(client.get(url).content.decode()) == []


def test_the_ban_and_lift_messages_count_in_words(club: Club, mod) -> None:  # type: ignore[no-untyped-def]
    client = login(Client(), mod)
    banned = client.post(
        "/ladders/honest/bans/",
        {"username": "cheat", "reason": "Traded wins.", "scope": "all"},
        follow=True,
    ).content.decode()
    withheld = Match.objects.filter(players__user=club.cheat, state="voided").count()
    assert withheld > 1
    assert f"{withheld} rated matches withheld, 0 waiting reports cancelled" in banned
    assert "(es)" not in banned and "(s)" not in banned
    lifted = client.post("/ladders/honest/bans/cheat/lift/", {"reason": ""}, follow=True)
    page = lifted.content.decode()
    assert f"is lifted: {withheld} matches count again" in page
    assert "(es)" not in page and "(s)" not in page
