"""Periodic ladder work (Celery beat: see CELERY_BEAT_SCHEDULE in settings)."""

from __future__ import annotations

import logging

from celery import shared_task

from ladder.matches.operations import expire_overdue

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def expire_pending_matches() -> int:
    """Mark pending reports past their confirmation window expired (one audit entry each).

    Confirming an overdue report is refused even before this runs; this writes it down.
    """
    count = expire_overdue()
    if count:
        log.info("Expired %s unconfirmed match report(s)", count)
    return count
