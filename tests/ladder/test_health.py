"""The probes: /healthz touches nothing; /readyz checks the database, the broker and migrations.

The database outage itself (a real PostgreSQL stopped and started again under the production
processes) is in test_production.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from django.db import connection
from django.test import Client

from ladder import health
from tests.support import services

PROBE_HOST = "10.1.2.3"  # a load balancer probes by IP: not in ALLOWED_HOSTS


@pytest.fixture
def production_like(settings) -> None:  # type: ignore[no-untyped-def]
    """Strict hosts and the HTTPS redirect on, as with DEBUG=0."""
    settings.ALLOWED_HOSTS = ["ladder.example.org"]
    settings.SECURE_SSL_REDIRECT = True


@pytest.fixture
def fresh_migration_check(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test looks at the migrations again (a process remembers once they are applied)."""
    monkeypatch.setattr(health, "_migrations_applied", False)
    yield


def readyz(client: Client) -> tuple[int, dict[str, object]]:
    response = client.get("/readyz", HTTP_HOST=PROBE_HOST)
    assert response["Content-Type"] == "application/json"
    assert "no-store" in response["Cache-Control"]
    return response.status_code, json.loads(response.content)


def test_healthz_answers_ok_without_database_session_or_host_check(
    client: Client, production_like: None
) -> None:
    # No django_db mark: a query would raise.
    response = client.get("/healthz", HTTP_HOST=PROBE_HOST)
    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert "no-store" in response["Cache-Control"]
    assert not response.cookies
    assert "Set-Cookie" not in response


def test_healthz_takes_a_trailing_slash_and_head_but_no_post(client: Client) -> None:
    assert client.get("/healthz/").status_code == 200
    assert client.head("/healthz").status_code == 200
    response = client.post("/healthz")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


def test_other_pages_still_check_the_host_and_redirect_to_https(
    client: Client, production_like: None
) -> None:
    assert client.get("/", HTTP_HOST=PROBE_HOST).status_code == 400
    response = client.get("/", HTTP_HOST="ladder.example.org")
    assert response.status_code == 301
    assert response["Location"] == "https://ladder.example.org/"


@pytest.mark.django_db
@pytest.mark.services
def test_readyz_ok_lists_each_check(
    client: Client,
    settings,  # type: ignore[no-untyped-def]
    production_like: None,
    redis_server: services.Process,
    fresh_migration_check: None,
) -> None:
    settings.CELERY_BROKER_URL = redis_server.extra["url"]
    status, body = readyz(client)
    assert status == 200, body
    assert body == {
        "status": "ok",
        "checks": {"database": "ok", "migrations": "ok", "broker": "ok"},
    }
    assert not client.cookies


@pytest.mark.django_db
def test_readyz_without_a_broker_checks_database_and_migrations(
    client: Client,
    settings,  # type: ignore[no-untyped-def]
    fresh_migration_check: None,
) -> None:
    settings.CELERY_BROKER_URL = ""  # tasks run in-process: nothing to reach
    status, body = readyz(client)
    assert (status, body["checks"]) == (200, {"database": "ok", "migrations": "ok"})


@pytest.mark.django_db
def test_readyz_fails_quickly_when_the_broker_is_unreachable(
    client: Client,
    settings,  # type: ignore[no-untyped-def]
    fresh_migration_check: None,
) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{services.free_port()}/0"  # nothing there
    started = time.monotonic()
    status, body = readyz(client)
    assert time.monotonic() - started < health.BROKER_TIMEOUT + 1
    assert status == 503
    assert body["failing"] == ["broker"]
    checks = body["checks"]
    assert isinstance(checks, dict)
    assert checks["database"] == "ok"
    assert checks["broker"].startswith("unreachable")


@pytest.mark.django_db
def test_readyz_fails_while_a_migration_is_unapplied_and_remembers_once_applied(
    client: Client,
    settings,  # type: ignore[no-untyped-def]
    fresh_migration_check: None,
    django_assert_max_num_queries,  # type: ignore[no-untyped-def]
) -> None:
    settings.CELERY_BROKER_URL = ""
    with connection.cursor() as cursor:  # rolled back with the test
        cursor.execute(
            "DELETE FROM django_migrations WHERE id = (SELECT max(id) FROM django_migrations)"
        )
    status, body = readyz(client)
    assert status == 503
    assert body["failing"] == ["migrations"]
    checks = body["checks"]
    assert isinstance(checks, dict)
    assert checks["migrations"] == "1 unapplied (run manage.py migrate)"

    health._migrations_applied = True  # as after a probe that found them all applied
    with django_assert_max_num_queries(1):  # SELECT 1, nothing more
        status, body = readyz(client)
    assert status == 200


@pytest.mark.django_db
def test_readyz_looks_again_until_migrations_are_applied(
    client: Client,
    settings,  # type: ignore[no-untyped-def]
    fresh_migration_check: None,
) -> None:
    settings.CELERY_BROKER_URL = ""
    assert readyz(client)[0] == 200
    assert health._migrations_applied is True
