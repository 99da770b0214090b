"""The test tooling itself: the database the suite runs on, and real Redis and Celery workers."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from tests.support import services


@pytest.mark.django_db
def test_suite_uses_postgresql_when_installed() -> None:
    if services.postgres_bin() is None:
        services.missing("PostgreSQL")
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("select current_database()")
        assert cursor.fetchone()[0] == "test_ladder"


@pytest.mark.services
def test_celery_worker_runs_a_published_task(celery_worker_process: services.Process) -> None:
    from ladder.celery import app

    app.send_task("celery.accumulate", args=(7,))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "succeeded" not in celery_worker_process.output():
        time.sleep(0.1)
    log = celery_worker_process.output()
    assert "Task celery.accumulate" in log and "succeeded" in log, log[-2000:]
