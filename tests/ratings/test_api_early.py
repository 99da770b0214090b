"""The API leaderboard for a client with a token (issue 17 item 3): with a shared cache, a
repeat makes no query (the token, who the caller is on the ladder and the page's bytes are
all kept), sends what the full path sends, and shows every change at once: a rating, a
hidden member, a new moderator, a ladder made private, a revoked token."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import Group
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import MODERATORS_GROUP, ApiToken
from accounts.security import UserRateThrottle
from accounts.tokens import issue_token, revoke_all
from ladder.clubs.models import Membership
from ladder.clubs.services import save_membership
from ladder.env import cache_from_url
from ratings.api import LeaderboardView
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory, UserFactory
from tests.ratings.pages_support import TODAY, member, play, season


@pytest.fixture
def club(db, settings):  # type: ignore[no-untyped-def]
    settings.VISITOR_PAGES_EARLY = True
    ladder = LadderFactory(name="Api club", slug="api")
    players = [member(ladder, f"a{i}", display_name=f"Api Player {i}") for i in range(6)]
    season(ladder, players, 10)
    membership = Membership.objects.get(ladder=ladder, user=players[2])
    membership.is_public = False
    save_membership(membership, update_fields=["is_public"])
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
        settings.VISITOR_PAGES_EARLY = False
        caches["leaderboard"].clear()
        full, _ = get(client, url)
        settings.VISITOR_PAGES_EARLY = True
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
    save_membership(membership, update_fields=["is_public"])
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
    assert get(client)[1] == 0  # answered early, with the token kept
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


# ---- answered by the first middleware (ladder.pagecache) ----

NOON = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


@pytest.fixture
def built(monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    """How many times the view built an answer (the full path): a repeat answered early
    does not reach it."""
    calls: list[int] = []
    full = LeaderboardView.list

    def counted(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return full(self, request, *args, **kwargs)

    monkeypatch.setattr(LeaderboardView, "list", counted)
    return calls


def as_token(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    return client


def test_a_repeat_is_answered_early_with_the_full_paths_bytes_and_headers(club, built) -> None:  # type: ignore[no-untyped-def]
    _, players = club
    client = with_token(players[1])
    first, _ = get(client)
    again, queries = get(client)
    assert len(built) == 1 and queries == 0  # the second never reached the view
    assert again.content == first.content
    assert dict(again.headers) == dict(first.headers)
    assert get(client, URL + "?page=1")[0].status_code == 200  # another address: built
    assert len(built) == 2


@pytest.mark.parametrize(
    "end",
    ["logout", "revoked on the page", "revoke all", "new password", "deactivated", "deleted"],
)
def test_a_token_that_ends_is_refused_at_once_though_its_answer_was_kept(  # type: ignore[no-untyped-def]
    club, built, client, end
) -> None:
    alice = UserFactory(username="reader")  # no matches: a member that can be deleted
    _, secret = issue_token(alice, "script")
    api = as_token(secret)
    get(api)
    assert get(api)[0].status_code == 200 and len(built) == 1  # answered early
    if end == "logout":
        assert api.delete("/api/v1/auth/token/").status_code == 204
    elif end == "revoked on the page":
        client.force_login(alice)
        digest = ApiToken.objects.get(user=alice, name="script").digest
        client.post(reverse("accounts:tokens"), {"revoke": digest})
    elif end == "revoke all":
        revoke_all(alice)
    elif end == "new password":
        alice.set_password("another-long-password-77")
        alice.save()
    elif end == "deactivated":
        alice.is_active = False
        alice.save(update_fields=["is_active"])
    else:
        alice.delete()
    refused = api.get(URL)
    assert refused.status_code in (401, 403)  # the session comes first here: 403
    assert refused.json()["detail"] in ("Invalid token.", "User inactive or deleted.")
    assert api.get(URL).status_code in (401, 403)


def test_an_expired_token_is_refused_at_once_though_its_answer_was_kept(club, built) -> None:  # type: ignore[no-untyped-def]
    _, players = club
    with time_machine.travel(NOON, tick=False):
        _, secret = ApiToken.objects.create(user=players[1], expiry=timedelta(seconds=30))
        api = as_token(secret)
        get(api)
        assert get(api)[0].status_code == 200 and len(built) == 1
    with time_machine.travel(NOON + timedelta(seconds=31), tick=False):
        assert api.get(URL).json() == {"detail": "Invalid token."}
    assert not ApiToken.objects.filter(user=players[1]).exists()  # knox's clean-up ran


def test_the_last_use_is_still_written_each_minute(club, built) -> None:  # type: ignore[no-untyped-def]
    _, players = club
    with time_machine.travel(NOON, tick=False):
        _, secret = issue_token(players[1], "script")
        api = as_token(secret)
        get(api)
    first = ApiToken.objects.get(user=players[1]).last_used
    with time_machine.travel(NOON + timedelta(seconds=30), tick=False):
        assert get(api)[0].status_code == 200 and len(built) == 1  # early, nothing written
        # Another address: built and kept with the use of noon.
        assert get(api, URL + "?page=1")[1] > 0 and len(built) == 2
    assert ApiToken.objects.get(user=players[1]).last_used == first
    with time_machine.travel(NOON + timedelta(seconds=61), tick=False):
        # Still kept, but its token's last use is due: the full way writes it, once.
        assert get(api, URL + "?page=1")[0].status_code == 200 and len(built) == 3
        assert ApiToken.objects.get(user=players[1]).last_used == timezone.now()
        assert get(api, URL + "?page=1")[1] == 0  # and early again, writing nothing


def test_each_caller_gets_their_own_kept_answer(club, built) -> None:  # type: ignore[no-untyped-def]
    ladder, players = club
    moderators, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    moderator = UserFactory(username="moderator")
    moderator.groups.add(moderators)
    hidden, other, mod = with_token(players[2]), with_token(players[1]), with_token(moderator)
    for _ in range(3):
        assert "Api Player 2" in names(get(hidden)[0])  # their own hidden row
        assert "Api Player 2" not in names(get(other)[0])
        assert "Api Player 2" in names(get(mod)[0])  # a moderator sees every member
    assert len(built) == 3  # once each, then early
    # Two tokens of one member: each its own entry, the same rows.
    second = with_token(players[1])
    assert names(get(second)[0]) == names(get(other)[0])


def test_a_request_with_a_session_is_never_given_a_token_clients_answer(club, built) -> None:  # type: ignore[no-untyped-def]
    """A moderator's session with a member's token header goes the full path, never the
    answer kept for the token; the token is tried first (API_AUTHENTICATION), so it is the
    member's answer, built again."""
    _, players = club
    moderators, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    moderator = UserFactory(username="moderator")
    moderator.groups.add(moderators)
    _, secret = issue_token(players[1], "script")
    both = as_token(secret)
    both.force_login(moderator)
    api = as_token(secret)
    get(api)
    assert "Api Player 2" not in names(get(api)[0])
    assert len(built) == 1  # kept for the token
    assert "Api Player 2" not in names(get(both)[0])
    assert len(built) == 2  # the full path, not the kept answer
    assert "Api Player 2" not in names(get(api)[0])


