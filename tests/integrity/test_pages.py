"""The integrity pages (issue 26): moderators see and decide flags, ban and lift from the
page; members and visitors are refused; the banned member sees the decision and reason."""

from __future__ import annotations

import pytest
from django.test import Client

from ladder.integrity.models import Ban, Flag, IntegrityEntry
from ladder.matches.models import Match, Notification
from tests.factories import login
from tests.integrity.support import ratings_of
from tests.integrity.test_flags import trade

pytestmark = pytest.mark.django_db


def test_the_moderator_page_lists_flags_with_reasons_and_forms(club, mod) -> None:
    trade(club, 12)
    response = login(Client(), mod).get("/ladders/honest/integrity/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Win trading" in page and "Ann and Ben played each other 12 times" in page
    flag = Flag.objects.get(kind="win_trading")
    assert f'action="/ladders/honest/integrity/{flag.pk}/"' in page
    assert 'action="/ladders/honest/bans/"' in page
    for match_id in flag.matches:
        assert f'href="/matches/{match_id}/"' in page


@pytest.mark.parametrize("who", ["member", "visitor"])
def test_members_and_visitors_are_refused(club, who) -> None:
    client = Client()
    if who == "member":
        login(client, club.members[1])
    response = client.get("/ladders/honest/integrity/")
    if who == "visitor":
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == 403
        assert (
            "Only moderators see the integrity of Integrity Singles." in response.content.decode()
        )
    posted = client.post("/ladders/honest/bans/", {"username": "cheat", "reason": "x"})
    assert posted.status_code in (302, 403)
    assert not Ban.objects.exists()


def test_deciding_a_flag_from_the_page(club, mod) -> None:
    trade(club, 12)
    client = login(Client(), mod)
    client.get("/ladders/honest/integrity/")
    flag = Flag.objects.get(kind="win_trading")
    refused = client.post(f"/ladders/honest/integrity/{flag.pk}/", {"state": "kept", "note": ""})
    assert refused.status_code == 302
    flag.refresh_from_db()
    assert flag.state == "open" and not IntegrityEntry.objects.exists()
    done = client.post(
        f"/ladders/honest/integrity/{flag.pk}/",
        {"state": "dismissed", "note": "Doubles partners."},
        follow=True,
    )
    assert f"Flag {flag.pk} dismissed: Doubles partners." in done.content.decode()
    flag.refresh_from_db()
    assert (flag.state, flag.note, flag.decided_by) == ("dismissed", "Doubles partners.", mod)


def test_ban_and_lift_from_the_page_and_the_member_sees_the_decision(club, mod) -> None:
    client = login(Client(), mod)
    ratings = ratings_of(club.ladder)
    bad = client.post("/ladders/honest/bans/", {"username": "cheat", "reason": "", "scope": "all"})
    assert bad.status_code == 400
    assert "Give the reason for the ban" in bad.content.decode()
    undated = client.post(
        "/ladders/honest/bans/", {"username": "cheat", "reason": "Why.", "scope": "since"}
    )
    assert undated.status_code == 400 and not Ban.objects.exists()

    done = client.post(
        "/ladders/honest/bans/",
        {"username": "cheat", "reason": "Traded wins.", "scope": "all"},
        follow=True,
    )
    page = done.content.decode()
    assert "Cheat is banned from Integrity Singles" in page
    assert "Lift the ban of Cheat" in page
    assert Ban.objects.active().get().user == club.cheat

    member = login(Client(), club.cheat)
    notice = Notification.objects.get(user=club.cheat)
    seen = member.get(notice.url).content.decode()
    assert "banned you from Integrity Singles" in seen and "Traded wins." in seen
    listed = member.get("/notifications/").content.decode()
    assert 'href="/ladders/honest/ban/"' in listed
    refused = member.post(
        "/ladders/honest/report/",
        {"played_on": "2026-01-01", "side_a_0": "cheat", "side_b_0": "ann"},
    )
    assert "banned you from Integrity Singles" in refused.content.decode()

    lifted = client.post("/ladders/honest/bans/cheat/lift/", {"reason": "Appeal."}, follow=True)
    assert "The ban of Cheat is lifted" in lifted.content.decode()
    assert ratings_of(club.ladder) == ratings
    assert "was lifted" in member.get("/ladders/honest/ban/").content.decode()
    assert set(Match.objects.values_list("state", flat=True)) == {"confirmed"}


def test_a_member_without_a_ban_sees_none(club) -> None:
    page = login(Client(), club.members[1]).get("/ladders/honest/ban/").content.decode()
    assert "There is no moderation decision about you on Integrity Singles." in page
