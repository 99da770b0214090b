"""Cached leaderboard pages are never stale: every change they show bumps the ladder's
board_version, which keys the cache."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import transaction

from accounts.signals import account_saved
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import save_membership
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory
from tests.ratings.pages_support import TODAY, member, play, season, text_of


@pytest.fixture
def board(db):  # type: ignore[no-untyped-def]
    ladder = LadderFactory(name="Cached", slug="cached")
    players = [member(ladder, f"c{i}", display_name=f"Player {i}") for i in range(6)]
    season(ladder, players, 12)
    return ladder, players


def version(ladder: Ladder) -> int:
    return Ladder.objects.get(pk=ladder.pk).board_version


def page(client) -> str:  # type: ignore[no-untyped-def]
    response = client.get("/ladders/cached/")
    assert response.status_code == 200
    return text_of(response.content.decode())


def test_a_newly_rated_match_shows_at_once(client, board) -> None:  # type: ignore[no-untyped-def]
    ladder, players = board
    before = page(client)
    assert page(client) == before  # served from the cache
    v = version(ladder)
    play(ladder, [players[5]], [players[0]], [(21, 0), (21, 0)], TODAY)
    rate_ladder(ladder.pk)
    assert version(ladder) != v
    after = page(client)
    assert after != before


def test_hiding_yourself_and_renaming_show_at_once(client, board) -> None:  # type: ignore[no-untyped-def]
    ladder, players = board
    assert "Player 3" in page(client)
    membership = Membership.objects.get(ladder=ladder, user=players[3])
    membership.is_public = False
    save_membership(membership, update_fields=["is_public"])  # what the profile page does
    assert "Player 3" not in page(client)
    players[4].display_name = "Renamed Four"
    players[4].save()
    account_saved(players[4], ["display_name"])  # as the profile page does
    assert "Renamed Four" in page(client)


def test_a_hidden_member_sees_their_own_row_others_do_not(client, board) -> None:  # type: ignore[no-untyped-def]
    ladder, players = board
    assert "Player 2" in page(client)
    membership = Membership.objects.get(ladder=ladder, user=players[2])
    membership.is_public = False
    save_membership(membership, update_fields=["is_public"])
    assert "Player 2" not in page(client)  # a visitor's page, now cached
    client.force_login(players[2])
    assert "Player 2" in page(client)
    client.force_login(players[1])
    assert "Player 2" not in page(client)


def test_logging_in_does_not_invalidate_the_board(client, board) -> None:  # type: ignore[no-untyped-def]
    ladder, players = board
    v = version(ladder)
    response = client.post(  # through the login page: django-axes needs the request
        "/accounts/login/",
        {"username": players[0].username, "password": "correct-horse-battery-9"},
    )
    assert response.status_code == 302
    assert version(ladder) == v


def test_a_rating_run_leaves_the_visitors_first_page_ready(  # type: ignore[no-untyped-def]
    client, board, django_assert_num_queries
) -> None:
    ladder, players = board
    newcomer = member(ladder, "c9", display_name="Newcomer Nine")
    play(ladder, [newcomer], [players[0]], [(21, 15), (21, 17)], TODAY)
    rate_ladder(ladder.pk)
    # The ladder; its rows come ready-made.
    with django_assert_num_queries(1):
        warmed = page(client)
    assert "Newcomer Nine" in warmed
    caches["leaderboard"].clear()
    assert page(client) == warmed  # the same page as the database gives


def test_a_rating_run_that_rolls_back_leaves_nothing_anyone_reads(client, board) -> None:  # type: ignore[no-untyped-def]
    ladder, players = board
    newcomer = member(ladder, "c9", display_name="Newcomer Nine")
    before, v = page(client), version(ladder)
    assert "Not yet rated (1) Player Starting rating Self-assessment Joined Newcomer Nine" in before
    with pytest.raises(RuntimeError), transaction.atomic():
        play(ladder, [newcomer], [players[0]], [(21, 15), (21, 17)], TODAY)
        rate_ladder(ladder.pk)  # warms a page with the newcomer, under a new version
        raise RuntimeError("the run's transaction fails after all")
    assert version(ladder) == v
    assert page(client) == before  # still not yet rated
    # The next change gets a version of its own, never the rolled-back run's (a count
    # from v would give that run's version again, and its page with it).
    players[1].display_name = "Renamed One"
    players[1].save()
    account_saved(players[1], ["display_name"])  # as the profile page does
    after = page(client)
    assert "Renamed One" in after and "Newcomer Nine" in after
    assert after == before.replace("Player 1", "Renamed One")
