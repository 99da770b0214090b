"""The lockout and the API throttles hold across web processes: two gunicorn servers on the
test PostgreSQL and a real Redis, the attempts alternating between them."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests.factories import PASSWORD, UserFactory
from tests.support import services

pytestmark = pytest.mark.services


@pytest.fixture
def sites(worker_database_url: str, redis_server: services.Process) -> Iterator[list[str]]:  # type: ignore[no-untyped-def]
    cache = redis_server.extra["url"].rsplit("/", 1)[0] + "/3"
    environ = {
        "DATABASE_URL": worker_database_url,
        "CACHE_URL": cache,
        "API_THROTTLE_ANON": "5/min",
        "DEBUG": "1",
    }
    servers = [services.start_gunicorn(environ, "--workers", "1") for _ in range(2)]
    yield [server.extra["url"] for server in servers]
    for server in servers:
        server.stop()


def post(url: str, body: dict[str, str], xff: str) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": xff},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_twenty_failures_lock_the_token_endpoint_on_every_process(sites, transactional_db):  # type: ignore[no-untyped-def]
    UserFactory(username="alice")
    for i in range(20):
        url = sites[i % 2] + "/api/v1/auth/token/"
        status, _ = post(url, {"username": "alice", "password": "wrong"}, f"203.0.113.{i}")
        assert status == (429 if i == 19 else 400), i
    for site in sites:
        url = site + "/api/v1/auth/token/"
        status, body = post(url, {"username": "alice", "password": PASSWORD}, "192.0.2.1")
        assert status == 429
        assert "token" not in body
        assert "Too many failed log-in attempts" in str(body["detail"])


def test_the_api_throttle_counts_across_processes(sites, transactional_db):  # type: ignore[no-untyped-def]
    statuses = []
    for i in range(6):
        url = sites[i % 2] + "/api/v1/ladders/"
        request = urllib.request.Request(url, headers={"X-Forwarded-For": f"203.0.113.{i}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                statuses.append(response.status)
        except urllib.error.HTTPError as error:
            statuses.append(error.code)
    assert statuses == [200] * 5 + [429]
