"""Ladders on version 2's scale_factor / margin_clamp (450 / 0.5) move to the defaults judged
by transfer, RATINGS.md §2's 400 / 0.25, and are replayed (ladder/clubs/migrations/
0002_defaults_by_transfer); a ladder whose numbers were set by hand keeps them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from ladder.clubs.models import Ladder, Membership
from ladder.matches.models import Match
from ratings.engine.types import Params
from ratings.models import RatingChange
from ratings.pipeline import rate_ladder
from tests.ratings.test_pipeline import assert_equals_replay

BEFORE = [("clubs", "0001_initial"), ("matches", "0002_notifications")]
AFTER = [("clubs", "0002_defaults_by_transfer")]

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def v2_apps(settings) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    """The database before the migration; the latest again afterwards. Rating runs there do
    not warm the board: its page reads columns added since (clubs 0003's away_until)."""
    settings.LEADERBOARD_CACHE_SECONDS = 0
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        yield MigrationExecutor(connection).loader.project_state(BEFORE).apps
    finally:
        call_command("migrate", verbosity=0)


@contextmanager
def todays_ladder_columns(apps: Any) -> Iterator[None]:
    """Today's rating runs on the old schema of ``apps``: the ladder and membership columns
    added since (clubs 0004's season_start_periods, 0006's banned_at, …) are there while they
    run, at their defaults for the rows already made, and gone again before the migrations
    add them."""
    missing = []
    for model in (Ladder, Membership):
        old = {f.column for f in apps.get_model("clubs", model.__name__)._meta.concrete_fields}
        missing += [(model, f) for f in model._meta.concrete_fields if f.column not in old]
    with connection.schema_editor() as editor:
        for model, field in missing:
            editor.add_field(model, field)
    try:
        yield
    finally:
        with connection.schema_editor() as editor:
            for model, field in missing:
                editor.remove_field(model, field)


def club(apps: Any, slug: str, **settings: float) -> int:
    """A rated singles ladder with the given settings: six players, a dozen matches."""
    User = apps.get_model("accounts", "User")
    LadderModel = apps.get_model("clubs", "Ladder")
    Membership = apps.get_model("clubs", "Membership")
    MatchModel = apps.get_model("matches", "Match")
    MatchPlayer = apps.get_model("matches", "MatchPlayer")
    Game = apps.get_model("matches", "Game")
    ladder = LadderModel.objects.create(name=slug.title(), slug=slug, **settings)
    users = [
        User.objects.create(username=f"{slug}{i}", email=f"{slug}{i}@example.org", password="!")
        for i in range(6)
    ]
    for i, user in enumerate(users):
        Membership.objects.create(
            ladder=ladder, user=user, initial_rating=4000.0 + 200 * i, initial_rd=200.0
        )
    for n in range(12):
        match = MatchModel.objects.create(
            ladder=ladder,
            played_on=date(2026, 3, 2) + timedelta(days=n),
            reporter=users[n % 6],
            state="confirmed",
            needs_rating=True,
        )
        for position, user in enumerate((users[n % 6], users[(n + 1) % 6])):
            MatchPlayer.objects.create(match=match, user=user, side="ab"[position], position=0)
        for number, (a, b) in enumerate(((21, 9), (21, 19)) if n % 2 else ((15, 21), (9, 21)), 1):
            Game.objects.create(match=match, number=number, a_points=a, b_points=b)
    return int(ladder.pk)


def test_version_2_defaults_move_to_the_spec_and_hand_set_values_stay(v2_apps) -> None:  # type: ignore[no-untyped-def]
    v2 = club(v2_apps, "vtwo", scale_factor=450.0, margin_clamp=0.5)
    custom = club(v2_apps, "custom", scale_factor=300.0, margin_clamp=0.4)
    half = club(v2_apps, "half", scale_factor=450.0, margin_clamp=0.4)
    with todays_ladder_columns(v2_apps):
        for pk in (v2, custom, half):
            rate_ladder(pk)
    assert not Match.objects.filter(needs_rating=True).exists()
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)  # the migration alone, without the replay
    # Ladders as the schema stands there (later migrations add columns the model reads).
    Migrated = executor.loader.project_state(AFTER).apps.get_model("clubs", "Ladder")
    assert (Migrated.objects.get(pk=v2).scale_factor, Migrated.objects.get(pk=v2).margin_clamp) == (
        400.0,
        0.25,
    )
    assert Migrated.objects.get(pk=half).scale_factor == 400.0
    assert Migrated.objects.get(pk=half).margin_clamp == 0.4
    assert (
        Migrated.objects.get(pk=custom).scale_factor,
        Migrated.objects.get(pk=custom).margin_clamp,
    ) == (
        300.0,
        0.4,
    )
    # The changed ladders' rated matches are marked for the replay; the untouched one's not.
    assert Match.objects.filter(ladder_id=v2, needs_rating=True).count() == 12
    assert Match.objects.filter(ladder_id=half, needs_rating=True).count() == 12
    assert not Match.objects.filter(ladder_id=custom, needs_rating=True).exists()
    # A new ladder gets the new defaults, the engine's own.
    assert (Params().scale_factor, Params().margin_clamp) == (400.0, 0.25)
    fresh = Ladder(name="New", slug="new")
    assert (fresh.scale_factor, fresh.margin_clamp) == (400.0, 0.25)


def test_migrate_replays_the_ladders_it_moved(v2_apps) -> None:  # type: ignore[no-untyped-def]
    pk = club(v2_apps, "vtwo", scale_factor=450.0, margin_clamp=0.5)
    with todays_ladder_columns(v2_apps):
        rate_ladder(pk)
    before = sorted(RatingChange.objects.filter(ladder_id=pk).values_list("pk", "rating_after"))
    call_command("migrate", verbosity=0)  # the migration, then migrate's replay
    ladder = Ladder.objects.get(pk=pk)
    assert (ladder.params().scale_factor, ladder.params().margin_clamp) == (400.0, 0.25)
    assert not Match.objects.filter(ladder=ladder, needs_rating=True).exists()
    assert_equals_replay(ladder)
    after = sorted(RatingChange.objects.filter(ladder_id=pk).values_list("pk", "rating_after"))
    assert [r for _, r in after] != [r for _, r in before]  # the new rules changed the numbers
