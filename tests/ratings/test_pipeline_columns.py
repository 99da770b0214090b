"""The rating runs read the matches into the engine's columns and write the change rows from
its columns (ratings.pipeline): what depends on more than the players and the score, the
stats of a performance-weighted ladder, still reaches the update, on both paths of a run."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from ladder.matches.models import Match, MatchPlayer
from ratings.engine.replay import History
from ratings.models import RatingChange
from ratings.pipeline import load_matches, rate_ladder
from tests.factories import LadderFactory, MembershipFactory, UserFactory
from tests.ratings.test_pipeline import SCORES, START, assert_equals_replay
from tests.ratings.test_replay_writes import turn_round

pytestmark = pytest.mark.django_db


def test_stats_weigh_on_new_matches_and_on_a_replay(make_match) -> None:  # type: ignore[no-untyped-def]
    ladder = LadderFactory(
        name="Weighted",
        slug="weighted",
        team_size=2,
        team_method="performance_weighted",
        method_options={"stat_weights": {"kills": 1.0, "deaths": -0.7}},
    )
    users = [UserFactory(username=f"w{i}") for i in range(6)]
    for user in users:
        MembershipFactory(ladder=ladder, user=user)
    rng = random.Random(11)
    made = []
    for i in range(12):
        four = rng.sample(users, 4)
        match = make_match(
            ladder, four[:2], four[2:], rng.choice(SCORES), START + timedelta(days=i)
        )
        for player in MatchPlayer.objects.filter(match=match):
            player.stats = {"kills": float(rng.randint(0, 20)), "deaths": float(rng.randint(0, 9))}
            player.save(update_fields=["stats"])
        made.append(match)
        if i % 4 == 3:  # new matches, continued from the stored state
            assert rate_ladder(ladder.pk).replayed_from is None
            assert_equals_replay(ladder)
    weights = set(
        RatingChange.objects.filter(ladder=ladder).values_list("performance_weight", flat=True)
    )
    assert len(weights) > 2  # the stats moved the weights
    history = load_matches(ladder, encoded=True)
    assert isinstance(history, History) and len(history) == 12 and len(history.stats) == 12
    turn_round(Match.objects.get(pk=made[2].pk))
    assert rate_ladder(ladder.pk).replayed_from is not None
    assert_equals_replay(ladder)
