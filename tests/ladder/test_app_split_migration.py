"""The models moved from the ``ladder`` app to ``clubs``, ``matches`` and ``clubnight``
(issue 14) in Django's state only: a database migrated at the head before the move, with a
club's data in it, migrates forward with every row, table and permission where it was."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.models import MODERATORS_GROUP
from ladder.clubnight.models import ClubNight
from ladder.clubs.models import Ladder, Membership
from ladder.matches.models import AuditEntry, Dispute, Match
from ratings.models import PlayerRating, RatingChange

BEFORE = [
    ("ladder", "0011_ladder_description_limit"),
    ("ratings", "0003_ratings_v2"),
    ("clubs", None),
    ("matches", None),
    ("clubnight", None),
]
MOVED = {
    "clubs": ["ladder", "membership"],
    "matches": ["match", "matchplayer", "game", "dispute", "auditentry"],
    "clubnight": ["clubnight"],
}

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def old_apps() -> Iterator[Any]:
    """The database as it was before the move; the latest again afterwards."""
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        yield MigrationExecutor(connection).loader.project_state(BEFORE[:2]).apps
    finally:
        call_command("migrate", verbosity=0)


def old_club(apps: Any) -> dict[str, int]:
    """A ladder, two members, a confirmed match with games, its rating rows, a dispute, an
    audit entry and a club night, written with the models where they used to live."""
    User = apps.get_model("accounts", "User")
    model = {name: apps.get_model("ladder", name) for name in MOVED["clubs"] + MOVED["matches"]}
    # Settings of its own: clubs/0002_defaults_by_transfer moves (and replays) only ladders
    # on version 2's defaults, so this one's rows stay exactly as written.
    ladder = model["ladder"].objects.create(
        name="Old club", slug="old-club", scale_factor=420.0, margin_clamp=0.4
    )
    alice = User.objects.create(username="alice", email="alice@example.com")
    bob = User.objects.create(username="bob", email="bob@example.com")
    for user in (alice, bob):
        model["membership"].objects.create(
            ladder=ladder, user=user, initial_rating=4500.0, initial_rd=250.0
        )
    match = model["match"].objects.create(
        ladder=ladder, reporter=alice, played_on=date(2026, 3, 2), state="confirmed"
    )
    model["matchplayer"].objects.create(match=match, user=alice, side="a", position=1)
    model["matchplayer"].objects.create(match=match, user=bob, side="b", position=1)
    model["game"].objects.create(match=match, number=1, a_points=21, b_points=15)
    model["game"].objects.create(match=match, number=2, a_points=21, b_points=18)
    model["dispute"].objects.create(match=match, raised_by=bob, reason="Second game was 21-19")
    model["auditentry"].objects.create(
        match=match, actor=alice, action="report", from_state="", to_state="pending"
    )
    apps.get_model("ladder", "ClubNight").objects.create(
        ladder=ladder, date=date(2026, 3, 2), present=["alice", "bob"]
    )
    RatingChange = apps.get_model("ratings", "RatingChange")
    for user, side, after in ((alice, "a", 4620.0), (bob, "b", 4380.0)):
        RatingChange.objects.create(
            ladder=ladder,
            match=match,
            user=user,
            played_on=match.played_on,
            side=side,
            rating_before=4500.0,
            rd_before=250.0,
            volatility_before=0.06,
            rating_after=after,
            rd_after=230.0,
            volatility_after=0.06,
            expected=0.5,
            outcome=1.0 if side == "a" else 0.0,
            won=side == "a",
            repetition_weight=1.0,
            diversity_ratio=1.0,
            gate_open=True,
            change=after - 4500.0,
        )
        apps.get_model("ratings", "PlayerRating").objects.create(
            ladder=ladder, user=user, rating=after, rd=230.0, volatility=0.06, matches=1
        )
    ContentTypeThen = apps.get_model("contenttypes", "ContentType")
    # The Moderators may view matches in the admin (ladder/migrations/0004), granted on the
    # match's content type as it was then (a flushed test database lost the migration's rows).
    Permission = apps.get_model("auth", "Permission")
    moderators, _ = apps.get_model("auth", "Group").objects.get_or_create(name=MODERATORS_GROUP)
    for name in ("match", "auditentry", "ladder"):
        kind, _ = ContentTypeThen.objects.get_or_create(app_label="ladder", model=name)
        codename = "change_ladder" if name == "ladder" else f"view_{name}"
        permission, _ = Permission.objects.get_or_create(
            content_type=kind, codename=codename, defaults={"name": codename}
        )
        moderators.permissions.add(permission)
    return {
        "ladder": ladder.pk,
        "match": match.pk,
        "content_type": ContentTypeThen.objects.get(app_label="ladder", model="match").pk,
    }


def test_a_database_from_before_the_move_migrates_forward_with_everything(old_apps) -> None:  # type: ignore[no-untyped-def]
    before = old_club(old_apps)
    call_command("migrate", verbosity=0)

    ladder = Ladder.objects.get(pk=before["ladder"])
    assert ladder.name == "Old club"
    assert sorted(
        Membership.objects.filter(ladder=ladder).values_list("user__username", flat=True)
    ) == [
        "alice",
        "bob",
    ]
    match = Match.objects.get(pk=before["match"])
    assert match.ladder == ladder and match.state == "confirmed"
    assert [(g.a_points, g.b_points) for g in match.games.order_by("number")] == [
        (21, 15),
        (21, 18),
    ]
    assert {p.user.username: p.side for p in match.players.all()} == {"alice": "a", "bob": "b"}
    assert Dispute.objects.get(match=match).reason == "Second game was 21-19"
    assert AuditEntry.objects.get(match=match).action == "report"
    assert ClubNight.objects.get(ladder=ladder).present == ["alice", "bob"]
    changes = RatingChange.objects.filter(match=match).order_by("user__username")
    assert [(c.user.username, c.rating_after) for c in changes] == [
        ("alice", 4620.0),
        ("bob", 4380.0),
    ]
    assert PlayerRating.objects.filter(ladder=ladder).count() == 2

    # The tables kept their names.
    tables = set(connection.introspection.table_names())
    assert {"ladder_ladder", "ladder_membership", "ladder_match", "ladder_clubnight"} <= tables
    assert not {"clubs_ladder", "matches_match", "clubnight_clubnight"} & tables

    # The content types moved with the models (same rows), so the Moderators' permissions stayed.
    assert ContentType.objects.get(app_label="matches", model="match").pk == before["content_type"]
    for app_label, models in MOVED.items():
        for name in models:
            assert not ContentType.objects.filter(app_label="ladder", model=name).exists(), name
            assert ContentType.objects.filter(app_label=app_label, model=name).count() == 1
    moderators = Group.objects.get(name=MODERATORS_GROUP)
    granted = set(moderators.permissions.values_list("content_type__app_label", "codename"))
    assert ("matches", "view_match") in granted
    assert ("matches", "view_auditentry") in granted
    assert ("clubs", "change_ladder") in granted


def test_the_models_state_matches_the_migrations() -> None:
    """No migration is missing after the move (the state ops describe the models exactly)."""
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
