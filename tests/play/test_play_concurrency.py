"""Two members racing for the last place of a game, on real PostgreSQL: the game's row
lock makes them take turns, so one gets the place and the other is told it is full."""

from __future__ import annotations

import pytest
from django.db import connection

from ladder.matches.errors import MatchStateError
from ladder.play import services
from ladder.play.models import SCHEDULED, OpenGame, OpenGamePlayer
from tests.factories import MembershipFactory, UserFactory
from tests.matches.test_matches_concurrency import race
from tests.play.support import soon

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks"),
    pytest.mark.django_db(transaction=True),
]


def test_two_members_join_the_last_place_at_once(doubles, alice, bob, charlie, dave):
    game = services.post_open_game(
        ladder=doubles, by=alice, starts_at=soon(), place="Court 1", team_size=2
    )
    services.join_open_game(game, bob)
    services.join_open_game(game, charlie)  # one place left
    erin = UserFactory(username="erin")
    MembershipFactory(ladder=doubles, user=erin)
    results = race(
        lambda: services.join_open_game(game.pk, dave),
        lambda: services.join_open_game(game.pk, erin),
    )
    assert sum(isinstance(r, OpenGame) for r in results) == 1
    losers = [r for r in results if isinstance(r, Exception)]
    assert len(losers) == 1 and isinstance(losers[0], MatchStateError)
    assert str(losers[0]) == "This game is full."
    assert OpenGamePlayer.objects.filter(game=game).count() == 4
    assert OpenGame.objects.get(pk=game.pk).state == SCHEDULED
