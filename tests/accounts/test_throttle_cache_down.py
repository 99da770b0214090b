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
