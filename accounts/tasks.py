"""Periodic account work (Celery beat: CELERY_BEAT_SCHEDULE in settings). The sign-up
e-mails' task is accounts.signup.send_signup_mail."""

from __future__ import annotations

import logging

from celery import shared_task

from accounts import signup

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def purge_unconfirmed() -> int:
    """Remove sign-ups never confirmed within their link's days (freeing name and address)."""
    count = signup.purge_unconfirmed()
    if count:
        log.info("Removed %s sign-up(s) never confirmed", count)
    return count