def test_another_accept_header_is_negotiated_the_full_way(club, built) -> None:  # type: ignore[no-untyped-def]
    _, players = club
    api = with_token(players[1])
    get(api)
    get(api)
    assert len(built) == 1
    html = api.get(URL, HTTP_ACCEPT="text/html")
    assert html["Content-Type"].startswith("text/html")
    assert api.get(URL, HTTP_ACCEPT="image/png").status_code == 406
    indented = api.get(URL, HTTP_ACCEPT="application/json; indent=4")
    assert indented["Content-Type"] == "application/json; indent=4"
    assert indented.content.startswith(b"{\n    ")
    assert api.get(URL + "?format=api")["Content-Type"].startswith("text/html")
    assert get(api)[0]["Content-Type"] == "application/json"


@pytest.mark.parametrize("cache", ["memory", "redis"])
def test_answers_given_early_are_throttled_and_counted(  # type: ignore[no-untyped-def]
    club, built, monkeypatch, settings, request, cache
) -> None:
    """The user throttle (3 a minute here) counts every answer, early or not, in one window
    with the member's other API requests; past it, 429 with DRF's Retry-After."""
    if cache == "redis":
        url = request.getfixturevalue("redis_server").extra["url"].removesuffix("/0") + "/4"
        settings.CACHES = {**settings.CACHES, "default": cache_from_url("default", url)}
    caches["default"].clear()
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/min", "anon": "100/min"})
    _, players = club
    api = with_token(players[1])
    with time_machine.travel(NOON, tick=False):
        assert [get(api)[0].status_code for _ in range(3)] == [200, 200, 200]
        assert len(built) == 1  # two of them early
        refused = api.get(URL)
        assert refused.status_code == 429 and refused["Retry-After"] == "60"
        assert api.get("/api/v1/inbox/").status_code == 429  # the same window
    with time_machine.travel(NOON + timedelta(seconds=30), tick=False):
        assert api.get(URL)["Retry-After"] == "30"
    with time_machine.travel(NOON + timedelta(seconds=60), tick=False):
        assert get(api)[0].status_code == 200
    caches["default"].clear()
