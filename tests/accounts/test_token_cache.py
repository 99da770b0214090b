"""API tokens end at once, whichever way, though answers for them are kept on the shared
cache (ladder.pagecache keeps the API leaderboard per token: tests/ratings/test_api_early.py);
the last use is written once a minute. (Tokens were remembered on the cache too, issue 17;
the benchmarks showed no target needed it, issue 24.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.tokens import issue_token, revoke_all

INBOX = "/api/v1/inbox/"
TOKEN_URL = "/api/v1/auth/token/"


def _as(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.mark.parametrize(
    "end",
    ["logout", "revoked on the page", "revoke all", "new password", "member deleted"],
)
def test_a_token_that_ends_stops_working_at_once(alice, client, end) -> None:  # type: ignore[no-untyped-def]
    _, secret = issue_token(alice, "script")
    _, other = issue_token(alice, "laptop")
    assert _as(secret).get(INBOX).status_code == 200
    assert _as(other).get(INBOX).status_code == 200
    if end == "logout":
        assert _as(secret).delete(TOKEN_URL).status_code == 204
    elif end == "revoked on the page":
        client.force_login(alice)
        digest = ApiToken.objects.get(user=alice, name="script").digest
        client.post(reverse("accounts:tokens"), {"revoke": digest})
    elif end == "revoke all":
        revoke_all(alice)
    elif end == "new password":
        alice.set_password("another-long-password-77")
        alice.save()
    else:
        alice.delete()
    assert _as(secret).get(INBOX).status_code == 401
    if end in ("logout", "revoked on the page"):
        assert _as(other).get(INBOX).status_code == 200  # the other token is untouched
    else:
        assert _as(other).get(INBOX).status_code == 401


def test_an_expired_token_is_refused(alice) -> None:  # type: ignore[no-untyped-def]
    _, secret = issue_token(alice, "script")
    assert _as(secret).get(INBOX).status_code == 200
    expiry = ApiToken.objects.get(user=alice).expiry
    with time_machine.travel(expiry + timedelta(seconds=1)):
        assert _as(secret).get(INBOX).status_code == 401
    assert not ApiToken.objects.filter(user=alice).exists()


def test_a_deactivated_member_is_refused_at_once(alice) -> None:  # type: ignore[no-untyped-def]
    _, secret = issue_token(alice, "script")
    assert _as(secret).get(INBOX).status_code == 200
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert _as(secret).get(INBOX).status_code == 401


def test_the_last_use_is_still_written_each_minute(alice) -> None:  # type: ignore[no-untyped-def]
    _, secret = issue_token(alice, "script")
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        assert _as(secret).get(INBOX).status_code == 200
    first = ApiToken.objects.get(user=alice).last_used
    with time_machine.travel(start + timedelta(seconds=30), tick=False):
        assert _as(secret).get(INBOX).status_code == 200
    assert ApiToken.objects.get(user=alice).last_used == first
    with time_machine.travel(start + timedelta(seconds=61), tick=False):
        assert _as(secret).get(INBOX).status_code == 200
    assert ApiToken.objects.get(user=alice).last_used > first


def test_a_garbage_token_is_refused(db) -> None:  # type: ignore[no-untyped-def]
    assert _as("not-hex-at-all").get(INBOX).status_code == 401
    assert _as("ab" * 40).get(INBOX).status_code == 401
