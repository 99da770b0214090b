"""The challenge rules (RULES.md "Challenges and open games"): who may be challenged, the
times, the limits, the answers, expiry, and the match reported from a challenge."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from accounts.models import User
from ladder.matches import operations as matches
from ladder.matches.errors import (
    MatchPermissionError,
    MatchRateLimited,
    MatchStateError,
    MatchValidationError,
)
from ladder.matches.models import MailSettings, Notification
from ladder.matches.validation import Report
from ladder.play import services
from ladder.play.models import (
    CANCELLED,
    DECLINED,
    EXPIRED,
    OPEN,
    PLAYED,
    SCHEDULED,
    Challenge,
    PlaySettings,
)
from ratings.models import PlayerRating
from tests.factories import MembershipFactory, UserFactory, hide
from tests.play.support import soon, unchanged


def challenge(ladder, by, *opponents, times=None, **kw):
    return services.create_challenge(
        ladder=ladder,
        by=by,
        opponents=[u.username for u in opponents],
        proposed_times=times or [soon(2), soon(3)],
        **kw,
    )


def refused(call, key):
    with unchanged(), pytest.raises(MatchValidationError) as caught:
        call()
    assert key in caught.value.errors, caught.value.errors
    return " ".join(caught.value.errors[key])


# ---- making one --------------------------------------------------------------------------


def test_a_challenge_is_open_with_its_times_and_tells_the_challenged(ladder, alice, bob):
    made = challenge(ladder, alice, bob, message="Tuesday?", place="Hall 2")
    made.refresh_from_db()
    assert made.state == OPEN
    assert [u.username for u in made.side_a] == ["alice"]
    assert [u.username for u in made.side_b] == ["bob"]
    assert made.proposed_datetimes == [soon(2), soon(3)]
    # The ladder's seven days, but no later than the last time proposed.
    assert made.expires_at == min(made.created_at + timedelta(days=7), soon(3))
    note = Notification.objects.get(user=bob)
    assert note.kind == "challenge" and note.match is None
    assert note.url == f"/challenges/#challenge-{made.pk}"
    assert "Alice Archer challenged you" in note.text and "Tuesday?" in note.text
    assert not Notification.objects.filter(user=alice).exists()


def test_the_challenged_hear_by_mail_after_commit(
    ladder, alice, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        challenge(ladder, alice, bob)
    assert [m.to for m in mail.outbox] == [["bob@example.org"]]
    assert "challenged you" in mail.outbox[0].body


def test_a_member_who_turned_challenge_mail_off_is_told_on_the_site_only(
    ladder, alice, bob, charlie, django_capture_on_commit_callbacks
):
    # The notification settings' "Challenges" (matches.MAIL_EVENTS), as the profile saves it.
    MailSettings.objects.create(user=bob, muted=["challenge"])
    MailSettings.objects.create(user=charlie, muted=["open_game", "to_confirm"])
    with django_capture_on_commit_callbacks(execute=True):
        challenge(ladder, alice, bob)
        challenge(ladder, alice, charlie)
    assert [m.to for m in mail.outbox] == [["charlie@example.org"]]
    assert Notification.objects.filter(user=bob, kind="challenge").count() == 1


def test_a_hidden_member_reads_as_no_member(ladder, alice, bob):
    hide(ladder=ladder, user=bob)
    message = refused(lambda: challenge(ladder, alice, bob), "opponents")
    assert message == "No member of Club Singles is called 'bob'."


def test_an_unknown_name_and_a_stranger_read_the_same(ladder, alice, outsider):
    message = refused(
        lambda: services.create_challenge(
            ladder=ladder, by=alice, opponents=["nobody"], proposed_times=[soon()]
        ),
        "opponents",
    )
    assert message == "No member of Club Singles is called 'nobody'."
    assert refused(lambda: challenge(ladder, alice, outsider), "opponents") == (
        "No member of Club Singles is called 'outsider'."
    )


def test_a_deactivated_member_cannot_be_challenged(ladder, alice, bob):
    User.objects.filter(pk=bob.pk).update(is_active=False)
    # The access policy lists no deactivated account: it reads as no member.
    assert refused(lambda: challenge(ladder, alice, bob), "opponents") == (
        "No member of Club Singles is called 'bob'."
    )


def test_an_away_member_cannot_be_challenged(ladder, alice, bob, monkeypatch):
    from ladder.clubs.models import Membership

    until = timezone.localdate() + timedelta(days=10)
    if hasattr(Membership, "away_until"):
        Membership.objects.filter(user=bob).update(away_until=until)
    else:  # until the seasons work adds the field: the helper reads the attribute
        monkeypatch.setattr(Membership, "away_until", until, raising=False)
    message = refused(lambda: challenge(ladder, alice, bob), "opponents")
    assert f"away until {until.day} {until:%b %Y}" in message


def test_yourself_twice_and_the_wrong_number_are_refused(ladder, alice, bob, charlie):
    assert "yourself" in refused(lambda: challenge(ladder, alice, alice), "opponents")
    assert "Name 1 opponent" in refused(lambda: challenge(ladder, alice, bob, charlie), "opponents")


def test_a_non_member_cannot_challenge(ladder, outsider, bob):
    with unchanged(), pytest.raises(MatchPermissionError):
        challenge(ladder, outsider, bob)


@pytest.mark.parametrize(
    ("times", "expected"),
    [
        ([], "at least one time"),
        (["tomorrow"], "is not a time"),
        ([timezone.now() - timedelta(hours=1)], "is in the past"),
        ([timezone.now() + timedelta(days=400)], "more than a year ahead"),
        ([soon(1), soon(2), soon(3), soon(4)], "at most 3 times"),
        ([soon(1), soon(1)], "proposed twice"),
    ],
)
def test_bad_times_are_refused(ladder, alice, bob, times, expected):
    call = lambda: services.create_challenge(  # noqa: E731
        ladder=ladder, by=alice, opponents=["bob"], proposed_times=times
    )
    assert expected in refused(call, "proposed_times")


def test_out_of_rating_range(ladder, alice, bob, charlie):
    PlaySettings.objects.create(ladder=ladder, challenge_scope="rating", challenge_rating=100)
    for user, rating in ((alice, 4500), (bob, 4650), (charlie, 4580)):
        PlayerRating.objects.create(ladder=ladder, user=user, rating=rating, rd=60, volatility=0.06)
    message = refused(lambda: challenge(ladder, alice, bob), "opponents")
    assert message == (
        "Bob Baker's rating is 0.15 from yours; on Club Singles you may challenge members within ±0.10."
    )
    assert challenge(ladder, alice, charlie).state == OPEN


def test_out_of_places_range(ladder, alice, bob, charlie):
    PlaySettings.objects.create(ladder=ladder, challenge_scope="places", challenge_places=1)
    today = timezone.localdate()
    for user, rating in ((alice, 1700), (charlie, 1600), (bob, 1500)):
        PlayerRating.objects.create(
            ladder=ladder,
            user=user,
            rating=rating,
            rd=40,
            volatility=0.06,
            matches=20,
            last_played=today,
            established_until=today + timedelta(days=30),
        )
    message = refused(lambda: challenge(ladder, alice, bob), "opponents")
    assert message.startswith("Bob Baker is 2 places from you")
    assert challenge(ladder, alice, charlie).state == OPEN


def test_the_open_challenge_limit(ladder, alice, bob, charlie):
    PlaySettings.objects.create(ladder=ladder, max_open_challenges=1)
    challenge(ladder, alice, bob)
    assert (
        "You have 1 open challenges on Club Singles already (at most 1): wait for an answer, "
        "or cancel one." in refused(lambda: challenge(ladder, alice, charlie), "__all__")
    )
    # The challenged are counted on what waits for their answer: Bob has one.
    dave = UserFactory(username="dave")
    MembershipFactory(ladder=ladder, user=dave)
    assert "Bob Baker has 1 challenges on Club Singles waiting for an answer" in refused(
        lambda: challenge(ladder, dave, bob), "opponents"
    )


def test_incoming_challenges_alone_do_not_stop_a_member_from_challenging(
    ladder, alice, bob, charlie
):
    # Issue 36: Bob, challenged by Alice (his limit of waiting answers reached), could not
    # challenge anyone. Only the challenges a member made count against their own limit.
    PlaySettings.objects.create(ladder=ladder, max_open_challenges=1)
    challenge(ladder, alice, bob)
    made = challenge(ladder, bob, charlie)
    assert made.state == OPEN and made.challenger == bob


def test_the_limit_counts_the_ladder_it_is_on_and_names_no_private_challenge(
    ladder, private_ladder, alice, bob, charlie
):
    # Issue 36: Alice's challenges on a private ladder (one Charlie cannot see) stopped
    # Charlie from challenging her on Singles, with "Alice Archer has 3 open challenges".
    PlaySettings.objects.create(ladder=private_ladder, max_open_challenges=1)
    PlaySettings.objects.create(ladder=ladder, max_open_challenges=1)
    MembershipFactory(ladder=private_ladder, user=bob)
    challenge(private_ladder, bob, alice)
    made = challenge(ladder, charlie, alice)
    assert made.ladder == ladder and made.state == OPEN


def test_one_challenge_at_a_time_and_the_cool_down(ladder, alice, bob):
    first = challenge(ladder, alice, bob)
    assert "have a challenge going" in refused(lambda: challenge(ladder, alice, bob), "opponents")
    services.decline_challenge(first, bob)
    first.refresh_from_db()
    with unchanged(), pytest.raises(MatchRateLimited) as caught:
        challenge(ladder, alice, bob)
    # Seven days from the decline: the refusal says when, and the API's Retry-After.
    free = first.decided_at + timedelta(days=7)
    assert abs(caught.value.retry_after - (free - timezone.now()).total_seconds()) < 5
    assert "you may challenge them again from" in caught.value.message
    later = timezone.now() + timedelta(days=8)
    again = challenge(ladder, alice, bob, times=[later + timedelta(days=1)], now=later)
    assert again.state == OPEN


def test_doubles_needs_a_partner(doubles, alice, bob, charlie, dave):
    call = lambda: services.create_challenge(  # noqa: E731
        ladder=doubles, by=alice, opponents=["charlie", "dave"], proposed_times=[soon()]
    )
    assert "Name your partner" in refused(call, "partners")
    made = services.create_challenge(
        ladder=doubles,
        by=alice,
        partners=["bob"],
        opponents=["charlie", "dave"],
        proposed_times=[soon()],
    )
    assert {u.username for u in made.side_a} == {"alice", "bob"}
    assert set(Notification.objects.values_list("user__username", flat=True)) == {"charlie", "dave"}


# ---- answering ---------------------------------------------------------------------------


def test_accepting_a_proposed_time_schedules_it(ladder, alice, bob):
    made = challenge(ladder, alice, bob, place="Hall 2")
    done = services.accept_challenge(made, bob, soon(3).isoformat())
    assert (done.state, done.starts_at, done.place) == (SCHEDULED, soon(3), "Hall 2")
    assert done.sequence == 1
    assert Notification.objects.filter(user=alice, text__contains="accepted").count() == 1


def test_only_a_proposed_time_in_the_future_is_accepted(ladder, alice, bob):
    made = challenge(ladder, alice, bob)
    assert "Pick one of the proposed times" in refused(
        lambda: services.accept_challenge(made, bob, soon(9).isoformat()), "time"
    )


def test_the_challenger_does_not_answer_their_own_times(ladder, alice, bob, charlie):
    made = challenge(ladder, alice, bob)
    with unchanged(), pytest.raises(MatchPermissionError, match="other side"):
        services.accept_challenge(made, alice, soon(2).isoformat())
    with unchanged(), pytest.raises(MatchPermissionError):
        services.decline_challenge(made, charlie)


def test_proposing_other_times_turns_the_answer_round(ladder, alice, bob):
    made = challenge(ladder, alice, bob)
    moved = services.propose_times(made, bob, [soon(5)])
    assert (moved.state, moved.proposed_by, moved.proposed_datetimes) == (OPEN, "b", [soon(5)])
    with pytest.raises(MatchPermissionError):
        services.accept_challenge(moved, bob, soon(5).isoformat())
    assert services.accept_challenge(moved, alice, soon(5).isoformat()).state == SCHEDULED


def test_decline_and_cancel(ladder, alice, bob, charlie, mod):
    first = challenge(ladder, alice, bob)
    assert services.decline_challenge(first, bob).state == DECLINED
    with unchanged(), pytest.raises(MatchStateError):
        services.accept_challenge(first, bob, soon(2).isoformat())
    second = challenge(ladder, alice, charlie)
    with unchanged(), pytest.raises(MatchPermissionError):
        services.cancel_challenge(second, bob)
    assert services.cancel_challenge(second, mod).state == CANCELLED
    told = Notification.objects.filter(text__contains="cancelled").values_list(
        "user__username", flat=True
    )
    assert sorted(told) == ["alice", "charlie"]


def test_expiry_tells_both_sides(ladder, alice, bob, django_capture_on_commit_callbacks):
    made = challenge(ladder, alice, bob, times=[soon(10), soon(11)])
    assert services.expire_challenges(timezone.now() + timedelta(days=6)) == 0
    later = timezone.now() + timedelta(days=7, minutes=1)
    with pytest.raises(MatchStateError, match="expired"):
        services.accept_challenge(made, bob, soon(10).isoformat(), now=later)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.expire_challenges(later) == 1
    made.refresh_from_db()
    assert made.state == EXPIRED
    told = Notification.objects.filter(text__contains="expired unanswered")
    assert sorted(told.values_list("user__username", flat=True)) == ["alice", "bob"]
    assert sorted(m.to[0] for m in mail.outbox if "expired" in m.subject) == [
        "alice@example.org",
        "bob@example.org",
    ]
    assert services.expire_challenges(later) == 0  # once


def test_the_beat_schedule_runs_the_expiry():
    from django.conf import settings

    from ladder.play.tasks import expire_open_challenges

    entry = settings.CELERY_BEAT_SCHEDULE["expire-open-challenges"]
    assert entry["task"] == expire_open_challenges.name


# ---- the match reported from it ----------------------------------------------------------


def scheduled(ladder, alice, bob):
    """A challenge accepted for a time that has come since (an hour ago)."""
    made = challenge(ladder, alice, bob)
    made = services.accept_challenge(made, bob, soon(2).isoformat())
    Challenge.objects.filter(pk=made.pk).update(starts_at=timezone.now() - timedelta(hours=1))
    made.refresh_from_db()
    return made


def test_a_challenge_to_come_is_reported_only_from_its_start(ladder, alice, bob):
    # Issue 37: on Monday, Wednesday's challenge was reported, confirmed and "Played".
    made = services.accept_challenge(challenge(ladder, alice, bob), bob, soon(2).isoformat())
    message = refused(
        lambda: report(ladder, alice, alice, bob, {"challenge": made.pk}), "challenge"
    )
    assert message == "It has not started yet: report its result once it has been played."
    made.refresh_from_db()
    assert (made.state, made.match_id) == (SCHEDULED, None)


def test_a_challenge_expires_by_its_last_proposed_time(ladder, alice, bob, charlie):
    # Issue 37: "answer by 14 Dec" for times on the 9th and 10th.
    made = challenge(ladder, alice, bob, times=[soon(2), soon(3, hour=19)])
    assert made.expires_at == soon(3, hour=19)
    assert made.expires_at - made.created_at < timedelta(days=7)
    later = challenge(ladder, charlie, alice, times=[soon(20)])
    assert later.expires_at - later.created_at == timedelta(days=7)
    answered = services.propose_times(made, bob, [soon(1, hour=20).isoformat()])
    assert answered.expires_at == soon(1, hour=20)


def report(ladder, reporter, a, b, links):
    return matches.report_match(
        Report(
            ladder=ladder,
            reporter=reporter,
            played_on=timezone.localdate(),
            side_a=[a],
            side_b=[b],
            games=[(21, 15), (21, 18)],
        ),
        links=links,
    )


def test_a_confirmed_match_makes_the_challenge_played(ladder, alice, bob):
    made = scheduled(ladder, alice, bob)
    match = report(ladder, alice, alice, bob, {"challenge": made.pk})
    made.refresh_from_db()
    assert (made.state, made.match_id) == (SCHEDULED, match.pk)
    matches.confirm_match(match, bob)
    made.refresh_from_db()
    assert made.state == PLAYED


def test_a_result_reported_twice_for_one_challenge_is_refused(ladder, alice, bob):
    made = scheduled(ladder, alice, bob)
    first = report(ladder, alice, alice, bob, {"challenge": made.pk})
    message = refused(lambda: report(ladder, bob, bob, alice, {"challenge": made.pk}), "challenge")
    assert message == f"This challenge is reported already (match {first.pk})."


def test_a_cancelled_report_lets_the_challenge_be_reported_again(ladder, alice, bob):
    made = scheduled(ladder, alice, bob)
    first = report(ladder, alice, alice, bob, {"challenge": made.pk})
    matches.cancel_match(first, alice)
    made.refresh_from_db()
    assert (made.state, made.match_id) == (SCHEDULED, None)
    second = report(ladder, bob, bob, alice, {"challenge": made.pk})
    made.refresh_from_db()
    assert made.match_id == second.pk


def test_a_report_must_be_the_challenge_s_players_and_scheduled(ladder, alice, bob, charlie):
    made = challenge(ladder, alice, bob)
    assert "open, not scheduled" in refused(
        lambda: report(ladder, alice, alice, bob, {"challenge": made.pk}), "challenge"
    )
    services.accept_challenge(made, bob, soon(2).isoformat())
    assert "not those of this challenge" in refused(
        lambda: report(ladder, alice, alice, charlie, {"challenge": made.pk}), "challenge"
    )
    assert "No challenge of yours" in refused(
        lambda: report(ladder, charlie, charlie, alice, {"challenge": made.pk}), "challenge"
    )


def test_cancelling_a_reported_challenge_is_refused(ladder, alice, bob):
    made = scheduled(ladder, alice, bob)
    report(ladder, alice, alice, bob, {"challenge": made.pk})
    with unchanged(), pytest.raises(MatchStateError, match="reported"):
        services.cancel_challenge(made, alice)
    assert Challenge.objects.get(pk=made.pk).state == SCHEDULED
