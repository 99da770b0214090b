"""Issue 29.4: the fault run (benchmarks/faults.py) in CI, shortened: reports and confirms
over the API under gunicorn while Redis is frozen and PostgreSQL restarts. No action that
committed answers 5xx, every retry of one answers 2xx, nothing fails while Redis is frozen,
and matches confirmed once Redis is back are rated without the sweep. Before it, the same
for one worker, exactly: a worker whose acknowledgement met the frozen Redis takes the
next task once Redis answers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from ladder.matches import operations as matches
from ladder.matches.models import Match
from tests.factories import reported_match
from tests.support import services
from tests.support.services import ROOT, postgres_bin

pytestmark = [pytest.mark.services, pytest.mark.timeout(900)]  # five phases under load


@pytest.fixture
def own_redis_broker(settings) -> Iterator[services.Process]:  # type: ignore[no-untyped-def]
    """This process's Celery app publishing to a Redis of this test's own (it is frozen)."""
    from ladder.celery import app
    from tests.conftest import _reset_broker_pool

    try:
        redis = services.start_redis()
    except FileNotFoundError:
        services.missing("redis-server")
    old = (app.conf.broker_url, app.conf.task_always_eager)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.broker_url, app.conf.task_always_eager = redis.extra["url"], False
    _reset_broker_pool(app)
    try:
        yield redis
    finally:
        os.killpg(redis.proc.pid, signal.SIGCONT)
        app.conf.broker_url, app.conf.task_always_eager = old
        _reset_broker_pool(app)
        redis.stop()


def rated_within(match: Match, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while Match.objects.filter(pk=match.pk, needs_rating=True).exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.django_db(transaction=True)  # the worker reads what this test commits
def test_a_worker_takes_work_again_after_redis_was_frozen_under_it(  # type: ignore[no-untyped-def]
    own_redis_broker, worker_database_url, ladder, alice, bob, charlie
):
    """Redis frozen just as the worker takes a task: its acknowledgement cannot reach Redis.
    With a socket timeout the acknowledgement failed, kombu kept the task counted as
    delivered, and the worker (prefetch one) never asked for work again, silently: every
    later match waited for the sweep. It now waits for Redis and carries on."""
    redis = own_redis_broker
    worker = services.start_celery_worker(redis.extra["url"], worker_database_url)
    try:
        first = reported_match(ladder, alice, [alice], [bob])
        matches.confirm_match(first, bob)
        assert rated_within(first, 30), worker.output()[-3000:]

        second = reported_match(ladder, charlie, [charlie], [bob])
        matches.confirm_match(second, bob)  # published at the commit; the worker takes it
        time.sleep(0.01)
        os.killpg(redis.proc.pid, signal.SIGSTOP)  # mid-task: the acknowledgement meets it
        time.sleep(3)  # longer than the web's 1 s socket timeout
        os.killpg(redis.proc.pid, signal.SIGCONT)

        third = reported_match(ladder, alice, [alice], [charlie])
        matches.confirm_match(third, charlie)  # Redis is back: published, and taken
        assert rated_within(third, 15), worker.output()[-3000:]
        assert rated_within(second, 1)  # the ladder's run rated it too
        assert "Couldn't ack" not in worker.output()
    finally:
        worker.stop()


def test_reports_and_confirms_through_a_frozen_redis_and_a_postgres_restart() -> None:
    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed")
    run = subprocess.run(
        [sys.executable, "benchmarks/faults.py", "--seconds", "4", "--clients", "2", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    rows = {(row["phase"], row["kind"]): row for row in outcome["phases"]}
    # Exactly: a confirm by its match's state, a report by its Idempotency-Key.
    assert outcome["committed_5xx_by_kind"] == {"report": 0, "confirm": 0}, outcome
    assert outcome["retries_not_2xx"] == 0, outcome  # a report's retry under its key too
    # Once Redis answers, confirms are rated by the worker within seconds: none confirmed
    # after it came back waits for the sweep (hints lost while it was frozen may; here the
    # later hints for the one ladder rate them too).
    waiting = outcome["waiting_by_phase"]
    assert waiting.get("redis back", 0) == 0 and waiting.get("postgres restart", 0) == 0, waiting
    for kind in ("report", "confirm", "visitor page"):
        normal, frozen = rows[("normal", kind)], rows[("redis frozen", kind)]
        assert normal["requests"] > 0 and frozen["requests"] > 0, (normal, frozen)
        assert frozen["count_5xx"] == 0, frozen
        # Latency is not asserted here: on a shared machine it is the load's (a run at a load
        # of 15 moved medians by 200 ms either way). test_cache_breaker.py counts the calls
        # that reach a frozen Redis exactly; docs/BENCHMARKS.md "Faults" has the figures.
    for kind in ("report", "confirm", "visitor page"):
        assert rows[("redis back", kind)]["count_5xx"] == 0
