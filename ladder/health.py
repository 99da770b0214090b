"""Probes for a load balancer or an orchestrator: /healthz (liveness) and /readyz (readiness).

``/healthz`` answers "ok" as long as the process serves requests: no database, cache,
session or cookie, so a slow database never makes an orchestrator restart healthy web
processes. ``/readyz`` says whether this process can do its work: the database answers, the
Celery broker answers (when one is configured) and every migration is applied; 503 names the
check that failed, so a load balancer stops sending visitors until it passes again.

``ProbeMiddleware`` answers both before any other middleware, so a probe that addresses the
server by IP (load balancers do) is not refused by ALLOWED_HOSTS, a probe over plain HTTP
inside the network is not redirected to HTTPS, and no session is loaded. The answers carry
no links and depend on no Host header, so skipping those checks exposes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import lru_cache
from urllib.parse import urlparse

import redis
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from kombu import Connection

logger = logging.getLogger(__name__)

# A frozen broker must not hang the probe (an orchestrator's own timeout is often 1 s).
BROKER_TIMEOUT = 1.0

OK = "ok"
NOT_CHECKED = "not checked: no database"


@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """The process is alive and serving: "ok", touching nothing."""
    return HttpResponse("ok\n", content_type="text/plain; charset=utf-8")


@never_cache
@require_safe
def readyz(request: HttpRequest) -> HttpResponse:
    """200 and each check's result when this process can serve; 503 naming what failed."""
    checks = {"database": check_database()}
    checks["migrations"] = check_migrations() if checks["database"] == OK else NOT_CHECKED
    if settings.CELERY_BROKER_URL:
        checks["broker"] = check_broker(settings.CELERY_BROKER_URL)
    ready = all(result == OK for result in checks.values())
    body: dict[str, object] = {"status": "ok" if ready else "unavailable", "checks": checks}
    if not ready:
        body["failing"] = [
            name for name, result in checks.items() if result not in (OK, NOT_CHECKED)
        ]
    return JsonResponse(body, status=200 if ready else 503)


def _failure(what: str, exc: Exception) -> str:
    """A short reason for the probe's body (the class of error); the details go to the log."""
    logger.warning("readyz: %s check failed: %r", what, exc)
    return f"unreachable ({type(exc).__name__})"


def check_database() -> str:
    """The default database answers a trivial query."""
    connection = connections[DEFAULT_DB_ALIAS]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        # A broken persistent connection must not be reused by the next request.
        connection.close_if_unusable_or_obsolete()
        return _failure("database", exc)
    return OK


@lru_cache(maxsize=4)
def _redis_client(url: str) -> redis.Redis:
    return redis.Redis.from_url(
        url, socket_connect_timeout=BROKER_TIMEOUT, socket_timeout=BROKER_TIMEOUT
    )


def check_broker(url: str) -> str:
    """The Celery broker answers: a Redis PING (any other broker: a connection), within 1 s."""
    try:
        if urlparse(url).scheme in ("redis", "rediss", "unix"):
            _redis_client(url).ping()
        else:
            with Connection(url, connect_timeout=BROKER_TIMEOUT) as conn:
                conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT)
    except Exception as exc:
        return _failure("broker", exc)
    return OK


# Once every migration is applied it stays so for this process's code: remember it, so a
# ready process's probe costs one query. (Until then, each probe looks again.)
_migrations_applied = False


def check_migrations() -> str:
    """Every migration this code knows of is applied to the default database."""
    global _migrations_applied
    if _migrations_applied:
        return OK
    try:
        executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as exc:
        return _failure("migrations", exc)
    if plan:
        return f"{len(plan)} unapplied (run manage.py migrate)"
    _migrations_applied = True
    return OK


PROBES: dict[str, Callable[[HttpRequest], HttpResponse]] = {
    "/healthz": healthz,
    "/readyz": readyz,
}


class ProbeMiddleware:
    """Answer /healthz and /readyz before the other middleware (see the module's docstring).

    First in MIDDLEWARE, so ahead of SecurityMiddleware (HTTPS redirect), the host check
    (CommonMiddleware asks for the host) and sessions.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        probe = PROBES.get(request.path_info.rstrip("/"))
        if probe is not None:
            return probe(request)
        return self.get_response(request)
