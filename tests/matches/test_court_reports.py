"""Issue 23: a report's life as its players meet it. The reporter changes a pending report
(the opponents confirm the new version), a cancel tells the opponents, partners hear of a
report naming them, and each member chooses which events e-mail them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from ladder.matches import operations
from ladder.matches.errors import MatchPermissionError, MatchStateError, MatchValidationError
from ladder.matches.models import AuditEntry, MailSettings, Match, Notification
from ladder.matches.permissions import allowed_actions
from tests.matches.support import doubles_match, unchanged

HX = {"HTTP_HX_REQUEST": "true"}


def kinds(user) -> list[str]:  # type: ignore[no-untyped-def]
    return list(
        Notification.objects.filter(user=user).order_by("pk").values_list("kind", flat=True)
    )


def unread(user, kind: str) -> int:  # type: ignore[no-untyped-def]
    return Notification.objects.filter(user=user, kind=kind, read_at__isnull=True).count()


# ---- edit a pending report ---------------------------------------------------------------------


def test_the_reporter_changes_a_pending_report(
    doubles, alice, bob, charlie, dave, django_capture_on_commit_callbacks
):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    assert "edit" in allowed_actions(match, alice)
    yesterday = match.played_on - timedelta(days=1)
    with django_capture_on_commit_callbacks(execute=True):
        operations.edit_match(match, alice, [(21, 15), (19, 21), (21, 17)], played_on=yesterday)
    match = Match.objects.with_details().get(pk=match.pk)
    assert (match.state, match.game_scores, match.played_on) == (
        "pending",
        [(21, 15), (19, 21), (21, 17)],
        yesterday,
    )
    entry = AuditEntry.objects.filter(match=match).order_by("pk").last()
    assert (entry.action, entry.actor, entry.from_state, entry.to_state) == (
        "edit",
        alice,
        "pending",
        "pending",
    )
    assert entry.before["games"] == [[21, 15], [21, 18]]
    assert entry.after["games"] == [[21, 15], [19, 21], [21, 17]]
    assert entry.after["played_on"] == yesterday.isoformat()
    # The opponents' old notice is done with; the new one asks them to confirm the new version.
    for opponent in (charlie, dave):
        assert kinds(opponent) == ["to_confirm", "edited"]
        assert unread(opponent, "to_confirm") == 0 and unread(opponent, "edited") == 1
    assert kinds(bob) == ["partner", "edited"]
    changed = Notification.objects.get(user=charlie, kind="edited").text
    assert "changed their report" in changed and "21\u201315 19\u201321 21\u201317" in changed
    mailed = [m for m in mail.outbox if "changed a report" in m.subject]
    assert sorted(m.to[0] for m in mailed) == ["charlie@example.org", "dave@example.org"]
    assert "It said" in mailed[0].body and "21-15 19-21 21-17" in mailed[0].body
    # The opponent confirms the new version.
    operations.confirm_match(match, charlie)
    assert Match.objects.get(pk=match.pk).state == "confirmed"


@pytest.mark.parametrize(
    ("who", "error"),
    [("bob", MatchPermissionError), ("charlie", MatchPermissionError)],
)
def test_only_the_reporter_changes_a_report(doubles, alice, bob, charlie, dave, who, error):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    user = {"bob": bob, "charlie": charlie}[who]
    with unchanged(match), pytest.raises(error, match="Only Alice Archer, who reported"):
        operations.edit_match(match, user, [(21, 10), (21, 10)])


def test_a_change_that_is_no_change_or_not_a_score_is_refused(doubles, alice, bob, charlie, dave):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    with unchanged(match), pytest.raises(MatchValidationError) as same:
        operations.edit_match(match, alice, [(21, 15), (21, 18)])
    assert same.value.errors == {
        "games": ["That is the score and date already reported; nothing changed."]
    }
    with unchanged(match), pytest.raises(MatchValidationError) as bad:
        operations.edit_match(match, alice, [(21, 15)])
    assert "not finished" in " ".join(bad.value.errors["games"])
    future = timezone.localdate() + timedelta(days=1)
    with unchanged(match), pytest.raises(MatchValidationError) as later:
        operations.edit_match(match, alice, [(21, 10), (21, 10)], played_on=future)
    assert later.value.errors == {"played_on": ["The date cannot be in the future."]}


def test_a_confirmed_report_cannot_be_changed(doubles, alice, bob, charlie, dave):
    match = operations.confirm_match(doubles_match(doubles, alice, bob, charlie, dave), charlie)
    with unchanged(match), pytest.raises(MatchStateError, match="already confirmed"):
        operations.edit_match(match, alice, [(21, 10), (21, 10)])
    assert "edit" not in allowed_actions(match, alice)


def test_a_confirm_of_the_version_before_a_change_is_refused(doubles, alice, bob, charlie, dave):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    seen = Match.objects.get(pk=match.pk).updated_at
    operations.edit_match(match, alice, [(21, 10), (21, 10)], now=seen + timedelta(seconds=5))
    with unchanged(match), pytest.raises(MatchStateError, match="changed this report since"):
        operations.confirm_match(match, charlie, seen=seen)
    fresh = Match.objects.get(pk=match.pk).updated_at
    assert operations.confirm_match(match, charlie, seen=fresh).state == "confirmed"


def test_the_edit_page_changes_the_report(client, doubles, alice, bob, charlie, dave):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    url = reverse("match_edit", args=[match.pk])
    client.force_login(alice)
    page = client.get(url).content.decode()
    assert 'value="18"' in page and "Save the change" in page
    data = {
        "played_on": match.played_on.isoformat(),
        "game_a": ["21", "17", "21"],
        "game_b": ["15", "21", "19"],
    }
    response = client.post(url, data)
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    assert Match.objects.with_details().get(pk=match.pk).game_scores == [
        (21, 15),
        (17, 21),
        (21, 19),
    ]
    # Errors stay on the form; nothing changes.
    with unchanged(match):
        refused = client.post(url, {**data, "game_b": ["15", "21", "-3"]})
    assert refused.status_code == 400
    assert "Game 3: -3 is not a score" in refused.content.decode()
    # Another player gets the 403 page, and the inbox offers the reporter "Change".
    client.force_login(charlie)
    assert client.get(url).status_code == 403
    with unchanged(match):
        assert client.post(url, data).status_code == 403
    client.force_login(alice)
    assert f'href="{url}"' in client.get(reverse("inbox")).content.decode()


def test_the_inbox_confirm_refuses_a_version_changed_since(
    client, doubles, alice, bob, charlie, dave
):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    client.force_login(charlie)
    page = client.get(reverse("inbox")).content.decode()
    assert 'name="seen" value="' in page
    seen = page.split('name="seen" value="', 1)[1].split('"', 1)[0]
    operations.edit_match(
        match, alice, [(21, 3), (21, 4)], now=timezone.now() + timedelta(seconds=2)
    )
    response = client.post(reverse("match_confirm", args=[match.pk]), {"seen": seen}, **HX)
    assert response.status_code == 409
    assert "changed this report since you opened it" in response.content.decode()
    assert Match.objects.get(pk=match.pk).state == "pending"


def test_the_api_changes_a_pending_report_by_patch(client, doubles, alice, bob, charlie, dave):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    url = f"/api/v1/matches/{match.pk}/"
    client.force_login(alice)
    response = client.patch(url, {"games": [[21, 9], [21, 8]]}, content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["games"] == [[21, 9], [21, 8]] or response.json()["score"] == "21-9 21-8"
    assert Match.objects.with_details().get(pk=match.pk).game_scores == [(21, 9), (21, 8)]
    with unchanged(match):
        bad = client.patch(url, {"games": [[21, 9]]}, content_type="application/json")
    assert bad.status_code == 400 and "games" in bad.json()
    assert (
        client.put(url, {"games": [[21, 9], [21, 8]]}, content_type="application/json").status_code
        == 405
    )
    client.force_login(charlie)
    with unchanged(match):
        denied = client.patch(url, {"games": [[21, 1], [21, 1]]}, content_type="application/json")
    assert denied.status_code == 403
    operations.confirm_match(match, charlie)
    client.force_login(alice)
    late = client.patch(url, {"games": [[21, 1], [21, 1]]}, content_type="application/json")
    assert late.status_code == 409


@pytest.mark.parametrize(
    "games", [[["21", "9"], ["21", "8"]], [[21, "9"], [21, 8]], [[" 21", 9], [21, 8]]]
)
def test_a_patch_refuses_scores_given_as_strings(client, doubles, alice, bob, charlie, dave, games):
    # Issue 36: PATCH took "21" for 21, a number the schema says is an integer.
    match = doubles_match(doubles, alice, bob, charlie, dave)
    client.force_login(alice)
    with unchanged(match):
        response = client.patch(
            f"/api/v1/matches/{match.pk}/", {"games": games}, content_type="application/json"
        )
    assert response.status_code == 400
    assert response.json() == {"games": ["Game 1: points are whole numbers, like [21, 15]."]}


# ---- cancel, partners --------------------------------------------------------------------------


def test_a_cancel_tells_the_opponents_and_retires_their_notice(
    doubles, alice, bob, charlie, dave, django_capture_on_commit_callbacks
):
    """Issue 23, bug 7: the opponent's notice stayed "New" and no one was told."""
    match = doubles_match(doubles, alice, bob, charlie, dave)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        operations.cancel_match(match, alice)
    for opponent in (charlie, dave):
        assert kinds(opponent) == ["to_confirm", "cancelled"]
        assert unread(opponent, "to_confirm") == 0
    assert kinds(bob) == ["partner", "cancelled"]
    text = Notification.objects.get(user=charlie, kind="cancelled").text
    assert text.startswith("Alice Archer cancelled their report of Alice Archer and Bob Baker v")
    assert sorted(m.to[0] for m in mail.outbox) == ["charlie@example.org", "dave@example.org"]
    assert "nothing to confirm" in mail.outbox[0].subject


