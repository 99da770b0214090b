"""The audit trail: one entry per transition with actor and before/after, and append-only
(the ORM, the admin and, on PostgreSQL, the database refuse changes and deletions)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models import ProtectedError
from django.urls import reverse
from django.utils import timezone

from ladder.clubs.access import Viewer
from ladder.matches import operations as matches
from ladder.matches.models import AuditEntry, AuditEntryImmutable, Match
from ladder.matches.visibility import get_match_for_user
from tests.factories import reported_match
from tests.matches.support import doubles_match

SCORE = [[21, 15], [21, 18]]
FIXED = [[21, 15], [19, 21], [21, 18]]


def snap(games, played_on=None):
    return {
        "played_on": (played_on or timezone.localdate()).isoformat(),
        "side_a": ["alice", "bob"],
        "side_b": ["charlie", "dave"],
        "games": games,
    }


# transition: (how to get there from a fresh report, actor, action, from, to, before, after, reason)
CASES = {
    "report": (None, "alice", "report", "", "pending", None, snap(SCORE), ""),
    "confirm": (
        "confirm",
        "charlie",
        "confirm",
        "pending",
        "confirmed",
        snap(SCORE),
        snap(SCORE),
        "",
    ),
    "dispute": (
        "dispute",
        "dave",
        "dispute",
        "pending",
        "disputed",
        snap(SCORE),
        {**snap(SCORE), "proposed_games": FIXED},
        "Three games",
    ),
    "cancel": ("cancel", "alice", "cancel", "pending", "cancelled", snap(SCORE), snap(SCORE), ""),
    "expire": ("expire", None, "expire", "pending", "expired", snap(SCORE), snap(SCORE), ""),
    "resolve_uphold": (
        "resolve_uphold",
        "mod",
        "resolve_uphold",
        "disputed",
        "confirmed",
        snap(SCORE),
        snap(SCORE),
        "Checked",
    ),
    "resolve_correct": (
        "resolve_correct",
        "mod",
        "resolve_correct",
        "disputed",
        "corrected",
        snap(SCORE),
        snap(FIXED),
        "Checked",
    ),
    "resolve_void": (
        "resolve_void",
        "mod",
        "resolve_void",
        "disputed",
        "voided",
        snap(SCORE),
        snap(SCORE),
        "Checked",
    ),
    "correct": (
        "correct",
        "mod",
        "correct",
        "confirmed",
        "corrected",
        snap(SCORE),
        snap(FIXED),
        "Typo",
    ),
    "void": ("void", "mod", "void", "confirmed", "voided", snap(SCORE), snap(SCORE), "Friendly"),
}


def run(step, match, users):
    now = timezone.now()
    if step in ("resolve_uphold", "resolve_correct", "resolve_void"):
        match = matches.dispute_match(match, users["dave"], "Three games", FIXED)
        decision = step.split("_")[1]
        return matches.resolve_dispute(
            match, users["mod"], decision, "Checked", games=FIXED if decision == "correct" else None
        )
    if step in ("correct", "void"):
        match = matches.confirm_match(match, users["charlie"])
        if step == "correct":
            return matches.correct_match(match, users["mod"], FIXED, "Typo")
        return matches.void_match(match, users["mod"], "Friendly")
    if step == "confirm":
        return matches.confirm_match(match, users["charlie"])
    if step == "dispute":
        return matches.dispute_match(match, users["dave"], "Three games", FIXED)
    if step == "cancel":
        return matches.cancel_match(match, users["alice"])
    assert step == "expire"
    assert matches.expire_overdue(now + timedelta(hours=169)) == 1
    return match


@pytest.mark.parametrize("transition", list(CASES))
def test_every_transition_writes_exactly_one_entry(
    doubles, alice, bob, charlie, dave, mod, transition
):
    users = {"alice": alice, "charlie": charlie, "dave": dave, "mod": mod}
    step, actor, action, from_state, to_state, before, after, reason = CASES[transition]
    match = doubles_match(doubles, alice, bob, charlie, dave)
    if step is not None:
        entries_before = AuditEntry.objects.count()
        match = run(step, match, users)
        # the preparatory step (confirm / dispute) wrote its own one entry
        assert AuditEntry.objects.count() == entries_before + (
            2
            if step in ("resolve_uphold", "resolve_correct", "resolve_void", "correct", "void")
            else 1
        )
    entry = AuditEntry.objects.filter(match=match).order_by("at", "pk").last()
    assert entry.action == action
    assert entry.actor == (users[actor] if actor else None)
    assert (entry.from_state, entry.to_state) == (from_state, to_state)
    assert (entry.before, entry.after, entry.reason) == (before, after, reason)
    assert Match.objects.get(pk=match.pk).state == to_state


def test_a_trail_reads_in_order(doubles, alice, bob, charlie, dave, mod):
    match = doubles_match(doubles, alice, bob, charlie, dave)
    matches.dispute_match(match, charlie, "Wrong")
    matches.resolve_dispute(match, mod, "uphold", "It was right")
    match = get_match_for_user(Viewer.of(alice), match.pk)
    assert [(e.action, e.actor_name) for e in match.audit.all()] == [
        ("report", "Alice Archer"),
        ("dispute", "Charlie Chen"),
        ("resolve_uphold", "Morgan Moderator"),
    ]


# ---- append-only ----------------------------------------------------------------------------


@pytest.fixture
def entry(ladder, alice, bob):
    return AuditEntry.objects.get(match=reported_match(ladder, alice, [alice], [bob]))


def unchanged_entry(entry):
    fresh = AuditEntry.objects.get(pk=entry.pk)
    assert (fresh.action, fresh.reason, fresh.to_state) == ("report", "", "pending")


@pytest.mark.parametrize(
    "attempt",
    [
        "save",
        "save update_fields",
        "delete",
        "queryset update",
        "queryset delete",
        "manager update",
        "bulk_update",
        "related delete",
    ],
)
def test_the_orm_refuses_changes(entry, attempt):
    with pytest.raises(AuditEntryImmutable, match="append-only"):
        if attempt == "save":
            entry.reason = "rewritten"
            entry.save()
        elif attempt == "save update_fields":
            entry.reason = "rewritten"
            entry.save(update_fields=["reason"])
        elif attempt == "delete":
            entry.delete()
        elif attempt == "queryset update":
            AuditEntry.objects.filter(pk=entry.pk).update(reason="rewritten")
        elif attempt == "queryset delete":
            AuditEntry.objects.filter(pk=entry.pk).delete()
        elif attempt == "manager update":
            AuditEntry.objects.update(reason="rewritten")
        elif attempt == "bulk_update":
            entry.reason = "rewritten"
            AuditEntry.objects.bulk_update([entry], ["reason"])
        else:
            entry.match.audit.all().delete()
    unchanged_entry(entry)


def test_a_match_with_a_trail_cannot_be_deleted(entry):
    with pytest.raises(ProtectedError):
        entry.match.delete()
    with pytest.raises(ProtectedError):
        entry.match.ladder.delete()
    with pytest.raises(ProtectedError):
        entry.actor.delete()
    unchanged_entry(entry)


def test_new_entries_can_still_be_added(entry):
    extra = AuditEntry.objects.create(match=entry.match, action="confirm", to_state="confirmed")
    assert AuditEntry.objects.filter(match=entry.match).count() == 2
    assert extra.pk != entry.pk


postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the trigger is PostgreSQL's"
)


@postgres_only
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ladder_auditentry SET reason = 'rewritten' WHERE id = %s",
        "DELETE FROM ladder_auditentry WHERE id = %s",
        "UPDATE ladder_auditentry SET actor_id = NULL WHERE id = %s",
    ],
)
def test_postgres_refuses_raw_sql(entry, sql):
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql, [entry.pk])
    unchanged_entry(entry)


@postgres_only
def test_postgres_still_inserts(entry):
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ladder_auditentry (match_id, at, action, from_state, to_state, reason) "
            "VALUES (%s, now(), 'confirm', 'pending', 'confirmed', '')",
            [entry.match_id],
        )
    assert AuditEntry.objects.filter(match=entry.match).count() == 2


# ---- the admin --------------------------------------------------------------------------------


def test_the_admin_shows_matches_read_only(client, entry, mod, alice):
    match = entry.match
    matches.dispute_match(
        match, match.side_b_players[0], "Wrong score", [[21, 15], [19, 21], [21, 8]]
    )
    client.force_login(mod)
    change = reverse("admin:matches_match_change", args=[match.pk])
    page = client.get(change)
    assert page.status_code == 200
    html = page.content.decode()
    for text in ("Wrong score", "Reported", "Disputed", "Alice Archer", "21"):
        assert text in html
    assert 'name="_save"' not in html  # no save button: view only
    assert client.post(change, {"state": "confirmed"}).status_code == 403
    assert client.get(reverse("admin:matches_match_changelist")).status_code == 200
    assert client.get(reverse("admin:matches_match_changelist"), {"q": "alice"}).status_code == 200
    assert client.get(reverse("admin:matches_dispute_changelist")).status_code == 200
    assert Match.objects.get(pk=match.pk).state == "disputed"


@pytest.mark.parametrize("who", ["mod", "superuser"])
def test_nobody_changes_or_deletes_audit_entries_in_the_admin(client, entry, mod, who):
    from tests.factories import UserFactory

    user = mod if who == "mod" else UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(user)
    listing = client.get(reverse("admin:matches_auditentry_changelist"))
    assert listing.status_code == 200
    assert b"action-select" not in listing.content  # no bulk actions, so no "delete selected"
    view = reverse("admin:matches_auditentry_change", args=[entry.pk])
    assert client.get(view).status_code == 200
    assert client.post(view, {"reason": "rewritten"}).status_code == 403
    assert (
        client.get(reverse("admin:matches_auditentry_delete", args=[entry.pk])).status_code == 403
    )
    assert (
        client.post(
            reverse("admin:matches_auditentry_delete", args=[entry.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert client.get(reverse("admin:matches_auditentry_add")).status_code == 403
    assert (
        client.get(reverse("admin:matches_match_delete", args=[entry.match_id])).status_code == 403
    )
    unchanged_entry(entry)


def test_members_do_not_get_into_the_admin(client, entry, alice):
    client.force_login(alice)
    response = client.get(reverse("admin:matches_match_changelist"))
    assert response.status_code == 302


def test_moderators_have_view_permissions_only(mod):
    codenames = set(mod.groups.get().permissions.values_list("codename", flat=True))
    for model in ("match", "matchplayer", "game", "dispute", "auditentry"):
        assert f"view_{model}" in codenames
        assert not {f"add_{model}", f"change_{model}", f"delete_{model}"} & codenames
