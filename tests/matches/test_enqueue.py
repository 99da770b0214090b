"""Rating work is enqueued after commit, and a broker that is down never fails a
confirmation: the match stays confirmed with needs_rating set for the periodic sweep."""

from __future__ import annotations

import json
import os
import signal
import time
from unittest import mock

import pytest
from django.db import transaction
from kombu.exceptions import OperationalError

from core import cache as breaker
from core.cache import server_of
from ladder.celery import app
from ladder.matches import operations as matches
from ladder.matches.models import Match
from ratings import tasks
from tests.factories import reported_match
from tests.support import services
from tests.support.services import free_port


@pytest.fixture
def publish(monkeypatch):
    """The task's apply_async, mocked: what would have gone to the broker."""
    fake = mock.Mock()
    monkeypatch.setattr(tasks.rate_ladder, "apply_async", fake)
    return fake


@pytest.fixture
def pending(ladder, alice, bob):
    return reported_match(ladder, alice, [alice], [bob])


def test_confirming_enqueues_only_after_commit(
    pending, bob, ladder, publish, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        match = matches.confirm_match(pending, bob)
    assert publish.call_count == 0  # not inside the transaction
    assert Match.objects.get(pk=match.pk).needs_rating
    for callback in callbacks:
        callback()
    publish.assert_called_once_with(args=[ladder.pk], retry=True, retry_policy=tasks.PUBLISH_RETRY)


def test_a_rolled_back_confirmation_enqueues_nothing(
    pending, bob, publish, django_capture_on_commit_callbacks
):
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        matches.confirm_match(pending, bob)
        raise RuntimeError("something later in the request failed")
    assert callbacks == [] and publish.call_count == 0
    pending.refresh_from_db()
    assert (pending.state, pending.needs_rating) == ("pending", False)


def test_a_broker_error_does_not_fail_the_confirmation(
    pending, bob, publish, django_capture_on_commit_callbacks, caplog
):
    publish.side_effect = OperationalError(
        "Error 111 connecting to 127.0.0.1:6379. Connection refused."
    )
    with django_capture_on_commit_callbacks(execute=True):
        match = matches.confirm_match(pending, bob)
    assert publish.call_count == 1
    match.refresh_from_db()
    assert (match.state, match.needs_rating) == ("confirmed", True)
    assert "Could not enqueue rating work" in caplog.text


@pytest.fixture
def dead_broker(settings):
    """Celery pointed at a port where nothing listens (Redis is down)."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    old = (app.conf.broker_url, app.conf.task_always_eager)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.broker_url, app.conf.task_always_eager = url, False
    _reset_pool()
    yield url
    app.conf.broker_url, app.conf.task_always_eager = old
    _reset_pool()


def _reset_pool():
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None


def test_a_dead_broker_does_not_fail_or_hang_the_confirmation(
    pending, bob, dead_broker, django_capture_on_commit_callbacks, caplog
):
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        match = matches.confirm_match(pending, bob)
    assert time.monotonic() - started < 1.5  # refused at once, one retry
    match.refresh_from_db()
    assert (match.state, match.needs_rating) == ("confirmed", True)
    assert "Could not enqueue rating work" in caplog.text


def test_a_hint_the_broker_missed_goes_out_before_the_next(  # type: ignore[no-untyped-def]
    ladder, doubles, publish, dead_broker
):
    """Skipped while the breaker was open, or failed: the ladder's hint is sent before this
    process's next one that goes through, so it is rated then rather than at the sweep."""
    server = server_of(dead_broker)
    breaker.failed(server)  # a moment ago the broker did not answer
    assert tasks.enqueue_rating(ladder.pk) is False and publish.call_count == 0
    breaker._skipped_until.clear()  # the breaker's seconds are over
    publish.side_effect = [OperationalError("Connection refused"), None, None, None]
    assert tasks.enqueue_rating(ladder.pk) is False  # failed: still owed
    breaker._skipped_until.clear()
    assert tasks.enqueue_rating(doubles.pk) is True
    sent = [call.kwargs["args"] for call in publish.call_args_list]
    assert sent == [[ladder.pk], [ladder.pk], [doubles.pk]]  # the failed one, then both
    assert tasks.enqueue_rating(doubles.pk) is True
    assert publish.call_args.kwargs["args"] == [doubles.pk] and publish.call_count == 4


@pytest.mark.services
def test_the_message_reaches_a_real_broker(
    pending, bob, ladder, celery_broker, django_capture_on_commit_callbacks
):
    import redis

    queue = redis.Redis.from_url(celery_broker)
    queue.delete("celery")
    with django_capture_on_commit_callbacks(execute=True):
        matches.confirm_match(pending, bob)
    messages = queue.lrange("celery", 0, -1)
    assert len(messages) == 1
    headers = json.loads(messages[0])["headers"]
    assert headers["task"] == tasks.rate_ladder.name
    assert headers["argsrepr"] == f"[{ladder.pk}]"


@pytest.fixture
def frozen_broker(settings):
    """A real Redis of this test's own, then frozen (SIGSTOP): it accepts connections and
    never answers, the way a swapped-out or hung server does."""
    try:
        redis = services.start_redis()
    except FileNotFoundError:
        services.missing("redis-server")
    old = (app.conf.broker_url, app.conf.task_always_eager)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.broker_url, app.conf.task_always_eager = redis.extra["url"], False
    _reset_pool()
    os.killpg(redis.proc.pid, signal.SIGSTOP)
    try:
        yield redis
    finally:
        os.killpg(redis.proc.pid, signal.SIGCONT)
        redis.stop()
        app.conf.broker_url, app.conf.task_always_eager = old
        _reset_pool()


@pytest.mark.services
def test_a_frozen_broker_delays_the_rating_not_the_member(
    ladder, alice, bob, charlie, frozen_broker, django_capture_on_commit_callbacks, caplog
):
    """Issue 15 #8, issue 29: while Redis is frozen, the first confirmation meets the broker's
    timeout and the later ones do not wait at all (the breaker); once Redis is back, the
    sweep rates what the lost hints left waiting."""
    reports = [
        (reported_match(ladder, alice, [alice], [bob]), bob),
        (reported_match(ladder, charlie, [charlie], [bob]), bob),
        (reported_match(ladder, alice, [alice], [charlie]), charlie),
    ]
    took = []
    for pending, opponent in reports:
        started = time.monotonic()
        with django_capture_on_commit_callbacks(execute=True):
            matches.confirm_match(pending, opponent)
        took.append(time.monotonic() - started)
    assert took[0] < 4.0  # the broker's timeouts, once: up to three of 1 s (measured 3.0x s)
    assert max(took[1:]) < 0.2, took  # skipped: the breaker is open
    assert "The broker is skipped for now" in caplog.text
    assert Match.objects.filter(pk__in=[m.pk for m, _ in reports], needs_rating=True).count() == 3

    os.killpg(frozen_broker.proc.pid, signal.SIGCONT)  # Redis is back
    assert tasks.sweep() == 3  # what beat runs every RATING_SWEEP_SECONDS
    assert not Match.objects.filter(pk__in=[m.pk for m, _ in reports], needs_rating=True).exists()


# ---- what is (never) rated ----------------------------------------------------------------


def rate_flags(step, match, alice, bob, mod):
    if step == "cancel":
        return matches.cancel_match(match, alice)
    if step == "expire":
        Match.objects.filter(pk=match.pk).update(created_at=match.created_at.replace(year=2000))
        matches.expire_overdue()
        return match
    if step == "dispute":
        return matches.dispute_match(match, bob, "No")
    if step.startswith("resolve_"):
        match = matches.dispute_match(match, bob, "No")
        decision = step.removeprefix("resolve_")
        games = [[21, 1], [21, 2]] if decision == "correct" else None
        return matches.resolve_dispute(match, mod, decision, "Decided", games=games)
    match = matches.confirm_match(match, bob)
    if step == "correct":
        Match.objects.filter(pk=match.pk).update(needs_rating=False)
        return matches.correct_match(match, mod, [[21, 1], [21, 2]], "Typo")
    if step == "void":
        Match.objects.filter(pk=match.pk).update(needs_rating=False)
        return matches.void_match(match, mod, "Friendly")
    return match


@pytest.mark.parametrize(
    ("step", "rated"),
    [
        ("confirm", True),
        ("cancel", False),
        ("expire", False),
        ("dispute", False),
        ("resolve_uphold", True),
        ("resolve_correct", True),
        ("resolve_void", False),  # never counted, never will: nothing to re-rate
        ("correct", True),
        ("void", True),  # leaves a rated state: the ladder is replayed without it
    ],
)
def test_which_transitions_need_rating(
    pending, alice, bob, mod, publish, django_capture_on_commit_callbacks, step, rated
):
    with django_capture_on_commit_callbacks(execute=True):
        match = rate_flags(step, pending, alice, bob, mod)
    assert Match.objects.get(pk=match.pk).needs_rating is rated
    assert publish.call_count == (0 if not rated else 2 if step in ("correct", "void") else 1)


def test_in_process_the_confirmation_is_rated_at_once(
    pending, bob, django_capture_on_commit_callbacks
):
    """Without a broker (make run), tasks run eagerly: the hint rates the match right away."""
    with django_capture_on_commit_callbacks(execute=True):
        match = matches.confirm_match(pending, bob)
    match.refresh_from_db()
    assert not match.needs_rating and match.rated_at is not None
