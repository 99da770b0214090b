"""Exactly-once rating on real services: PostgreSQL under 50 threads, a Celery worker killed
mid-task, and Redis down while members confirm."""

from __future__ import annotations

import random
import signal
import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from ladder.matches.models import Match
from ladder.matches.operations import confirm_match
from ratings import pipeline
from ratings.engine import get_format
from ratings.imports import _create_matches, player_lookup
from ratings.lab.importfmt import parse_matches
from ratings.models import RatingChange
from ratings.pipeline import rate_ladder
from tests.ratings.test_pipeline import SCORES, assert_equals_replay
from tests.support import services

pytestmark = pytest.mark.services
START = timezone.localdate() - timedelta(days=10)


def require_postgres() -> None:
    if connection.vendor != "postgresql":
        services.missing("PostgreSQL (concurrency needs real row locks)")


def pending_matches(ladder, users, make_match, n: int, seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    return [
        make_match(
            ladder,
            *[[u] for u in rng.sample(users, 2)],
            rng.choice(SCORES),
            START + timedelta(days=i % 7),
            state="pending",
        )
        for i in range(n)
    ]


def wait_until(condition, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.mark.django_db(transaction=True)
def test_fifty_threads_confirming_and_rating_rate_every_match_once(club, make_match) -> None:  # type: ignore[no-untyped-def]
    require_postgres()
    ladder, users = club
    matches = pending_matches(ladder, users, make_match, 50, seed=11)
    errors: list[BaseException] = []
    barrier = threading.Barrier(50)

    def confirm(match: Match) -> None:
        try:
            barrier.wait()
            opponent = match.players.get(side="b").user
            confirm_match(Match.objects.get(pk=match.pk), opponent)  # rating runs after commit
            rate_ladder(ladder.pk)  # and once more, racing the others
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=confirm, args=(m,)) for m in matches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert Match.objects.filter(ladder=ladder, state="confirmed").count() == 50
    assert RatingChange.objects.filter(ladder=ladder).count() == 100
    assert_equals_replay(ladder)


def _load_unrated_history(ladder, lines: int) -> None:  # type: ignore[no-untyped-def]
    """Confirmed matches from the BWF file, waiting to be rated (as if confirmed one by one)."""
    from pathlib import Path

    from tests.factories import MembershipFactory, UserFactory

    text = "".join(
        (Path(__file__).resolve().parents[1] / "data" / "bwf_mens_singles_2018_2021.csv")
        .open()
        .readlines()[: lines + 1]
    )
    parsed = parse_matches(text, get_format("badminton_21"), team_size=1)
    names = sorted({n for m in parsed for n in (*m.side_a, *m.side_b)})
    for i, name in enumerate(names):
        MembershipFactory(ladder=ladder, user=UserFactory(username=f"bwf{i}", display_name=name))
    _create_matches(ladder, parsed, player_lookup(names), None)


@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_rating_leaves_nothing_half_done(  # type: ignore[no-untyped-def]
    club, celery_broker, worker_database_url, monkeypatch
) -> None:
    require_postgres()
    ladder, _ = club
    _load_unrated_history(ladder, 3000)
    monkeypatch.setenv("CELERY_VISIBILITY_TIMEOUT", "3")  # redeliver the lost message quickly
    monkeypatch.setenv("CELERY_RESTORE_INTERVAL", "1")
    worker = services.start_celery_worker(celery_broker, worker_database_url)
    try:
        from ladder.clubs.models import Ladder
        from ratings.tasks import enqueue_rating

        # Hold the ladder's rating lock, so the worker is certainly mid-task (its transaction
        # open, its message unacknowledged) when it dies, however fast rating is.
        with transaction.atomic():
            Ladder.objects.select_for_update().get(pk=ladder.pk)
            assert enqueue_rating(ladder.pk)
            wait_until(
                lambda: (
                    "Task ratings.rate_ladder" in worker.output() and "received" in worker.output()
                ),
                20,
                "the worker to take the task",
            )
            time.sleep(0.5)  # it is now waiting for the lock inside rate_ladder
            worker.kill(signal.SIGKILL)
        assert "succeeded" not in worker.output()
        assert RatingChange.objects.filter(ladder=ladder).count() == 0
        assert Match.objects.filter(ladder=ladder, needs_rating=True).count() == 3000
    finally:
        worker.stop()
    again = services.start_celery_worker(celery_broker, worker_database_url)
    try:
        # No new message: the killed worker's unacknowledged one comes back by itself.
        wait_until(
            lambda: not Match.objects.filter(ladder=ladder, needs_rating=True).exists(),
            60,
            "the redelivered task to rate the ladder",
        )
    finally:
        again.stop()
    assert RatingChange.objects.filter(ladder=ladder).count() == 6000
    assert_equals_replay(ladder)


@pytest.mark.django_db(transaction=True)
def test_redis_down_confirmations_succeed_and_the_sweep_rates_them_later(  # type: ignore[no-untyped-def]
    club, make_match, settings, worker_database_url
) -> None:
    require_postgres()
    ladder, users = club
    matches = pending_matches(ladder, users, make_match, 5, seed=12)
    try:
        redis = services.start_redis()
    except FileNotFoundError:
        services.missing("redis-server")
    from ladder.celery import app
    from tests.conftest import _reset_broker_pool

    url, port = redis.extra["url"], int(redis.extra["port"])
    old = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url, app.conf.task_always_eager = url, False
    _reset_broker_pool(app)
    worker = None
    try:
        redis.stop()  # the broker is down
        for match in matches:
            started = time.monotonic()
            confirm_match(Match.objects.get(pk=match.pk), match.players.get(side="b").user)
            assert time.monotonic() - started < 2.0
        assert (
            Match.objects.filter(ladder=ladder, state="confirmed", needs_rating=True).count() == 5
        )
        assert not RatingChange.objects.filter(ladder=ladder).exists()

        redis = services.start_redis(port)  # back on the same address
        _reset_broker_pool(app)
        worker = services.start_celery_worker(url, worker_database_url)
        app.send_task("ratings.sweep")  # what beat sends every minute
        wait_until(
            lambda: not Match.objects.filter(ladder=ladder, needs_rating=True).exists(),
            30,
            "the sweep to rate the waiting matches",
        )
    finally:
        if worker:
            worker.stop()
        redis.stop()
        app.conf.broker_url, app.conf.task_always_eager = old
        _reset_broker_pool(app)
    assert RatingChange.objects.filter(ladder=ladder).count() == 10
    assert_equals_replay(ladder)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("also_corrected", [False, True])
def test_matches_changed_during_a_replay_are_counted_once(  # type: ignore[no-untyped-def]
    club, make_match, monkeypatch, also_corrected
) -> None:
    """While a replay after a correction runs (it claimed that match and holds the ladder), a
    match elsewhere on the ladder is confirmed and another corrected, and commit: neither
    waits, neither is counted twice (a confirmed match is not in the states this run stores
    unless its rows are), and the run they set off brings everything to the replay."""
    require_postgres()
    from tests.ratings.test_replay_writes import turn_round

    ladder, users = club
    rng = random.Random(4)
    made = []
    for i in range(16):  # two groups that never meet
        a, b = rng.sample(users[:4] if i % 2 else users[4:], 2)
        made.append(make_match(ladder, [a], [b], rng.choice(SCORES), START + timedelta(days=i)))
    rate_ladder(ladder.pk)
    turn_round(made[1])  # group A's
    new = make_match(ladder, [users[4]], [users[5]], SCORES[0], START + timedelta(days=20))
    Match.objects.filter(pk=new.pk).update(state="pending", needs_rating=False)
    load_matches = pipeline.load_matches

    def meanwhile() -> None:
        try:
            with transaction.atomic():
                Match.objects.filter(pk=new.pk).update(state="confirmed", needs_rating=True)
            if also_corrected:
                turn_round(Match.objects.get(pk=made[4].pk))  # group B's
        finally:
            connections.close_all()

    def load_during_others(*args, **kwargs):  # type: ignore[no-untyped-def]
        other = threading.Thread(target=meanwhile)
        other.start()
        other.join(30)
        assert not other.is_alive(), "a confirmation waited for the rating run"
        return load_matches(*args, **kwargs)

    monkeypatch.setattr(pipeline, "load_matches", load_during_others)
    first = rate_ladder(ladder.pk)
    assert first.replayed_from == (made[1].played_on, made[1].pk)
    waiting = {new.pk, made[4].pk} if also_corrected else {new.pk}
    assert set(Match.objects.filter(needs_rating=True).values_list("pk", flat=True)) == waiting
    monkeypatch.setattr(pipeline, "load_matches", load_matches)
    rate_ladder(ladder.pk)
    assert_equals_replay(ladder)
    assert RatingChange.objects.filter(match=new).count() == 2
