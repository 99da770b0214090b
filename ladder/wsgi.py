"""WSGI entry point for gunicorn: `gunicorn ladder.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")
application = get_wsgi_application()
