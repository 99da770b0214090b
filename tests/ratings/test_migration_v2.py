"""Existing ladders move to RATINGS.md version 2 by a migration and a replay: afterwards
their ratings equal a replay of all rated matches (ratings/migrations/0003_ratings_v2)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from ladder.clubs.models import Ladder
from ladder.matches.models import Match
from ratings.models import PlayerRating, RatingChange
from tests.ratings.test_pipeline import assert_equals_replay

V1 = [("ladder", "0009_match_newest_index"), ("ratings", "0002_playerrating_listing")]
V2 = [("ladder", "0010_ratings_v2_settings"), ("ratings", "0003_ratings_v2")]
START = date(2026, 3, 2)
SCORES = [
    [(21, 15), (21, 18)],
    [(21, 12), (19, 21), (21, 19)],
    [(15, 21), (21, 23)],
    [(30, 29), (21, 10)],
    [(12, 21), (21, 17), (18, 21)],
]

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def v1_apps() -> Iterator[Any]:
    """The database at version 1 (before these migrations); the latest again afterwards."""
    executor = MigrationExecutor(connection)
    executor.migrate(V1)
    try:
        yield MigrationExecutor(connection).loader.project_state(V1).apps
    finally:
        call_command("migrate", verbosity=0)


def v1_club(apps: Any, slug: str, team_size: int = 1) -> int:
    """A ladder as version 1 left it: rated matches with v1's numbers stored (here simply
    made-up ones: they must all be replaced), a pending match, and the ladder's ratings."""
    User = apps.get_model("accounts", "User")
    Ladder = apps.get_model("ladder", "Ladder")
    Membership = apps.get_model("ladder", "Membership")
    Match = apps.get_model("ladder", "Match")
    MatchPlayer = apps.get_model("ladder", "MatchPlayer")
    Game = apps.get_model("ladder", "Game")
    RatingChange = apps.get_model("ratings", "RatingChange")
    PlayerRating = apps.get_model("ratings", "PlayerRating")
    ladder = Ladder.objects.create(
        name=slug.title(),
        slug=slug,
        team_size=team_size,
        best_of=3,
        points_per_game=21,
        scale_factor=400.0,  # version 1's defaults
        margin_clamp=0.25,
    )
    users = []
    for i in range(6):
        user = User.objects.create(
            username=f"{slug}{i}", email=f"{slug}{i}@example.org", password="!"
        )
        Membership.objects.create(
            ladder=ladder, user=user, initial_rating=4000.0 + 200 * i, initial_rd=200.0
        )
        users.append(user)
    now = timezone.now()
    for n in range(15):
        picked = [users[(n + k) % 6] for k in range(2 * team_size)]
        state = "pending" if n == 14 else ("corrected" if n == 3 else "confirmed")
        match = Match.objects.create(
            ladder=ladder,
            played_on=START + timedelta(days=n),
            reporter=picked[0],
            state=state,
            rated_at=now if state != "pending" else None,
        )
        for position, user in enumerate(picked):
            side = "a" if position < team_size else "b"
            MatchPlayer.objects.create(
                match=match, user=user, side=side, position=position % team_size
            )
        games = SCORES[n % len(SCORES)]
        for number, (a, b) in enumerate(games, 1):
            Game.objects.create(match=match, number=number, a_points=a, b_points=b)
        if state == "pending":
            continue
        for position, user in enumerate(picked):
            side = "a" if position < team_size else "b"
            RatingChange.objects.create(
                match=match, user=user, ladder=ladder, played_on=match.played_on, side=side,
                rating_before=4500.0, rd_before=250.0, volatility_before=0.06,
                rating_after=4400.0, rd_after=240.0, volatility_after=0.06,
                expected=0.5, outcome=0.9625 if side == "a" else 0.0375,
                repetition_weight=1.0, diversity_ratio=1.0, gate_open=True,
                performance_weight=1.0, change=-100.0,
            )  # fmt: skip
    for user in users:
        PlayerRating.objects.create(
            ladder=ladder, user=user, rating=4321.0, rd=99.0, volatility=0.06, matches=7,
            wins=7, losses=0, last_played=START,
        )  # fmt: skip
    return ladder.pk


