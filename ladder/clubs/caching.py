"""Visitor pages that browsers and shared caches can keep (PRODUCT.md "How it runs").

A signed-out visitor with no cookie sees the same page as every other such visitor, so
the leaderboard, player pages, head-to-head, the ladder list and home are sent to them
public for ``VISITOR_MAX_AGE`` seconds with an ``ETag``; a repeat with ``If-None-Match``
gets 304 without the page being built. The ETag hashes the *versions* of what the page
shows (the ladder's ``board_version`` changes with every rating, membership and name
change, so a change shows at once), the day (statuses and trends move with it), the
address and the HTMX target. Anyone with a cookie (a member, a message to show) gets a
private page and no ETag.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import condition

from ladder.clubs.models import Ladder

# Changes when a new release starts (processes restart), so a page kept from an older
# release (other markup, other static files) is not revalidated as current.
RELEASE = str(time.time_ns())
# How long a browser or shared cache may show a visitor's page without asking again.
VISITOR_MAX_AGE = 30

View = Callable[..., HttpResponse]
Version = Callable[..., object]


def is_visitor(request: HttpRequest) -> bool:
    """A request whose page may be shared: signed out and carrying no cookie (a cookie may
    hold a session, a message or a CSRF token the page would echo)."""
    return not request.COOKIES and not request.user.is_authenticated


def public_ladder_rows(**filters: Any) -> list[tuple[Any, ...]]:
    """Every field of the public ladders matching ``filters``, in a fixed order: the part of
    a version that a ladder's pages hang off (``board_version`` among them)."""
    rows = Ladder.objects.filter(is_public=True, **filters).order_by("pk").values()
    return [tuple(sorted(row.items())) for row in rows]


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
        return None if current is None else visitor_etag(request, current)

    def decorate(view: View) -> View:
        conditional = condition(etag_func=etag)(view)

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
