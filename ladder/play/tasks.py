"""Periodic play work (Celery beat: see CELERY_BEAT_SCHEDULE in settings)."""

from __future__ import annotations

import logging

from celery import shared_task

from ladder.play.services import expire_challenges

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def expire_open_challenges() -> int:
    """Challenges unanswered past the ladder's expiry: expired, both sides told."""
    count = expire_challenges()
    if count:
        log.info("Expired %s unanswered challenge(s)", count)
    return count
