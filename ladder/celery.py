"""The Celery app. Tasks run in-process when CELERY_BROKER_URL is unset (see settings)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")

app = Celery("ladder")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
