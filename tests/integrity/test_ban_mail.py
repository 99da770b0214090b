"""Issue 37 item 4: a ban, its lifting and the recalculated ratings they cause reach the members
by e-mail too (after the commit), in the recipient's notification settings."""

from __future__ import annotations

import pytest
from django.core import mail

from ladder.integrity import bans
from ladder.matches.models import MailSettings, Notification
from tests.integrity.support import Club

pytestmark = pytest.mark.django_db


def test_ban_and_lift_are_mailed_to_everyone_told(
    club: Club, mod, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    Notification.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=False) as waiting:
        bans.ban_member(club.ladder, mod, "cheat", "Traded wins with a friend.", None)
    assert mail.outbox == [], "nothing is mailed before the ban commits"
    for callback in waiting:
        callback()

    told = {n.user.email: n.text for n in Notification.objects.select_related("user")}
    assert len(told) > 1  # the banned member and the opponents whose rating moved
    assert {m.to[0]: m.body for m in mail.outbox}.keys() == told.keys()
    for message in mail.outbox:
        assert told[message.to[0]] in message.body
    banned = next(m for m in mail.outbox if m.to == [club.cheat.email])
    assert banned.subject == "A moderator banned you from Integrity Singles"
    assert "/ladders/honest/ban/" in banned.body
    other = next(m for m in mail.outbox if m.to != [club.cheat.email])
    assert other.subject == (
        "After a moderation decision on Integrity Singles your rating was recalculated"
    )

    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        bans.lift_ban(club.ladder, mod, "cheat", "Appeal upheld.")
    lifted = next(m for m in mail.outbox if m.to == [club.cheat.email])
    assert lifted.subject == "A moderator lifted your ban from Integrity Singles"
    assert "Appeal upheld." in lifted.body
    assert len(mail.outbox) == len(told)


def test_a_member_who_turned_moderation_mail_off_is_only_told_on_the_site(
    club: Club, mod, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    MailSettings.objects.create(user=club.cheat, muted=["moderation"])
    with django_capture_on_commit_callbacks(execute=True):
        bans.ban_member(club.ladder, mod, "cheat", "Traded wins with a friend.", None)
    assert Notification.objects.filter(user=club.cheat).count() == 1
    assert club.cheat.email not in [m.to[0] for m in mail.outbox]
    assert mail.outbox, "the others still hear of their recalculated rating"
