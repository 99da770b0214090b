"""Bans with refunds (issue 26 item 2): the ban voids the member's rated matches, the ladder
replays as if they were never played, each affected member hears their change once, and
lifting the ban restores every rating exactly."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.clubs.models import Membership
from ladder.clubs.services import LadderError, join_ladder
from ladder.integrity import bans
from ladder.integrity.errors import (
    ModerationNotFound,
    ModerationPermissionError,
    ModerationStateError,
    ModerationValidationError,
)
from ladder.integrity.models import Ban, BanVoid, IntegrityEntry
from ladder.matches import operations
from ladder.matches.errors import MatchError, MatchPermissionError, MatchValidationError
from ladder.matches.models import AuditEntry, Match, Notification
from ratings.engine import Replayer
from ratings.imports import export_ratings
from ratings.pipeline import initial_states, load_matches
from tests.factories import reported_match
from tests.integrity.support import Club, changes_of, confirmed, ratings_of

pytestmark = pytest.mark.django_db


def replay_without(club: Club) -> dict[str, float]:
    """Each player's rating by the engine, replaying the ladder without the cheat's matches."""
    ladder = club.ladder
    cheat = str(club.cheat.pk)
    kept = [m for m in load_matches(ladder) if cheat not in m.side_a + m.side_b]
    replayer = Replayer(ladder.params(), ladder.scoring(), initial_states(ladder))
    replayer.rate_all(kept)
    names = {str(u.pk): u.name for u in club.members}
    played = {p for m in kept for p in m.side_a + m.side_b}
    return {names[p]: replayer.state(p).rating for p in played}


def exported(club: Club) -> dict[str, tuple[float, int]]:
    rows = csv.DictReader(io.StringIO(export_ratings(club.ladder)))
    return {r["player"]: (float(r["rating"]), int(r["matches"])) for r in rows}


def test_a_ban_of_all_matches_leaves_the_ladder_as_if_they_were_never_played(club, mod) -> None:
    expected = replay_without(club)
    cheat_matches = {m.pk for m in club.matches if club.cheat in (m.reporter,)} | set(
        Match.objects.filter(players__user=club.cheat).values_list("pk", flat=True)
    )
    assert len(cheat_matches) >= 10

    outcome = bans.ban_member(club.ladder, mod, "cheat", "Traded wins with a friend.", None)

    assert set(outcome.withheld) == cheat_matches
    assert set(Match.objects.filter(pk__in=cheat_matches).values_list("state", flat=True)) == {
        "voided"
    }
    after = exported(club)
    assert set(expected) <= set(after)
    for name, rating in expected.items():
        assert after[name][0] == pytest.approx(rating, abs=0.05), name
    assert after.get("Cheat", (0, 0))[1] == 0  # none of the cheat's matches counts


def test_lifting_the_ban_restores_every_rating_and_change_exactly(club, mod) -> None:
    ratings, changes = ratings_of(club.ladder), changes_of(club.ladder)

    bans.ban_member(club.ladder, mod, "cheat", "Traded wins.", None)
    assert ratings_of(club.ladder) != ratings
    bans.lift_ban(club.ladder, mod, "cheat", "Appeal upheld.")

    assert ratings_of(club.ladder) == ratings
    assert changes_of(club.ladder) == changes
    states = Match.objects.filter(pk__in=[m.pk for m in club.matches]).values_list(
        "state", flat=True
    )
    assert set(states) == {"confirmed"}


def test_void_since_withholds_only_the_matches_from_that_date(club, mod) -> None:
    since = timezone.localdate() - timedelta(days=30)
    theirs = Match.objects.filter(players__user=club.cheat)
    later = set(theirs.filter(played_on__gte=since).values_list("pk", flat=True))
    earlier = set(theirs.filter(played_on__lt=since).values_list("pk", flat=True))
    assert later and earlier

    outcome = bans.ban_member(club.ladder, mod, "cheat", "Since March.", since)

    assert set(outcome.withheld) == later
    assert set(Match.objects.filter(pk__in=earlier).values_list("state", flat=True)) == {
        "confirmed"
    }
    assert Ban.objects.get().void_since == since


def test_each_affected_member_hears_their_change_once(club, mod) -> None:
    before = {k: v[0] for k, v in ratings_of(club.ladder).items()}
    Notification.objects.all().delete()

    outcome = bans.ban_member(club.ladder, mod, "cheat", "Traded wins with a friend.", None)

    after = {k: v[0] for k, v in ratings_of(club.ladder).items()}
    moved = {u for u in before if u != "cheat" and abs(after.get(u, 0) - before[u]) >= 0.5}
    assert moved, "a ban of a busy member moves their opponents' ratings"
    notes = Notification.objects.select_related("user")
    told = [n.user.username for n in notes]
    assert sorted(told) == sorted(moved | {"cheat"})  # one each
    for note in notes:
        name = note.user.username
        assert note.kind == "moderation" and note.match is None
        if name == "cheat":
            assert "banned you from Integrity Singles: Traded wins with a friend." in note.text
            assert note.url == "/ladders/honest/ban/"
            continue
        change = after[name] - before[name]
        assert note.text == (
            "After a moderation decision on Integrity Singles your rating was recalculated: "
            f"{bans.change_text(change)}."
        )
        assert note.url == "/ladders/honest/"
        assert outcome.changes[note.user.pk] == pytest.approx(change)

    Notification.objects.all().delete()
    bans.lift_ban(club.ladder, mod, "cheat")
    assert sorted(n.user.username for n in notes.all()) == sorted(moved | {"cheat"})
    back = {n.user.username: n.text for n in notes.all()}
    for name in moved:
        assert back[name].endswith(f"{bans.change_text(before[name] - after[name])}.")


def test_the_ban_cancels_pending_reports_and_is_audited(club, mod) -> None:
    ann = club.members[1]
    pending = reported_match(club.ladder, club.cheat, [club.cheat], [ann])
    voided_before = club.matches[0]
    assert club.cheat in voided_before.side_a_players + voided_before.side_b_players
    operations.void_match(voided_before, mod, "Wrong players.")

    outcome = bans.ban_member(club.ladder, mod, "cheat", "Farming new accounts.", None)

    pending.refresh_from_db()
    assert pending.state == "cancelled" and outcome.cancelled == [pending.pk]
    assert voided_before.pk not in outcome.withheld  # a moderator's void is not the ban's
    audit = AuditEntry.objects.filter(action="withhold")
    assert set(audit.values_list("match_id", flat=True)) == set(outcome.withheld)
    assert all(e.actor == mod and "Farming new accounts." in e.reason for e in audit)
    entry = IntegrityEntry.objects.get(action="ban")
    assert (entry.actor, entry.member, entry.text) == (mod, club.cheat, "Farming new accounts.")
    assert entry.details["matches"] == outcome.withheld
    assert BanVoid.objects.count() == len(outcome.withheld)

    bans.lift_ban(club.ladder, mod, "cheat", "Appeal upheld.")
    assert Match.objects.get(pk=voided_before.pk).state == "voided"  # stays the moderator's
    assert Match.objects.get(pk=pending.pk).state == "cancelled"
    assert AuditEntry.objects.filter(action="restore").count() == len(outcome.withheld)
    lifted = IntegrityEntry.objects.get(action="lift")
    assert (lifted.actor, lifted.text) == (mod, "Appeal upheld.")
    assert Ban.objects.get().lifted_by == mod


def test_a_banned_member_cannot_join_report_confirm_or_be_named(club, mod) -> None:
    ann, ben = club.members[1], club.members[2]
    to_confirm = reported_match(club.ladder, ann, [ann], [ben])
    bans.ban_member(club.ladder, mod, "ann", "Fake results.", None)
    to_confirm.refresh_from_db()
    assert to_confirm.state == "cancelled"

    with pytest.raises(MatchPermissionError, match="banned you from Integrity Singles"):
        reported_match(club.ladder, ann, [ann], [ben])
    with pytest.raises(
        MatchValidationError, match="No member of Integrity Singles is called 'ann'"
    ):
        reported_match(club.ladder, ben, [ben], [ann])
    pending = reported_match(club.ladder, ben, [ben], [club.members[3]])
    with pytest.raises(MatchError):
        operations.confirm_match(pending, ann)
    with pytest.raises(LadderError, match="Fake results."):
        join_ladder(ann, club.ladder)
    assert bans.active_ban(club.ladder, ann) is not None
    bans.lift_ban(club.ladder, mod, "ann")
    assert bans.active_ban(club.ladder, ann) is None
    reported_match(club.ladder, ann, [ann], [ben])  # after the lift, as any member


def test_a_banned_opponent_cannot_confirm_a_match_reported_before_the_ban(club, mod) -> None:
    ann, ben = club.members[1], club.members[2]
    match = confirmed(club.ladder, ann, ben, [(21, 3), (21, 4)], timezone.localdate())
    match.state, match.needs_rating = "pending", False
    match.save(update_fields=["state", "needs_rating"])
    # The ban's state on the membership, as ban_member leaves it, without its cancelling the
    # pending report: the access policy reads the membership (ladder.clubs.access.barred).
    Membership.objects.filter(ladder=club.ladder, user=ben).update(
        banned_at=timezone.now(), ban_reason="Abuse."
    )
    with pytest.raises(MatchPermissionError, match="Abuse."):
        operations.confirm_match(match, ben)


@pytest.mark.parametrize(
    ("username", "reason", "since", "error", "field"),
    [
        ("nobody", "Why.", None, ModerationValidationError, "username"),
        ("cheat", "   ", None, ModerationValidationError, "reason"),
        ("cheat", "x" * 2001, None, ModerationValidationError, "reason"),
        ("cheat", "Why.", "tomorrow", ModerationValidationError, "void_since"),
        ("cheat", "Why.", "not a date", ModerationValidationError, "void_since"),
        ("mod", "Why.", None, ModerationValidationError, "username"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    club, mod, username, reason, since, error, field
) -> None:
    Membership.objects.get_or_create(
        ladder=club.ladder, user=mod, defaults={"initial_rating": 4500, "initial_rd": 200}
    )
    when = {"tomorrow": timezone.localdate() + timedelta(days=1), None: None}.get(since, since)
    ratings = ratings_of(club.ladder)
    with pytest.raises(error) as refused:
        bans.ban_member(club.ladder, mod, username, reason, when)
    assert field in refused.value.errors
    assert not Ban.objects.exists() and not IntegrityEntry.objects.exists()
    assert ratings_of(club.ladder) == ratings


def test_only_moderators_ban_and_a_ban_is_not_doubled(club, mod) -> None:
    ann = club.members[1]
    with pytest.raises(ModerationPermissionError):
        bans.ban_member(club.ladder, ann, "cheat", "Why.", None)
    with pytest.raises(ModerationNotFound):
        bans.lift_ban(club.ladder, mod, "cheat")
    bans.ban_member(club.ladder, mod, "cheat", "Why.", None)
    ratings = ratings_of(club.ladder)
    with pytest.raises(ModerationStateError, match="already banned"):
        bans.ban_member(club.ladder, mod, "cheat", "Again.", None)
    with pytest.raises(ModerationPermissionError):
        bans.lift_ban(club.ladder, ann, "cheat")
    assert Ban.objects.active().count() == 1 and ratings_of(club.ladder) == ratings
    assert IntegrityEntry.objects.count() == 1


def test_change_text_reads_as_the_site_shows_changes() -> None:
    assert bans.change_text(40.0) == "+0.04"
    assert bans.change_text(-123.0) == "\u22120.12"
    assert bans.change_text(2.0) == "less than +0.01"
    assert bans.change_text(-2.0) == "less than \u22120.01"
