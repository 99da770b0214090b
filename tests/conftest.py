"""Suite-wide set-up: which database the suite runs on, fast hashing, and real services.

The whole suite runs on a throwaway PostgreSQL cluster when the server binaries are
installed (CI installs them) and on SQLite otherwise; the header says which, loudly.
`TEST_DATABASE=sqlite` forces SQLite for a quick local run.

`TEST_CLOCK=2026-11-27T00:19` runs the whole session with this process's clock started at
that instant (a naive time is in the site's TIME_ZONE) and ticking (time-machine), to check
CI at any hour on demand, e.g. `TIME_ZONE=Pacific/Auckland TEST_CLOCK=2026-11-27T23:55`.
Processes the tests start (a Celery worker, PostgreSQL, Chromium) keep the real clock.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.factories import (  # noqa: F401  (the fixed cast, for every test folder)
    alice,
    bob,
    charlie,
    dave,
    doubles,
    ladder,
    mod,
    outsider,
    private_ladder,
)
from tests.support import services

_state: dict[str, object] = {}


def _use_postgres() -> bool:
    if os.environ.get("TEST_DATABASE", "").lower() == "sqlite":
        return False
    return services.postgres_bin() is not None


def pytest_configure(config: pytest.Config) -> None:
    from asgiref.local import Local
    from django.conf import settings
    from django.db import connections

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    if _use_postgres():
        cluster = services.start_postgres()
        _state["postgres"] = cluster
        from ladder.env import database_from_url

        db = database_from_url(cluster.url("ladder"))
        db["CONN_MAX_AGE"] = 0
        db["TEST"] = {"NAME": "test_ladder"}
        settings.DATABASES["default"] = db
        _state["database"] = (
            f"PostgreSQL {cluster.bindir.parent.name} (throwaway cluster on port {cluster.port})"
        )
        # Worker processes the tests start reach the same test database through this URL.
        os.environ["TEST_DATABASE_URL"] = cluster.url("test_ladder")
    else:
        if services.in_ci():
            raise pytest.UsageError(
                "CI must run the suite on PostgreSQL, but initdb was not found."
            )
        why = (
            "forced by TEST_DATABASE"
            if os.environ.get("TEST_DATABASE")
            else ("PostgreSQL server binaries not found: install `postgresql`")
        )
        _state["database"] = f"SQLite ({why})"
    # Connections may have been configured from the old settings; rebuild them.
    connections.settings = connections.configure_settings(settings.DATABASES)
    connections._connections = Local(connections.thread_critical)
    _start_test_clock()


def _start_test_clock() -> None:
    """Start the session's clock at TEST_CLOCK, if set (see the module's docstring)."""
    if not (at := os.environ.get("TEST_CLOCK")):
        return
    import time_machine
    from django.utils import timezone
    from django.utils.dateparse import parse_datetime

    moment = parse_datetime(at)
    if moment is None:
        raise pytest.UsageError(f"TEST_CLOCK={at!r} is not a date and time like 2026-11-27T00:19.")
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    traveller = time_machine.travel(moment, tick=True)
    traveller.start()
    _state["clock"] = f"{timezone.localtime(moment):%Y-%m-%d %H:%M %Z} (TEST_CLOCK, ticking)"


def pytest_unconfigure(config: pytest.Config) -> None:
    cluster = _state.pop("postgres", None)
    if isinstance(cluster, services.Postgres):
        from django.db import connections

        connections.close_all()
        cluster.stop()


def pytest_report_header(config: pytest.Config) -> list[str]:
    banner = f"DATABASE: {_state.get('database')}"
    clock = [f"CLOCK: {_state['clock']}"] if "clock" in _state else []
    return ["=" * len(banner), banner, *clock, "=" * len(banner)]


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    terminalreporter.write_line(f"Suite ran on {_state.get('database')}", bold=True)


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    """Each test starts with an empty cache (ids can repeat across rolled-back tests), and
    no server skipped by the breaker (core.cache) and no rating hint owed (ratings.tasks)."""
    from django.core.cache import caches

    from core import cache as breaker
    from ratings import tasks

    breaker._skipped_until.clear()
    tasks._owed.clear()
    for cache in caches.all():
        cache.clear()
    yield


def is_postgres() -> bool:
    return "postgres" in _state


@pytest.fixture(scope="session")
def redis_server() -> Iterator[services.Process]:
    """A real Redis on a free port for this test session."""
    try:
        server = services.start_redis()
    except FileNotFoundError:
        services.missing("redis-server")
    yield server
    server.stop()


@pytest.fixture
def celery_broker(redis_server: services.Process, settings) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """Point this process's Celery app at the real Redis (tasks are published, not run eagerly)."""
    from ladder.celery import app

    url = redis_server.extra["url"]
    settings.CELERY_BROKER_URL = url
    settings.CELERY_TASK_ALWAYS_EAGER = False
    old = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url = url
    app.conf.task_always_eager = False
    _reset_broker_pool(app)
    yield url
    app.conf.broker_url, app.conf.task_always_eager = old
    _reset_broker_pool(app)


def _reset_broker_pool(app) -> None:  # type: ignore[no-untyped-def]
    """Drop pooled broker connections so the next publish connects to the current broker URL."""
    from kombu import pools

    pools.reset()  # closes kombu's shared pools and forgets them
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def worker_database_url() -> str:
    """The URL a worker process needs to see this test run's database (PostgreSQL only)."""
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        services.missing(
            "PostgreSQL (a separate worker process cannot share the SQLite test database)"
        )
    return str(url)


@pytest.fixture
def celery_worker_process(
    celery_broker: str, worker_database_url: str, transactional_db: None
) -> Iterator[services.Process]:
    """A real Celery worker process on Redis and the test database."""
    worker = services.start_celery_worker(celery_broker, worker_database_url)
    yield worker
    worker.stop()
