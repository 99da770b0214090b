"""The Celery app. Tasks run in-process when CELERY_BROKER_URL is unset (see settings)."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import celeryd_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")

app = Celery("ladder")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@celeryd_init.connect
def worker_waits_for_the_broker(conf: Any, **kwargs: object) -> None:
    """A worker reads the broker without a socket timeout (the web's short ones bound a
    request's publish, see settings). A worker that timed out acknowledging a task (Redis
    frozen) never took another: kombu keeps the message counted as delivered, and with a
    prefetch of one the worker stopped asking for work, without a word (issue 29). Waiting,
    the acknowledgement goes through once Redis answers, and so does the next task."""
    conf.broker_transport_options = {**conf.broker_transport_options, "socket_timeout": None}
