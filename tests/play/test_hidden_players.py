"""Hidden and deactivated hosts and players on open games and challenges (issue 36 item 2):
the access policy's rule for names, and a closed account's games called off."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.models import User
from accounts.signals import account_saved
from ladder.clubs.access import HIDDEN_PLAYER_NAME
from ladder.matches.errors import MatchStateError
from ladder.matches.models import Notification
from ladder.play import services as play
from ladder.play.models import CANCELLED, OPEN, Challenge, OpenGame
from tests.factories import hide
from tests.matches.support import api_client
from tests.play.support import soon

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_throttle_history():
    cache.clear()


def _page(user: User | None) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    html = client.get("/ladders/singles/open-games/").content.decode()
    return html[html.find('<main class="container"') :]


def test_a_hidden_host_is_not_named_to_others(ladder, alice, bob, charlie, mod) -> None:
    hide(user=alice, ladder=ladder)
    game = play.post_open_game(ladder=ladder, by=alice, starts_at=soon(2), place="Hall 1")

    for viewer in (bob, charlie):
        body = api_client(viewer).get("/api/v1/ladders/singles/open-games/").json()
        assert [(g["id"], g["host"], g["players"]) for g in body] == [(game.pk, None, [None])]
        page = _page(viewer)
        assert "Alice Archer" not in page and f"posted by {HIDDEN_PLAYER_NAME}" in page
    # She and the moderators see her name; so does whoever joins her game.
    for viewer in (alice, mod):
        body = api_client(viewer).get("/api/v1/ladders/singles/open-games/").json()
        assert body[0]["host"] == "alice"
        assert "posted by Alice Archer" in _page(viewer)
    joined = api_client(bob).post(f"/api/v1/open-games/{game.pk}/join/")
    assert joined.status_code == 200
    assert joined.json()["host"] == "alice" and joined.json()["players"] == ["alice", "bob"]
    assert "posted by Alice Archer" in _page(bob)
    assert "Alice Archer" not in _page(charlie)


def test_a_deactivated_host_s_games_and_challenges_are_called_off(
    ladder, alice, bob, charlie
) -> None:
    hosted = play.post_open_game(ladder=ladder, by=alice, starts_at=soon(2), place="Hall 1")
    joined = play.post_open_game(ladder=ladder, by=bob, starts_at=soon(3), place="Hall 2")
    play.join_open_game(joined, alice)
    asked = play.create_challenge(
        ladder=ladder, by=charlie, opponents=["alice"], proposed_times=[soon(4)]
    )
    Notification.objects.all().delete()

    alice.is_active = False
    alice.save(update_fields=["is_active"])
    account_saved(alice, ["is_active"])  # as the admin does

    assert OpenGame.objects.get(pk=hosted.pk).state == CANCELLED
    reopened = OpenGame.objects.get(pk=joined.pk)
    assert reopened.state == OPEN and reopened.players_list == [bob]
    assert Challenge.objects.get(pk=asked.pk).state == CANCELLED
    assert Notification.objects.filter(user=bob).count() == 1
    assert Notification.objects.filter(user=charlie).count() == 1
    listed = api_client(charlie).get("/api/v1/ladders/singles/open-games/").json()
    assert [g["id"] for g in listed] == [joined.pk]


def test_a_game_with_a_closed_account_in_it_cannot_fill(ladder, alice, bob, charlie) -> None:
    """Where a game or challenge slipped past the calling off (an account closed by a bulk
    update), joining it or accepting refuses: its match could never be reported."""
    game = play.post_open_game(ladder=ladder, by=alice, starts_at=soon(2), place="Hall 1")
    asked = play.create_challenge(
        ladder=ladder, by=alice, opponents=["charlie"], proposed_times=[soon(3)]
    )
    User.objects.filter(pk=alice.pk).update(is_active=False)  # no signal: nothing called off
    with pytest.raises(MatchStateError, match="can no longer play"):
        play.join_open_game(game, bob)
    with pytest.raises(MatchStateError, match="can no longer play"):
        play.accept_challenge(asked, charlie, soon(3))
    assert OpenGame.objects.get(pk=game.pk).players_list == [alice]
    assert Challenge.objects.get(pk=asked.pk).state == "open"
