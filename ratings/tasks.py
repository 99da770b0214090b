"""Rating work in the background (Celery).

``enqueue_rating(ladder_id)`` is what a confirmation (or a moderator's decision) calls
after commit. The database is the source of truth (``Match.needs_rating``); the message
is only a hint, so a publish that fails is logged and forgotten: the match stays
confirmed and a periodic sweep rates it later.

With a broker, the request does not publish the hint itself: it hands the ladder's id to
this process's publisher thread and returns. A slow or frozen Redis then delays the
rating (the thread waits out the broker timeouts of settings, or the sweep catches up),
never the member who confirmed.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from celery import shared_task
from django.db import OperationalError

from ratings.pipeline import ladders_needing_rating
from ratings.pipeline import rate_ladder as rate
from ratings.seasons import freeze_due_seasons

log = logging.getLogger(__name__)


@shared_task(
    name="ratings.rate_ladder",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    max_retries=3,
    retry_backoff=True,
)
def rate_ladder(ladder_id: int) -> int:
    """Rate the ladder's matches that wait for it (``needs_rating``), in (played_on, id) order.

    Returns how many matches were rated. A redelivered or duplicate message finds nothing
    to do (ratings.pipeline claims the work under the ladder's lock).
    """

    return rate(ladder_id).rated


@shared_task(name="ratings.sweep", acks_late=True, reject_on_worker_lost=True)
def sweep() -> int:
    """Periodic: rate every ladder with matches left waiting (a lost message, a broker outage)."""
    rated = 0
    for ladder_id in ladders_needing_rating():
        rated += rate(ladder_id).rated
    if rated:
        log.info("sweep rated %s match(es) left waiting", rated)
    return rated


@shared_task(name="ratings.freeze_seasons", acks_late=True, reject_on_worker_lost=True)
def freeze_seasons() -> int:
    """Periodic: store the table of every season that is over (RULES.md "Seasons"), so the
    archive stands as it was on the last day. A page or API read of such a season stores it
    too, if it comes first; either way once."""
    return freeze_due_seasons()


def enqueue_rating(ladder_id: int) -> bool:
    """Ask a worker to rate the ladder, without waiting for the broker.

    Never raises and never blocks on the broker: with one, the hint goes to the publisher
    thread (True if it took it); without one (tasks run in-process, `make run`), the
    ladder is rated here and now.
    """
    if rate_ladder.app.conf.task_always_eager:
        return publish_rating(ladder_id)
    return _publisher.submit(ladder_id)


def publish_rating(ladder_id: int) -> bool:
    """Hand the rating hint to the broker; True if it took it, False (logged) if not."""
    try:
        rate_ladder.apply_async(args=[ladder_id], retry=False)
    except Exception:  # any broker or connection error: the sweep catches up
        log.warning(
            "Could not enqueue rating work for ladder %s; the periodic sweep will rate it",
            ladder_id,
            exc_info=True,
        )
        return False
    return True


class _Publisher:
    """One daemon thread per process that publishes rating hints, one ladder at a time.

    Hints for a ladder already waiting are merged (one run rates all its matches), and at
    most ``MAX_WAITING`` ladders wait: past that a hint is dropped, as a lost message would
    be, and the sweep rates the ladder.
    """

    MAX_WAITING = 1000

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._waiting: dict[int, None] = {}  # ladder ids, oldest first
        self._busy = False
        self._thread: threading.Thread | None = None
        self._pid = 0

    def submit(self, ladder_id: int) -> bool:
        with self._cond:
            if ladder_id not in self._waiting:
                if len(self._waiting) >= self.MAX_WAITING:
                    log.warning(
                        "Too many rating hints waiting for the broker; the periodic sweep "
                        "will rate ladder %s",
                        ladder_id,
                    )
                    return False
                self._waiting[ladder_id] = None
            self._ensure_thread()
            self._cond.notify_all()
        return True

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every hint handed over so far was published (or given up); for tests
        and an orderly shutdown. True if that happened within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._waiting or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def _ensure_thread(self) -> None:
        # A forked child (gunicorn, Celery prefork) inherits no running thread: start its own.
        if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
            self._pid = os.getpid()
            self._busy = False
            self._thread = threading.Thread(
                target=self._run, name="rating-hint-publisher", daemon=True
            )
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._waiting:
                    self._busy = False
                    self._cond.notify_all()
                    self._cond.wait()
                # Taken off the list before publishing: a confirmation that commits while
                # this publish is under way asks again, so its match is not left to a
                # message the worker may already have read.
                ladder_id = next(iter(self._waiting))
                del self._waiting[ladder_id]
                self._busy = True
            publish_rating(ladder_id)


_publisher = _Publisher()


def wait_for_hints(timeout: float = 10.0) -> bool:
    """Wait until this process's rating hints have reached the broker or been given up."""
    return _publisher.wait_idle(timeout)
