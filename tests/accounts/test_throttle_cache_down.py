"""A cache (Redis) that cannot be reached makes the throttles let requests through: the API
and the password-reset form keep working, quickly, instead of answering 500."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from ladder.env import cache_from_url
from tests.support.services import free_port


@pytest.fixture
def cache_down(settings):  # type: ignore[no-untyped-def]
    closed = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    settings.CACHES = {**settings.CACHES, "default": cache_from_url("default", closed)}


@pytest.mark.django_db
def test_the_api_answers_when_the_throttle_cache_is_down(client, cache_down, alice):
    started = time.monotonic()
    response = client.get("/api/v1/ladders/")
    assert response.status_code == 200
    client.force_login(alice)
    assert client.get("/api/v1/ladders/").status_code == 200
    assert time.monotonic() - started < 3  # connection refused at once; 0.25 s timeouts


@pytest.mark.django_db
def test_the_password_reset_form_works_when_its_cache_is_down(client, cache_down, alice):
    response = client.post(reverse("password_reset"), {"email": alice.email})
    assert response.status_code == 302


@pytest.mark.django_db
def test_the_token_endpoints_lockout_holds_while_the_cache_is_down(cache_down, alice, settings):
    """The token endpoint's throttle lets requests through with its cache away, but its
    password check is django-axes' (authenticate() goes through AxesStandaloneBackend and
    accounts.security.LoginGuard, like the login form), counted in PostgreSQL: guessing
    stays limited during an outage."""
    from django.test import Client

    from accounts.models import ApiToken
    from tests.factories import PASSWORD

    client = Client(REMOTE_ADDR="198.51.100.7")

    def token(password: str):  # type: ignore[no-untyped-def]
        body = {"username": "alice", "password": password}
        return client.post("/api/v1/auth/token/", body, content_type="application/json")

    for i in range(settings.AXES_FAILURE_LIMIT - 1):
        assert token(f"guess-{i}").status_code == 400, i
    assert token("the-last-guess").status_code == 429  # the limit-th failure locks
    refused = token(PASSWORD)
    assert refused.status_code == 429 and refused["Retry-After"]
    assert not ApiToken.objects.exists()
    # The same count stops the login form from that address.
    page = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert page.status_code == 429 and "_auth_user_id" not in client.session
