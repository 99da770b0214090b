"""API tokens remembered on the shared cache (issue 17 item 3): a client's next requests make
no query for their token, and a token that ends, whichever way, stops working at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.tokens import REVOKED, TokenAuthentication, issue_token, remembered_key, revoke_all

INBOX = "/api/v1/inbox/"
TOKEN_URL = "/api/v1/auth/token/"


@pytest.fixture(autouse=True)
def _remembered(settings):  # type: ignore[no-untyped-def]
    settings.API_TOKEN_CACHE = True
    cache.clear()


def _as(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def token_queries(client: APIClient) -> tuple[int, list[str]]:
    """The status of a request and the queries that read the tokens table."""
    with CaptureQueriesContext(connection) as queries:
        status = client.get(INBOX).status_code
    table = ApiToken._meta.db_table
    return status, [q["sql"] for q in queries if table in q["sql"]]


def test_a_used_token_is_read_from_the_database_once(alice) -> None:  # type: ignore[no-untyped-def]
    _, secret = issue_token(alice, "script")
    client = _as(secret)
    status, reads = token_queries(client)
    assert status == 200 and reads  # looked up, last use written
    for _ in range(3):
        status, reads = token_queries(client)
        assert status == 200 and reads == []
    kept = cache.get(remembered_key(ApiToken.objects.get(user=alice).digest))
    assert isinstance(kept, ApiToken)
    assert "password" not in kept.user.__dict__  # the hash stays in the database
    assert kept.user.password == alice.password  # read from there if anyone asks


@pytest.mark.parametrize(
    "end",
    ["logout", "revoked on the page", "revoke all", "new password", "member deleted"],
)
def test_a_token_that_ends_stops_working_at_once(alice, client, end) -> None:  # type: ignore[no-untyped-def]
    _, secret = issue_token(alice, "script")
    _, other = issue_token(alice, "laptop")
    assert _as(secret).get(INBOX).status_code == 200  # remembered now
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


def test_an_expired_token_is_refused_though_remembered(alice) -> None:  # type: ignore[no-untyped-def]
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


def test_a_request_that_read_a_token_before_its_revocation_cannot_remember_it(alice) -> None:  # type: ignore[no-untyped-def]
    """A request read the row just before the revocation committed, and writes to the cache
    after: the revoked mark stays, and the token is refused."""
    _, secret = issue_token(alice, "script")
    row = ApiToken.objects.select_related("user").get(user=alice)
    key = remembered_key(row.digest)
    row.delete()
    assert cache.get(key) == REVOKED
    TokenAuthentication._remember(key, row)  # the late request's write
    assert cache.get(key) == REVOKED
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
        cache.delete(remembered_key(ApiToken.objects.get(user=alice).digest))  # as it expires
        assert _as(secret).get(INBOX).status_code == 200
    assert ApiToken.objects.get(user=alice).last_used > first


def test_a_garbage_token_is_refused(db) -> None:  # type: ignore[no-untyped-def]
    assert _as("not-hex-at-all").get(INBOX).status_code == 401
    assert _as("ab" * 40).get(INBOX).status_code == 401
