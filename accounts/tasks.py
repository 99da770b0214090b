"""Periodic account work (Celery beat: CELERY_BEAT_SCHEDULE in settings). The sign-up
e-mails' task is accounts.signup.send_signup_mail."""

from __future__ import annotations

import logging
from datetime import timedelta

from axes.models import AccessFailureLog
from celery import shared_task
from django.utils import timezone

from accounts import signup

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def purge_unconfirmed() -> int:
    """Remove sign-ups never confirmed within their link's days (freeing name and address)."""
    count = signup.purge_unconfirmed()
    if count:
        log.info("Removed %s sign-up(s) never confirmed", count)
    return count


# Long enough for a moderator to look back at an attack ("Access failures" in the admin);
# the caps read the last hour only.
FAILURE_LOG_DAYS = 30


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def prune_login_failures() -> int:
    """Delete django-axes' failure log rows older than FAILURE_LOG_DAYS."""
    cutoff = timezone.now() - timedelta(days=FAILURE_LOG_DAYS)
    count: int = AccessFailureLog.objects.filter(attempt_time__lt=cutoff).delete()[0]
    return count
