"""Rating work in the background (Celery).

``enqueue_rating(ladder_id)`` runs once the transaction that made the work commits
(``transaction.on_commit``: a confirmation, a moderator's decision, new settings, a seeded
season). The database is the source of truth (``Match.needs_rating``); the message is a hint,
so a publish that fails is logged and the periodic ``sweep`` rates the ladder later.
Publishing is Celery's ``apply_async`` with one quick retry and the broker's short timeouts;
a broker that did not answer is skipped for a few seconds (``core.cache``'s breaker), and
the hints it missed go out with this process's next one.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import OperationalError

from core.cache import failed, server_of, skipping
from ratings.pipeline import ladders_needing_rating
from ratings.pipeline import rate_ladder as rate
from ratings.seasons import freeze_due_seasons

log = logging.getLogger(__name__)

# One retry at once, then give up: the sweep is the safety net, and a request waits for this.
PUBLISH_RETRY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.1, "interval_max": 0.1}

# Ladders whose hint this process could not send (the broker away, or skipped by the
# breaker for a few seconds after it): sent before the next hint that goes through, so a
# ladder confirmed just as Redis came back is rated then, not at the sweep.
_owed: set[int] = set()


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
    """Ask a worker to rate the ladder (without a broker: rate it now); True if the broker
    took the message. Never raises."""
    app = rate_ladder.app
    server = "" if app.conf.task_always_eager else server_of(app.conf.broker_url or "")
    if server and skipping(server):
        _owed.add(ladder_id)
        log.warning(
            "The broker is skipped for now; ladder %s is rated with the next hint this process "
            "sends, or by the periodic sweep",
            ladder_id,
        )
        return False
    try:
        for owed in [*sorted(_owed - {ladder_id}), ladder_id]:
            rate_ladder.apply_async(args=[owed], retry=True, retry_policy=PUBLISH_RETRY)
            _owed.discard(owed)
    except Exception:  # any broker or connection error: the sweep catches up
        _owed.add(ladder_id)
        if server:
            failed(server)
        log.warning(
            "Could not enqueue rating work for ladder %s; it is rated with the next hint this "
            "process sends, or by the periodic sweep",
            ladder_id,
            exc_info=True,
        )
        return False
    return True
