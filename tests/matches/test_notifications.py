"""Emails (RULES.md "Matches"): opponents on a report, the reporter on confirm or
dispute, moderators on a dispute; players on a moderator's decision. Sent after commit."""

from __future__ import annotations

import pytest
from django.core import mail

from ladder.matches import operations as matches
from ladder.matches.models import Match
from tests.factories import UserFactory, reported_match
from tests.matches.support import doubles_match


@pytest.fixture
def now_commit(django_capture_on_commit_callbacks):
    """Run the block and then its after-commit callbacks, as a real commit would."""

    def run(call, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return call(*args, **kwargs)

    return run


def sent():
    return {(m.to[0], m.subject) for m in mail.outbox}


def test_a_report_mails_the_opponents_and_a_note_to_the_partner(
    doubles, alice, bob, charlie, dave, now_commit
):
    match = now_commit(doubles_match, doubles, alice, bob, charlie, dave)
    subject = "Alice Archer reported a match against you: please confirm"
    assert sent() == {
        ("charlie@example.org", subject),
        ("dave@example.org", subject),
        ("bob@example.org", "Alice Archer reported a match you played together"),
    }
    body = next(m.body for m in mail.outbox if m.to == ["charlie@example.org"])
    assert body.startswith("Hello Charlie Chen,")
    for text in (
        "Alice Archer & Bob Baker",
        "v Charlie Chen & Dave Dunn",
        "Score: 21-15 21-18",
        f"http://127.0.0.1:8000/matches/{match.pk}/",
        "http://127.0.0.1:8000/inbox/",
        "expire on",
    ):
        assert text in body
    assert all(m.from_email == "ladder@localhost" for m in mail.outbox)


def test_nothing_is_mailed_before_commit(doubles, alice, bob, charlie, dave):
    doubles_match(doubles, alice, bob, charlie, dave)  # the test's transaction never commits
    assert mail.outbox == []


def test_confirm_mails_the_reporter(doubles, alice, bob, charlie, dave, now_commit):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    now_commit(matches.confirm_match, match, dave)
    assert sent() == {("alice@example.org", "Dave Dunn confirmed your Club Doubles match")}
    assert "It counts for the ratings now" in mail.outbox[0].body


def test_dispute_mails_the_reporter_and_the_moderators(
    doubles, alice, bob, charlie, dave, mod, now_commit, settings
):
    settings.SITE_URL = "https://club.example.org/"
    UserFactory(username="root", is_superuser=True, is_staff=True)
    UserFactory(username="quiet", is_superuser=True, email="")  # no address: skipped
    match = doubles_match(doubles, alice, bob, charlie, dave)
    now_commit(
        matches.dispute_match, match, charlie, "Game two was 19-21.", [[21, 15], [19, 21], [21, 10]]
    )
    moderators_subject = f"Dispute to settle: Club Doubles match of {match.played_on:%-d %b %Y}"
    assert sent() == {
        ("alice@example.org", "Charlie Chen disputed your Club Doubles match"),
        ("mod@example.org", moderators_subject),
        ("root@example.org", moderators_subject),
    }
    to_alice = next(m.body for m in mail.outbox if m.to == ["alice@example.org"])
    assert "Game two was 19-21." in to_alice and "21-15 19-21 21-10" in to_alice
    to_mod = next(m.body for m in mail.outbox if m.to == ["mod@example.org"])
    assert f"https://club.example.org/matches/{match.pk}/" in to_mod
    assert "https://club.example.org/moderation/" in to_mod


@pytest.mark.parametrize(
    ("decision", "subject"),
    [
        ("uphold", "Dispute settled: the Club Doubles match stands"),
        ("correct", "A moderator corrected your Club Doubles match"),
        ("void", "A moderator voided your Club Doubles match"),
    ],
)
def test_a_decision_mails_every_player(
    doubles, alice, bob, charlie, dave, mod, now_commit, decision, subject
):
    match = matches.dispute_match(doubles_match(doubles, alice, bob, charlie, dave), charlie, "No")
    games = [[21, 1], [21, 2]] if decision == "correct" else None
    now_commit(matches.resolve_dispute, match, mod, decision, "Seen on video", games=games)
    assert {to for to, _ in sent()} == {
        f"{u}@example.org" for u in ("alice", "bob", "charlie", "dave")
    }
    assert {s for _, s in sent()} == {subject}
    assert "Seen on video" in mail.outbox[0].body


def test_a_cancel_mails_the_opponents(doubles, alice, bob, charlie, dave, now_commit):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    now_commit(matches.cancel_match, match, alice)
    subject = "Alice Archer cancelled a report: nothing to confirm"
    assert sent() == {("charlie@example.org", subject), ("dave@example.org", subject)}


def test_names_are_not_html_escaped(doubles, alice, bob, charlie, dave, now_commit):
    alice.display_name = "Aoife O'Neill & Co"
    alice.save()
    now_commit(doubles_match, doubles, alice, bob, charlie, dave)
    assert "Aoife O'Neill & Co" in mail.outbox[0].subject
    assert "Aoife O'Neill & Co & Bob Baker" in mail.outbox[0].body


def test_a_mail_failure_does_not_undo_the_confirmation(
    doubles, alice, bob, charlie, dave, now_commit, monkeypatch, caplog
):
    match = doubles_match(doubles, alice, bob, charlie, dave)

    def broken(*args, **kwargs):
        raise OSError("SMTP server unreachable")

    monkeypatch.setattr("ladder.matches.notifications.send_mail", broken)
    result = now_commit(matches.confirm_match, match, charlie)
    assert result.state == "confirmed"
    assert "Could not send match_confirmed email to alice" in caplog.text


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("Morgan (moderator)", "Morgan (moderator) corrected your"),
        ("Max Mustermann", "Max Mustermann, a moderator, corrected your"),
    ],
)
def test_a_decision_mail_says_moderator_once(ladder, alice, bob, mod, now_commit, name, said):  # type: ignore[no-untyped-def]
    """Issue 37.6: "Morgan (moderator), a moderator, corrected…" said it twice."""
    mod.display_name = name
    mod.save(update_fields=["display_name"])
    match = reported_match(ladder, alice, [alice], [bob])
    matches.confirm_match(match, bob)
    mail.outbox.clear()
    now_commit(
        matches.correct_match, Match.objects.get(pk=match.pk), mod, [(21, 10), (21, 12)], "Typo"
    )
    body = next(m.body for m in mail.outbox if m.to == [alice.email])
    assert said in body
    assert ("a moderator" in body) == ("moderator" not in name.lower())
