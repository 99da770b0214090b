"""The API throttles on a real Redis (issue 17 item 3): DRF's sliding window, limit and wait,
counted in Redis in one round trip, the same wherever the request lands."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import time_machine
from django.core.cache import caches
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.security import UserRateThrottle
from ladder.env import cache_from_url
from tests.support import services

pytestmark = pytest.mark.services
URL = "/api/v1/ladders/"


@pytest.fixture
def redis_throttle(redis_server: services.Process, settings, monkeypatch) -> Iterator[None]:  # type: ignore[no-untyped-def]
    url = redis_server.extra["url"].removesuffix("/0") + "/3"
    settings.CACHES = {**settings.CACHES, "default": cache_from_url("default", url)}
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/min", "anon": "100/min"})
    caches["default"].clear()
    yield
    caches["default"].clear()


@pytest.mark.django_db
def test_the_user_throttle_counts_in_redis_and_refuses_the_request_past_the_rate(  # type: ignore[no-untyped-def]
    redis_throttle, alice, bob
) -> None:
    client, other = APIClient(), APIClient()
    client.force_authenticate(alice)
    other.force_authenticate(bob)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        assert [client.get(URL).status_code for _ in range(3)] == [200, 200, 200]
        refused = client.get(URL)
        assert refused.status_code == 429
        # DRF's wait: what is left of the oldest request's minute, over the one request left.
        assert refused["Retry-After"] == "60"
        assert other.get(URL).status_code == 200  # counted per member
    with time_machine.travel(start + timedelta(seconds=30), tick=False):
        assert client.get(URL).status_code == 429  # refusals are not counted, nor do they wait
        assert client.get(URL)["Retry-After"] == "30"
    with time_machine.travel(start + timedelta(seconds=60), tick=False):
        assert client.get(URL).status_code == 200  # the first three are a minute old
    redis = caches["default"]._cache.get_client(write=True)  # type: ignore[attr-defined]
    windows = [key for key in redis.keys("*") if b"throttle_user" in key]
    assert windows and all(redis.type(key) == b"zset" for key in windows)
    assert redis.zcard(windows[0]) <= 3
