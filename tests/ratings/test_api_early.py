"""The API leaderboard for a client with a token (issue 17 item 3): with a shared cache, a
repeat makes no query (the token, who the caller is on the ladder and the page's bytes are
all kept), sends what the full path sends, and shows every change at once: a rating, a
hidden member, a new moderator, a ladder made private, a revoked token."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import MODERATORS_GROUP
from accounts.tokens import issue_token
from ladder.clubs.models import Membership
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory, UserFactory
from tests.ratings.pages_support import TODAY, member, play, season


@pytest.fixture
def club(db, settings):  # type: ignore[no-untyped-def]
    settings.VISITOR_PAGES_EARLY = True
    settings.API_TOKEN_CACHE = True
    ladder = LadderFactory(name="Api club", slug="api")
    players = [member(ladder, f"a{i}", display_name=f"Api Player {i}") for i in range(6)]
    season(ladder, players, 10)
    membership = Membership.objects.get(ladder=ladder, user=players[2])
    membership.is_public = False
    membership.save(update_fields=["is_public"])
    return ladder, players


URL = "/api/v1/ladders/api/leaderboard/"


def with_token(user) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(user, 'bench')[1]}")
    return client


def get(client: APIClient, url: str = URL):  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return response, len(queries)


def names(response) -> list[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, response.content[:300]
    return [row["name"] for row in response.json()["results"]]


def test_a_token_clients_repeat_makes_no_query_and_is_the_full_paths_response(  # type: ignore[no-untyped-def]
    club, settings
) -> None:
    _, players = club
    client = with_token(players[1])
    for url in (URL, URL + "?status=ranked", URL + "?q=Api&page=1"):
        first, built = get(client, url)
        again, queries = get(client, url)
        assert built > 0 and queries == 0, url
        settings.VISITOR_PAGES_EARLY = settings.API_TOKEN_CACHE = False
        caches["leaderboard"].clear()
        full, _ = get(client, url)
        settings.VISITOR_PAGES_EARLY = settings.API_TOKEN_CACHE = True
        for response in (first, again):
            assert response.status_code == 200
            assert response.content == full.content, url
            assert dict(response.headers) == dict(full.headers), url


def test_each_kind_of_viewer_sees_its_own_rows(club) -> None:  # type: ignore[no-untyped-def]
    _, players = club
    hidden, other, anonymous = with_token(players[2]), with_token(players[1]), APIClient()
    for _ in range(2):  # built, then kept
        assert "Api Player 2" in names(get(hidden)[0])  # their own hidden row
        assert "Api Player 2" not in names(get(other)[0])
        assert "Api Player 2" not in names(get(anonymous)[0])


def test_a_new_moderator_sees_every_row_at_once_and_a_former_one_no_more(club) -> None:  # type: ignore[no-untyped-def]
    _, players = club
    client = with_token(players[1])
    assert "Api Player 2" not in names(get(client)[0])
    assert get(client)[1] == 0
    moderators, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    moderators.user_set.add(players[1])
    assert "Api Player 2" in names(get(client)[0])
    players[1].groups.remove(moderators)
    assert "Api Player 2" not in names(get(client)[0])


def test_a_member_hidden_or_a_rating_changed_shows_at_once(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    client = with_token(players[1])
    before = get(client)[0].json()
    assert get(client)[1] == 0
    membership = Membership.objects.get(ladder=ladder, user=players[4])
    membership.is_public = False
    membership.save(update_fields=["is_public"])
    assert "Api Player 4" not in names(get(client)[0])
    play(ladder, [players[5]], [players[0]], [(21, 0), (21, 0)], TODAY)
    rate_ladder(ladder.pk)
    after = get(client)[0].json()
    assert after != before
    caches["leaderboard"].clear()
    assert get(client)[0].json() == after  # what the database gives


def test_a_ladder_made_private_is_gone_for_outsiders_at_once(club) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    outsider = with_token(UserFactory(username="outside"))
    member_client = with_token(players[1])
    for client in (outsider, member_client, APIClient()):
        get(client)
    ladder.is_public = False
    ladder.save()
    assert get(outsider)[0].status_code == 404
    assert get(APIClient())[0].status_code == 404
    assert get(member_client)[0].status_code == 200


def test_a_revoked_token_is_refused_at_once(club) -> None:  # type: ignore[no-untyped-def]
    _, players = club
    client = with_token(players[1])
    get(client)
    assert get(client)[1] == 0  # the token is remembered
    assert client.delete("/api/v1/auth/token/").status_code == 204
    response = client.get(URL)
    # This endpoint's first authentication is the session's, so DRF answers 403, not 401.
    assert response.status_code in (401, 403)
    assert response.json() == {"detail": "Invalid token."}


def test_the_browsable_api_still_renders(club) -> None:  # type: ignore[no-untyped-def]
    _, players = club
    response = with_token(players[1]).get(URL, HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")


def test_a_bad_filter_is_refused_every_time(club) -> None:  # type: ignore[no-untyped-def]
    _, players = club
    client = with_token(players[1])
    for _ in range(2):
        response = client.get(URL + "?status=nonsense")
        assert response.status_code == 400
