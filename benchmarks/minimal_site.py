"""The smallest possible Django site: one view, no database, no middleware, no templates.

The floor the throughput benchmark (benchmarks/throughput.py) measures the site against,
under the same gunicorn: ``DJANGO_SETTINGS_MODULE=benchmarks.minimal_site gunicorn
benchmarks.minimal_site:application``. This module is its settings, its URLconf and its
WSGI application at once.
"""

from __future__ import annotations

from django.core.wsgi import get_wsgi_application
from django.http import HttpRequest, HttpResponse
from django.urls import path

DEBUG = False
SECRET_KEY = "minimal-site-benchmark-only-0123456789abcdefghijklmnopqrstuvwxyz"
ALLOWED_HOSTS = ["*"]
ROOT_URLCONF = __name__
INSTALLED_APPS: list[str] = []
MIDDLEWARE: list[str] = []
DATABASES: dict[str, object] = {}
USE_TZ = True


def hello(request: HttpRequest) -> HttpResponse:
    return HttpResponse("Hello, world.\n", content_type="text/plain")


urlpatterns = [path("", hello)]

application = get_wsgi_application()
