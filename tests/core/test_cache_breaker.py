"""Issue 29.1: a Redis that does not answer (frozen with SIGSTOP: it takes connections and
never replies) costs a request one timeout, then is skipped for CACHE_BREAKER_SECONDS by the
throttles, the page cache and the broker alike (core.cache)."""

from __future__ import annotations

import os
import signal
import statistics
import time
from collections.abc import Iterator

import pytest
import redis
from django.core.cache import caches
from rest_framework.test import APIClient

from accounts.tokens import issue_token
from core import cache as breaker
from ladder.env import cache_from_url
from ladder.matches.models import Match
from tests.factories import reported_match
from tests.support import services

pytestmark = pytest.mark.services


@pytest.fixture
def frozen_redis(settings) -> Iterator[services.Process]:  # type: ignore[no-untyped-def]
    """Both caches (the throttles, the page cache and its early answers) on a Redis
    of this test's own, which is then frozen."""
    try:
        redis = services.start_redis()
    except FileNotFoundError:
        services.missing("redis-server")
    url = redis.extra["url"]
    settings.CACHES = {
        "default": cache_from_url("default", url),
        "leaderboard": cache_from_url("leaderboard", url.removesuffix("/0") + "/1"),
    }
    settings.VISITOR_PAGES_EARLY = True
    settings.CACHE_BREAKER_SECONDS = 2
    os.killpg(redis.proc.pid, signal.SIGSTOP)
    try:
        yield redis
    finally:
        os.killpg(redis.proc.pid, signal.SIGCONT)
        redis.stop()


def timed(call) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    status = call().status_code
    return time.monotonic() - started, status


def test_a_frozen_cache_is_asked_once_then_skipped(frozen_redis) -> None:  # type: ignore[no-untyped-def]
    cache = caches["default"]
    started = time.monotonic()
    with pytest.raises(redis.TimeoutError):  # the socket timeout (0.25 s)
        cache.get("a")
    assert 0.2 < time.monotonic() - started < 1.0
    started = time.monotonic()
    for _ in range(20):
        with pytest.raises(breaker.Skipped):
            cache.get("a")
        with pytest.raises(breaker.Skipped):  # another database of the same server
            caches["leaderboard"].set_many({"b": 1})
    assert time.monotonic() - started < 0.05
    time.sleep(2.1)  # the breaker lets one call try again: still frozen, skipped again
    with pytest.raises(redis.TimeoutError) as error:
        cache.get("a")
    assert not isinstance(error.value, breaker.Skipped)
    with pytest.raises(breaker.Skipped):
        cache.get("a")


@pytest.mark.django_db
def test_pages_the_api_and_actions_answer_quickly_while_redis_is_frozen(  # type: ignore[no-untyped-def]
    frozen_redis, ladder, alice, bob, client, settings, monkeypatch
) -> None:
    from ladder.celery import app
    from tests.conftest import _reset_broker_pool

    settings.CACHE_BREAKER_SECONDS = 60  # longer than the test
    # The broker on the same frozen Redis, as in the Procfile's setup.
    old = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url, app.conf.task_always_eager = frozen_redis.extra["url"], False
    _reset_broker_pool(app)
    timeouts: list[str] = []
    failed = breaker.failed
    monkeypatch.setattr(breaker, "failed", lambda server: (timeouts.append(server), failed(server)))
    _, secret = issue_token(bob, "script")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    first, status = timed(lambda: api.get(f"/api/v1/ladders/{ladder.slug}/leaderboard/"))
    assert status == 200  # the first request meets the timeout (once), and answers
    times = []
    for n in range(5):
        for call in (
            lambda: api.get(f"/api/v1/ladders/{ladder.slug}/leaderboard/"),
            lambda: api.get("/api/v1/inbox/"),
            lambda: client.get(f"/ladders/{ladder.slug}/"),
            lambda: client.get(f"/players/{alice.username}/"),
        ):
            took, status = timed(call)
            assert status == 200
            if n:  # the first round also loads templates and code: not timed
                times.append(took)
        match = reported_match(ladder, alice, [alice], [bob], games=[(21, n), (21, 10)])
        took, status = timed(lambda: api.post(f"/api/v1/matches/{match.pk}/confirm/"))  # noqa: B023
        assert status == 200
        if n:
            times.append(took)
        assert Match.objects.get(pk=match.pk).state == "confirmed"
    app.conf.broker_url, app.conf.task_always_eager = old
    _reset_broker_pool(app)
    # The first request's timeout, and no other call reached Redis after it. (Times on a
    # shared machine say little; benchmarks/faults.py measures them under gunicorn.)
    assert len(timeouts) <= 1  # at most the first call waits (none if no call needed Redis)
    assert statistics.median(times) < 0.25, (first, times)  # under one socket timeout