def test_the_data_step_sets_v2_defaults_fills_won_and_marks_every_rated_match(v1_apps) -> None:  # type: ignore[no-untyped-def]
    pk = v1_club(v1_apps, "singles")
    v1_apps.get_model("ladder", "Ladder").objects.create(
        name="Custom", slug="custom", scale_factor=300.0, margin_clamp=0.25
    )
    executor = MigrationExecutor(connection)
    executor.migrate(V2)  # the migrations alone, without migrate's replay
    # Matches and ladders as the schema stands at V2 (later migrations add columns the models
    # read).
    V2Match = executor.loader.project_state(V2).apps.get_model("ladder", "Match")
    V2Ladder = executor.loader.project_state(V2).apps.get_model("ladder", "Ladder")
    ladder = V2Ladder.objects.get(pk=pk)
    assert (ladder.outcome_model, ladder.margin_boost) == ("margin_information", 1.0)
    assert (ladder.ranked_min_matches, ladder.ranked_rd) == (5, 120.0)
    # On version 1's defaults: version 2's measured ones. Set by hand: kept.
    assert (ladder.scale_factor, ladder.margin_clamp) == (450.0, 0.5)
    assert V2Ladder.objects.get(slug="custom").scale_factor == 300.0
    assert V2Ladder.objects.get(slug="custom").margin_clamp == 0.5
    # won: the side that won more games (not v1's "outcome > 0.5"), before any replay.
    for change in RatingChange.objects.filter(ladder_id=pk):
        games = V2Match.objects.get(pk=change.match_id).games.all()
        a_games = sum(1 for g in games if g.a_points > g.b_points)
        a_won = 2 * a_games > len(games)
        assert change.won == (a_won if change.side == "a" else not a_won)
        assert (change.margin_multiplier, change.floor_applied) == (1.0, False)
    assert {c.won for c in RatingChange.objects.filter(ladder_id=pk)} == {True, False}
    rated = V2Match.objects.filter(ladder_id=pk, state__in=Match.RATED_STATES)
    assert rated.count() == 14 and all(m.needs_rating for m in rated)
    assert not V2Match.objects.get(ladder_id=pk, state="pending").needs_rating
    assert PlayerRating.objects.filter(ladder_id=pk, rating=4321.0).count() == 6  # not yet


def test_migrate_replays_every_ladder_under_v2(v1_apps) -> None:  # type: ignore[no-untyped-def]
    singles = v1_club(v1_apps, "singles")
    doubles = v1_club(v1_apps, "doubles", team_size=2)
    call_command("migrate", verbosity=0)  # what a deploy runs: the migrations, then the replay
    for pk in (singles, doubles):
        ladder = Ladder.objects.get(pk=pk)
        assert ladder.params().outcome_model == "margin_information"
        assert ladder.params() == Ladder(team_size=ladder.team_size).params()  # v2's defaults
        assert ladder.params().wrong_way_floor is True
        # Every stored number, W–L and ranked standing equal a fresh replay.
        assert_equals_replay(ladder)
        assert not RatingChange.objects.filter(ladder=ladder, change=-100.0).exists()
        assert RatingChange.objects.filter(ladder=ladder).count() == 14 * 2 * ladder.team_size
        assert not PlayerRating.objects.filter(ladder=ladder, rating=4321.0).exists()
        # Version 2's promise, on the migrated history: no win lowers, no loss raises.
        for change in RatingChange.objects.filter(ladder=ladder):
            assert change.change >= 0 if change.won else change.change <= 0
    # Running migrate again has nothing to apply and replays nothing.
    before = list(RatingChange.objects.order_by("pk").values_list("pk", "rating_after"))
    call_command("migrate", verbosity=0)
    assert list(RatingChange.objects.order_by("pk").values_list("pk", "rating_after")) == before
