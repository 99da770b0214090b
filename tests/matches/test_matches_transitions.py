"""The state machine: what each state allows, refusals (409) that change nothing, expiry,
moderators' decisions, the inbox, the moderation queue, access and predictions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.http import Http404
from django.utils import timezone

from ladder.matches import operations as matches
from ladder.matches.errors import MatchStateError, MatchValidationError
from ladder.matches.inbox import inbox_for, moderation_queue
from ladder.matches.models import AuditEntry, Dispute, Match
from ladder.matches.permissions import ACTIONS, allowed_actions
from ladder.matches.tasks import expire_pending_matches
from ladder.matches.visibility import get_match_for_user
from ratings import predictions
from tests.factories import reported_match
from tests.matches.support import doubles_match, in_state, unchanged

STATES = (
    "pending",
    "confirmed",
    "disputed",
    "corrected",
    "voided",
    "cancelled",
    "expired",
    "overdue",
)
# What the right person may do in each state ("overdue": pending past its window, not yet swept).
POSSIBLE = {
    "pending": {"confirm", "dispute", "cancel", "edit"},
    "confirmed": {"correct", "void"},
    "disputed": {"resolve"},
    "corrected": {"correct", "void"},
    "voided": set(),
    "cancelled": set(),
    "expired": set(),
    "overdue": set(),
}


def attempt(action, match, *, reporter, opponent, mod):
    calls = {
        "confirm": lambda: matches.confirm_match(match, opponent),
        "dispute": lambda: matches.dispute_match(match, opponent, "Wrong"),
        "cancel": lambda: matches.cancel_match(match, reporter),
        "edit": lambda: matches.edit_match(match, reporter, [(21, 1), (21, 2)]),
        "resolve": lambda: matches.resolve_dispute(match, mod, "void", "No-show"),
        "correct": lambda: matches.correct_match(match, mod, [(21, 1), (21, 2)], "Typo"),
        "void": lambda: matches.void_match(match, mod, "Friendly"),
    }
    return calls[action]()


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("action", ACTIONS)
def test_state_machine(doubles, alice, bob, charlie, dave, mod, state, action):
    match = in_state(
        state,
        doubles_match(doubles, alice, bob, charlie, dave),
        opponent=charlie,
        reporter=alice,
        mod=mod,
    )
    actor = {"confirm": charlie, "dispute": charlie, "cancel": alice, "edit": alice}.get(
        action, mod
    )
    assert (action in allowed_actions(match, actor)) is (action in POSSIBLE[state])
    if action in POSSIBLE[state]:
        attempt(action, match, reporter=alice, opponent=charlie, mod=mod)
        return
    if (action, state) in {
        ("confirm", "confirmed"),
        ("dispute", "disputed"),
        ("cancel", "cancelled"),
    }:
        with unchanged(match):  # the same player asking again: the same success, no change
            attempt(action, match, reporter=alice, opponent=charlie, mod=mod)
        return
    with unchanged(match), pytest.raises(MatchStateError) as info:
        attempt(action, match, reporter=alice, opponent=charlie, mod=mod)
    assert info.value.status == 409
    assert info.value.message.startswith("This match")


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (
            "confirmed",
            "This match is already confirmed; only a match waiting for confirmation can be confirmed.",
        ),
        (
            "cancelled",
            "This match is cancelled; only a match waiting for confirmation can be confirmed.",
        ),
        ("disputed", "This match is disputed and waiting for a moderator"),
        ("overdue", "This match expired unconfirmed on "),
        ("expired", "This match is expired"),
    ],
)
def test_refusals_say_why(doubles, alice, bob, charlie, dave, mod, state, message):
    match = in_state(
        state,
        doubles_match(doubles, alice, bob, charlie, dave),
        opponent=dave,
        reporter=alice,
        mod=mod,
    )
    with pytest.raises(MatchStateError, match=message):
        matches.confirm_match(match, charlie)


def test_confirm(ladder, alice, bob):
    match = reported_match(ladder, alice, [alice], [bob])
    now = timezone.now()
    match = matches.confirm_match(match, bob, now=now)
    match.refresh_from_db()
    assert (match.state, match.decided_at, match.updated_at, match.needs_rating) == (
        "confirmed",
        now,
        now,
        True,
    )


def test_the_passed_instance_may_be_stale(ladder, alice, bob):
    """Operations re-read the locked row: a stale copy cannot confirm a cancelled match."""
    stale = reported_match(ladder, alice, [alice], [bob])
    matches.cancel_match(Match.objects.get(pk=stale.pk), alice)
    with pytest.raises(MatchStateError, match="cancelled"):
        matches.confirm_match(stale, bob)


# ---- expiry -------------------------------------------------------------------------------


def test_expiry(ladder, alice, bob, charlie):
    now = timezone.now()
    old = reported_match(ladder, alice, [alice], [bob], now=now - timedelta(hours=169))
    fresh = reported_match(ladder, alice, [alice], [charlie], now=now - timedelta(hours=167))
    assert old.is_expired(now) and not fresh.is_expired(now)
    assert allowed_actions(old, bob, now) == set()
    with unchanged(old), pytest.raises(MatchStateError, match="expired unconfirmed"):
        matches.confirm_match(old, bob, now=now)

    assert matches.expire_overdue(now) == 1
    old.refresh_from_db()
    assert (old.state, old.decided_at, old.needs_rating) == ("expired", now, False)
    entry = AuditEntry.objects.filter(match=old).last()
    assert (entry.action, entry.actor, entry.from_state, entry.to_state) == (
        "expire",
        None,
        "pending",
        "expired",
    )
    assert entry.actor_name == "System"
    assert Match.objects.get(pk=fresh.pk).state == "pending"
    assert matches.expire_overdue(now) == 0  # nothing twice


def test_expiry_follows_each_ladders_window(ladder, doubles, alice, bob, charlie, dave):
    doubles.confirm_within_hours = 1
    doubles.save()
    now = timezone.now()
    singles_match = reported_match(ladder, alice, [alice], [bob], now=now - timedelta(hours=2))
    doubles_one = doubles_match(doubles, alice, bob, charlie, dave, now=now - timedelta(hours=2))
    assert matches.expire_overdue(now) == 1
    assert Match.objects.get(pk=doubles_one.pk).state == "expired"
    assert Match.objects.get(pk=singles_match.pk).state == "pending"


def test_the_periodic_task_expires(ladder, alice, bob, settings):
    match = reported_match(ladder, alice, [alice], [bob], now=timezone.now() - timedelta(days=8))
    assert expire_pending_matches.delay().get() == 1
    match.refresh_from_db()
    assert match.state == "expired"
    assert "ladder.matches.tasks.expire_pending_matches" in {
        entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()
    }


# ---- moderators' decisions ------------------------------------------------------------------


@pytest.fixture
def disputed(ladder, alice, bob):
    match = reported_match(ladder, alice, [alice], [bob])
    return matches.dispute_match(
        match, bob, "It went to three games", [[21, 15], [19, 21], [21, 18]]
    )


def test_a_dispute_keeps_the_reason_and_proposed_score(disputed, bob):
    dispute = Dispute.objects.get(match=disputed)
    assert (dispute.raised_by, dispute.reason, dispute.proposed_games) == (
        bob,
        "It went to three games",
        [[21, 15], [19, 21], [21, 18]],
    )
    assert dispute.is_open and dispute.proposed_score_text == "21-15 19-21 21-18"
    assert not disputed.needs_rating


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({"reason": "  "}, "reason", "Say what is wrong with the reported result."),
        ({"reason": "x", "proposed_games": [[21, 15]]}, "games", "The match is not finished"),
        (
            {"reason": "x", "proposed_games": [[21, 15], [21, 18]]},
            "games",
            "That is the reported score",
        ),
    ],
)
def test_bad_disputes(ladder, alice, bob, kwargs, field, message):
    match = reported_match(ladder, alice, [alice], [bob])
    with unchanged(match), pytest.raises(MatchValidationError) as info:
        matches.dispute_match(match, bob, **kwargs)
    assert any(message in m for m in info.value.errors[field])


@pytest.mark.parametrize(
    ("decision", "state", "score", "resolution"),
    [
        ("uphold", "confirmed", "21-15 21-18", "upheld"),
        ("correct", "corrected", "21-15 19-21 21-18", "corrected"),
        ("void", "voided", "21-15 21-18", "voided"),
    ],
)
def test_resolve(disputed, mod, decision, state, score, resolution):
    games = [[21, 15], [19, 21], [21, 18]] if decision == "correct" else None
    now = timezone.now()
    match = matches.resolve_dispute(disputed, mod, decision, "Spoke to both", games=games, now=now)
    match = Match.objects.with_details().get(pk=match.pk)
    assert (match.state, match.score_text, match.decided_at) == (state, score, now)
    assert match.needs_rating is (state != "voided")  # a never-rated match needs no rating
    dispute = Dispute.objects.get(match=match)
    assert (
        dispute.resolution,
        dispute.resolved_by,
        dispute.resolution_reason,
        dispute.resolved_at,
    ) == (resolution, mod, "Spoke to both", now)
    assert not dispute.is_open
    entry = AuditEntry.objects.filter(match=match).last()
    assert (entry.action, entry.reason) == (f"resolve_{decision}", "Spoke to both")


def test_a_correction_may_fix_the_date(disputed, mod):
    yesterday = timezone.localdate() - timedelta(days=1)
    match = matches.resolve_dispute(
        disputed, mod, "correct", "Wrong day", games=[[21, 1], [21, 2]], played_on=yesterday
    )
    match.refresh_from_db()
    assert match.played_on == yesterday
    entry = AuditEntry.objects.filter(match=match).last()
    assert entry.before["played_on"] != entry.after["played_on"] == yesterday.isoformat()


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({"decision": "maybe", "reason": "x"}, "decision", "Choose uphold, correct or void."),
        ({"decision": "void", "reason": ""}, "reason", "Give the reason for your decision"),
        ({"decision": "correct", "reason": "x"}, "games", "Enter the correct score."),
        (
            {"decision": "correct", "reason": "x", "games": [[21, 20], [21, 0]]},
            "games",
            "Game 1: 21-20",
        ),
        (
            {"decision": "correct", "reason": "x", "games": [[21, 15], [21, 18]]},
            "games",
            "already recorded",
        ),
        (
            {
                "decision": "correct",
                "reason": "x",
                "games": [[21, 1], [21, 1]],
                "played_on": timezone.localdate() + timedelta(days=3),
            },
            "played_on",
            "future",
        ),
    ],
)
def test_bad_resolutions(disputed, mod, kwargs, field, message):
    with unchanged(disputed), pytest.raises(MatchValidationError) as info:
        matches.resolve_dispute(disputed, mod, **kwargs)
    assert any(message in m for m in info.value.errors[field]), info.value.errors


def test_correct_and_void_a_confirmed_match(ladder, alice, bob, mod):
    match = matches.confirm_match(reported_match(ladder, alice, [alice], [bob]), bob)
    Match.objects.filter(pk=match.pk).update(needs_rating=False)  # as if the pipeline rated it
    match = matches.correct_match(match, mod, [(21, 19), (21, 19)], "Close games, both agree")
    match = Match.objects.with_details().get(pk=match.pk)
    assert (match.state, match.score_text, match.needs_rating) == ("corrected", "21-19 21-19", True)
    # A corrected match may be corrected again, or voided.
    match = matches.correct_match(match, mod, [(21, 17), (21, 19)], "Again")
    Match.objects.filter(pk=match.pk).update(needs_rating=False)
    match = matches.void_match(match, mod, "Turned out to be a friendly")
    match.refresh_from_db()
    assert (match.state, match.needs_rating) == ("voided", True)  # it leaves a rated state
    assert list(AuditEntry.objects.filter(match=match).values_list("action", flat=True)) == [
        "report",
        "confirm",
        "correct",
        "correct",
        "void",
    ]


def test_void_needs_a_reason(ladder, alice, bob, mod):
    match = matches.confirm_match(reported_match(ladder, alice, [alice], [bob]), bob)
    with unchanged(match), pytest.raises(MatchValidationError, match="Give the reason"):
        matches.void_match(match, mod, "")


# ---- inbox, queue, access -----------------------------------------------------------------


def test_inbox(doubles, alice, bob, charlie, dave, mod):
    now = timezone.now()
    waiting = doubles_match(doubles, alice, bob, charlie, dave)
    overdue = doubles_match(
        doubles, alice, bob, charlie, dave, games=[(21, 1), (21, 1)], now=now - timedelta(days=8)
    )
    confirmed = matches.confirm_match(
        doubles_match(doubles, alice, bob, charlie, dave, games=[(21, 2), (21, 2)]), dave
    )
    disputed = matches.dispute_match(
        doubles_match(doubles, alice, bob, charlie, dave, games=[(21, 3), (21, 3)]), dave, "No"
    )
    assert overdue.is_expired(now) and confirmed.state == "confirmed"

    charlie_inbox = inbox_for(charlie)
    assert [m.pk for m in charlie_inbox.to_confirm] == [waiting.pk]
    assert charlie_inbox.count == 1 and charlie_inbox.my_pending == []
    assert charlie_inbox.disputes == []
    assert inbox_for(bob).count == 0  # the reporter's partner confirms nothing
    alice_inbox = inbox_for(alice)
    assert [m.pk for m in alice_inbox.my_pending] == [disputed.pk, waiting.pk]  # newest first
    assert alice_inbox.count == 0
    assert [m.pk for m in inbox_for(mod).disputes] == [disputed.pk]
    assert inbox_for(None).count == 0


def test_the_inbox_lists_newest_first(ladder, alice, bob, charlie):
    """Issue 37.6: the newest report on top, as the notifications (the moderation queue keeps
    the longest waiting first)."""
    older = reported_match(ladder, bob, [bob], [alice])
    newer = reported_match(ladder, charlie, [charlie], [alice])
    Match.objects.filter(pk=older.pk).update(created_at=timezone.now() - timedelta(hours=3))
    assert [m.pk for m in inbox_for(alice).to_confirm] == [newer.pk, older.pk]
    mine_old = reported_match(ladder, alice, [alice], [bob], games=[(21, 3), (21, 4)])
    mine_new = reported_match(ladder, alice, [alice], [charlie], games=[(21, 5), (21, 6)])
    Match.objects.filter(pk=mine_old.pk).update(created_at=timezone.now() - timedelta(hours=2))
    assert [m.pk for m in inbox_for(alice).my_pending] == [mine_new.pk, mine_old.pk]


def test_moderation_queue_oldest_first(ladder, alice, bob, charlie):
    now = timezone.now()
    first = reported_match(ladder, alice, [alice], [bob])
    second = reported_match(ladder, alice, [alice], [charlie])
    matches.dispute_match(second, charlie, "No", now=now - timedelta(hours=2))
    matches.dispute_match(first, bob, "No", now=now - timedelta(hours=1))
    assert [m.pk for m in moderation_queue()] == [second.pk, first.pk]


def test_query_counts_do_not_grow_with_matches(
    doubles, alice, bob, charlie, dave, django_assert_num_queries
):
    for n in range(4):
        doubles_match(doubles, alice, bob, charlie, dave, games=[(21, n), (21, n)])
    # To confirm: matches, players, games; own reports: matches (none); is_moderator: groups.
    with django_assert_num_queries(5):
        inbox = inbox_for(charlie)
        assert inbox.count == 4
        for match in inbox.to_confirm:
            assert match.score_text and match.side_a_players and match.expires_at
            allowed_actions(match, charlie)


def test_get_match_for_user(private_ladder, ladder, alice, bob, outsider, mod):
    from ladder.clubs.access import VISITOR, Viewer

    public = reported_match(ladder, alice, [alice], [bob])
    assert get_match_for_user(Viewer.of(outsider), public.pk) == public
    assert get_match_for_user(VISITOR, public.pk) == public
    from tests.factories import MembershipFactory

    MembershipFactory(ladder=private_ladder, user=bob)
    private = reported_match(private_ladder, alice, [alice], [bob])
    assert get_match_for_user(Viewer.of(alice), private.pk) == private
    assert get_match_for_user(Viewer.of(mod), private.pk) == private
    for who, pk in ((outsider, private.pk), (None, private.pk), (alice, 99999), (alice, "x")):
        with pytest.raises(Http404):
            get_match_for_user(Viewer.of(who), pk)


# ---- predictions --------------------------------------------------------------------------


def test_predict_uses_the_starting_ratings(ladder, alice, bob, charlie):
    # alice starts at level 5.0, bob at the default 4.5, charlie at 4.0 (tests/factories.py)
    p = predictions.predict_sides(ladder, [alice], [bob], timezone.localdate()).probability
    assert 0.5 < p < 1
    assert predictions.predict_sides(ladder, [bob], [alice]).probability == pytest.approx(1 - p)
    assert predictions.predict_sides(ladder, [bob], [charlie]).probability > 0.5


@pytest.mark.parametrize("case", ["empty side", "twice", "non-member"])
def test_predict_gives_none_rather_than_a_guess(ladder, alice, bob, dave, case):
    sides = {
        "empty side": ([alice], []),
        "twice": ([alice], [alice]),
        "non-member": ([alice], [dave]),
    }
    assert predictions.predict_sides(ladder, *sides[case]) is None
