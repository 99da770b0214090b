"""Rating work in the background (Celery).

``enqueue_rating(ladder_id)`` is what a confirmation (or a moderator's decision) calls
after commit. The database is the source of truth (``Match.needs_rating``); the message
is only a hint, so a publish that fails is logged and forgotten: the match stays
confirmed and a periodic sweep rates it later.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import OperationalError

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
    from ratings.pipeline import rate_ladder as rate

    return rate(ladder_id).rated


@shared_task(name="ratings.sweep", acks_late=True, reject_on_worker_lost=True)
def sweep() -> int:
    """Periodic: rate every ladder with matches left waiting (a lost message, a broker outage)."""
    from ratings.pipeline import ladders_needing_rating
    from ratings.pipeline import rate_ladder as rate

    rated = 0
    for ladder_id in ladders_needing_rating():
        rated += rate(ladder_id).rated
    if rated:
        log.info("sweep rated %s match(es) left waiting", rated)
    return rated


def enqueue_rating(ladder_id: int) -> bool:
    """Ask a worker to rate the ladder; True if the message was handed to the broker.

    Never raises: a broker that is down or slow must not fail the confirmation that
    called this (the broker transport timeouts in settings bound how long it may take).
    """
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
