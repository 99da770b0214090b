"""Visitor pages that browsers and shared caches can keep (PRODUCT.md "How it runs").

A signed-out visitor with no cookie sees the same page as every other such visitor, so
the leaderboard, player pages, head-to-head, the ladder list and home are sent to them
public for ``VISITOR_MAX_AGE`` seconds with an ``ETag``; a repeat with ``If-None-Match``
gets 304 without the page being built. The ETag hashes the *versions* of what the page
shows (the ladder's ``board_version`` changes with every rating, membership and name
change, so a change shows at once), the day (statuses and trends move with it), the
address and the HTMX target. Anyone with a cookie (a member, a message to show) gets a
private page and no ETag.

The same ETag keys the page on the server: the first visitor after a change has the page
built, and every visitor after them, in every web process, gets it from the shared cache
(``caches["leaderboard"]``: Redis in production, this process's memory in ``make run``) for
one query or two (the versions). Since the key holds the versions, a change shows at once;
the timeout only frees memory. Only visitors' pages are kept whole: a member's page carries
their name, inbox and forms (the leaderboard's rows are cached per kind of viewer in
``ratings.leaderboards.board_page``).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import condition

from ladder.clubs.models import Ladder, Membership

log = logging.getLogger(__name__)


def release() -> str:
    """What this process serves: the code, templates and static files (their names, sizes
    and times), so that a page kept from an older release (other markup, other static files)
    is not revalidated as current, while every web process of one release agrees (gunicorn's
    workers start at different times, and a visitor's requests reach any of them)."""
    digest = hashlib.sha256()
    roots = [settings.BASE_DIR / name for name in ("accounts", "ladder", "ratings")]
    roots += [Path(d) for d in settings.STATICFILES_DIRS]
    templates: list[dict[str, Any]] = settings.TEMPLATES
    roots += [Path(d) for engine in templates for d in engine.get("DIRS", [])]
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix != ".pyc":
                stat = path.stat()
                digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


RELEASE = release()
# How long a browser or shared cache may show a visitor's page without asking again.
VISITOR_MAX_AGE = 30

View = Callable[..., HttpResponse]
Version = Callable[..., object]
# Response headers a kept page brings back (the middleware adds the rest to each response).
KEPT_HEADERS = ("Content-Type", "Content-Language", "Vary")


# The shared cache only saves time: one that is down or slow reads as a miss and fails nothing.
def cache_get(key: str) -> Any:
    """The entry ``key`` of the shared page cache, or None (also when it is off or down)."""
    if not settings.LEADERBOARD_CACHE_SECONDS:
        return None
    try:
        return caches["leaderboard"].get(key)
    except Exception:  # any error of the cache's client (a Redis that is down, say)
        log.warning("The cache could not be read; reading the database instead", exc_info=True)
        return None


def cache_set(key: str, value: Any) -> None:
    """Keep ``value`` under ``key`` in the shared page cache (nothing when it is off or down)."""
    if not settings.LEADERBOARD_CACHE_SECONDS:
        return
    try:
        caches["leaderboard"].set(key, value, settings.LEADERBOARD_CACHE_SECONDS)
    except Exception:  # as in cache_get
        log.warning("The cache could not be written", exc_info=True)


def is_visitor(request: HttpRequest) -> bool:
    """A request whose page may be shared: signed out and carrying no cookie (a cookie may
    hold a session, a message or a CSRF token the page would echo)."""
    return not request.COOKIES and not request.user.is_authenticated


def version_rows(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows of a version query, read with plain SQL: a version is read for every visitor's
    request, hit or miss, and the ORM takes several times longer to build a query over every
    column than PostgreSQL takes to answer it (1 ms against 0.1 ms of CPU)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# The filters public_ladder_rows understands, as SQL on the ladder table ("l").
LADDER_FILTERS = {
    "slug": "l.slug = %s",
    "memberships__user__username": (
        "l.id IN (SELECT m.ladder_id FROM {membership} m JOIN {user} u ON u.id = m.user_id"
        " WHERE u.username = %s)"
    ),
}


def public_ladder_rows(**filters: Any) -> list[tuple[Any, ...]]:
    """Every column of the public ladders matching ``filters`` (any of ``LADDER_FILTERS``),
    by id: the part of a version that a ladder's pages hang off (``board_version`` among
    them, and every setting)."""
    tables = {
        "membership": Membership._meta.db_table,
        "user": Membership._meta.get_field("user").related_model._meta.db_table,  # type: ignore[union-attr]
    }
    where = ["l.is_public"] + [LADDER_FILTERS[name].format(**tables) for name in filters]
    sql = f"SELECT l.* FROM {Ladder._meta.db_table} l WHERE {' AND '.join(where)} ORDER BY l.id"
    return version_rows(sql, list(filters.values()))


def visitor_etag(request: HttpRequest, version: object) -> str:
    parts = (
        RELEASE,
        repr(version),
        timezone.localdate().isoformat(),
        request.get_full_path(),
        request.headers.get("HX-Request", ""),
        request.headers.get("HX-Target", ""),
    )
    return '"' + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32] + '"'


def cacheable_for_visitors(version: Version) -> Callable[[View], View]:
    """Make a GET view public and conditional for visitors.

    ``version(request, *args, **kwargs)`` returns what the visitor's page is built from (any
    value with a stable ``repr``), or None when there is nothing public to show (the view then
    answers as it would, e.g. 404, uncached)."""

    def etag(request: HttpRequest, *args: Any, **kwargs: Any) -> str | None:
        if not is_visitor(request):
            return None
        current = version(request, *args, **kwargs)
        tag = None if current is None else visitor_etag(request, current)
        request._visitor_etag = tag  # type: ignore[attr-defined]  # for kept_page
        return tag

    def decorate(view: View) -> View:
        conditional = condition(etag_func=etag)(kept_page(view))

        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            response = conditional(request, *args, **kwargs)
            shared = response.status_code in (200, 304) and response.has_header("ETag")
            if shared and is_visitor(request):
                patch_cache_control(response, public=True, max_age=VISITOR_MAX_AGE)
            else:
                patch_cache_control(response, private=True)
                if response.has_header("ETag"):  # e.g. a 404 of someone's hidden page
                    del response.headers["ETag"]
            # The same address is private for a member: a shared cache keys on the cookie.
            patch_vary_headers(response, ("Cookie",))
            return response

        return wrapper

    return decorate


def kept_page(view: View) -> View:
    """Serve a visitor's page from the shared cache, keyed by its ETag (which
    ``cacheable_for_visitors`` has just worked out from the versions), the scheme and the
    host; build and keep it on a miss. Nothing that sets a cookie is kept."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        tag = getattr(request, "_visitor_etag", None)
        if tag is None:  # not a visitor, or nothing public to show
            return view(request, *args, **kwargs)
        key = (
            "page:"
            + hashlib.sha256(f"{tag}\n{request.scheme}\n{request.get_host()}".encode()).hexdigest()
        )
        kept = cache_get(key)
        if kept is not None:
            content, headers = kept
            return HttpResponse(content, headers=headers)
        response = view(request, *args, **kwargs)
        if (
            response.status_code == 200
            and not response.streaming
            and not response.cookies
            # A page that drew a CSRF token is the first visitor's alone (its cookie follows).
            and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        ):
            headers = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
            cache_set(key, (response.content, headers))
        return response

    return wrapper