def test_a_partner_is_told_and_mailed(
    doubles, alice, bob, charlie, dave, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        doubles_match(doubles, alice, bob, charlie, dave)
    assert kinds(bob) == ["partner"]
    partner_mail = [m for m in mail.outbox if m.to == ["bob@example.org"]]
    assert len(partner_mail) == 1 and "you played together" in partner_mail[0].subject


# ---- e-mail settings ---------------------------------------------------------------------------


def test_a_member_turns_an_e_mail_off_and_still_sees_the_notice(
    client, doubles, alice, bob, charlie, dave, django_capture_on_commit_callbacks
):
    client.force_login(charlie)
    url = reverse("notification_settings")
    page = client.get(url).content.decode()
    assert page.count('type="checkbox"') == 9 and page.count("checked") == 9
    assert "Challenges: one to me" in page and "Open games I am in" in page  # issue 25
    assert "A moderator bans me or lifts my ban" in page  # issue 37.4
    everything_but = ["partner", "confirmed", "disputed", "decided", "cancelled"]
    everything_but += ["challenge", "open_game", "moderation"]
    response = client.post(url, {"mailed": everything_but})
    assert response.status_code == 302
    assert MailSettings.objects.get(user=charlie).muted == ["to_confirm"]
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        doubles_match(doubles, alice, bob, charlie, dave)
    assert "charlie@example.org" not in [m.to[0] for m in mail.outbox]
    assert "dave@example.org" in [m.to[0] for m in mail.outbox]
    assert kinds(charlie) == ["to_confirm"]  # the site still tells
    # A choice that is not one is refused, and nothing changes.
    refused = client.post(url, {"mailed": ["everything"]})
    assert refused.status_code == 400
    assert MailSettings.objects.get(user=charlie).muted == ["to_confirm"]
    client.logout()
    assert client.get(url).status_code == 302
