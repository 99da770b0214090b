"""Visitors' pages and an API client's repeat, answered from the shared cache.

The pages of ``VISITOR_PAGES`` read only the query parameters listed there (the others are
dropped first: ``?junk=N`` is the same page). A signed-out visitor with no cookie gets them
public for ``VISITOR_MAX_AGE`` seconds with the ETag of the content (a 304 when they have
it); anyone else, private. With a cache every process shares (``VISITOR_PAGES_EARLY``) the
page is kept under the epoch (``core.cache``) and a visitor's repeat is answered here,
before sessions, CSRF, authentication and the rest: one round trip, no query. So is a token
client's repeat of a view of ``TOKEN_REPEATS``, kept with a copy of the token, which
``TokenAuthentication.vouched`` checks; the view's throttles count it. *Measured*
(docs/BENCHMARKS.md): without the first, visitor pages reached 13–15% of the minimal Django
site against a target of 25%; without the second, the API leaderboard 17–23%.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, QueryDict
from django.urls import Resolver404, ResolverMatch, get_urlconf, resolve
from django.utils import timezone
from django.utils.cache import (
    get_conditional_response,
    patch_cache_control,
    patch_vary_headers,
    set_response_etag,
)
from rest_framework.exceptions import APIException
from rest_framework.request import ForcedAuthentication, Request

from accounts.models import ApiToken
from accounts.tokens import TokenAuthentication
from core.cache import epoch_and, keep_for_epoch

# Visitor pages by URL name, and the query parameters each reads.
VISITOR_PAGES = {
    "home": (),
    "ladder:list": (),
    "ladder:detail": ("q", "status", "page"),
    "ratings:player": ("ladder", "page", "range"),
    "ratings:head_to_head": ("a", "b"),
}
# The same for token clients' repeats; an address with other parameters goes the full way
# (an API page's links echo them).
TOKEN_REPEATS = {"api:leaderboard": ("q", "status", "page", "format")}
VISITOR_MAX_AGE = 30  # seconds a browser may show a visitor's page without asking again
# What a visitor's page depends on besides its address, in its Vary with the cookie.
VISITOR_VARY = ("HX-Request", "HX-Target", "HX-History-Restore-Request", "Cookie")


# Resolving the address was a tenth of an early answer's time; clients repeat few addresses.
@functools.lru_cache(maxsize=1024)
def _resolve(urlconf: str, path: str) -> ResolverMatch | None:
    try:
        return resolve(path, urlconf)
    except Resolver404:
        return None


def answer_key(request: HttpRequest, *parts: str) -> str:
    """The day (statuses and trends move with it), the address and ``parts``; DisallowedHost
    for a host the site does not serve."""
    address = [request.scheme or "", request.get_host(), request.get_full_path(), *parts]
    text = "\n".join([timezone.localdate().isoformat(), *address])
    return "answer:" + hashlib.sha256(text.encode()).hexdigest()


def keepable(request: HttpRequest, response: HttpResponse) -> bool:
    """A whole 200 that sets no cookie (a page that drew a CSRF token is its visitor's alone)."""
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
    )


class PageCacheMiddleware:
    """Placed after SecurityMiddleware (its redirect and headers apply to both answers) and
    before WhiteNoise, sessions, CSRF, authentication, messages, CSP and axes, whose headers a
    kept response already carries."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        match = None
        if request.method in ("GET", "HEAD"):
            match = _resolve(get_urlconf() or settings.ROOT_URLCONF, request.path_info)
        name = match.view_name if match else ""
        credentials = request.COOKIES or "HTTP_AUTHORIZATION" in request.META
        token = credentials and not request.COOKIES and request.method == "GET"
        if token and name in TOKEN_REPEATS and set(request.GET) <= set(TOKEN_REPEATS[name]):
            return self.token_repeat(request, match)  # type: ignore[arg-type]
        if name not in VISITOR_PAGES:
            return self.get_response(request)
        read = QueryDict(mutable=True)  # the parameters the page reads, no others
        for param in VISITOR_PAGES[name]:
            if param in request.GET:
                read.setlist(param, request.GET.getlist(param))
        request.META["QUERY_STRING"] = read.urlencode()
        request.GET = QueryDict(request.META["QUERY_STRING"])
        if credentials:
            response = self.get_response(request)
            patch_cache_control(response, private=True)
        else:
            response = self.visitor_page(request)
            if response.status_code in (200, 304):
                patch_cache_control(response, public=True, max_age=VISITOR_MAX_AGE)
        patch_vary_headers(response, VISITOR_VARY)
        return response

    def visitor_page(self, request: HttpRequest) -> HttpResponse:
        """The kept page, else the full path's, kept for the next visitor; or their 304."""
        try:
            key = answer_key(request, *(request.headers.get(h, "") for h in VISITOR_VARY[:-1]))
        except DisallowedHost:
            return self.get_response(request)  # the full path refuses it
        epoch, kept = epoch_and(key)  # read before the full path reads the database
        if kept is not None:
            response = HttpResponse(kept[0], headers=dict(kept[1]))
        else:
            response = self.get_response(request)
            if response.status_code != 200 or response.streaming:
                return response
            set_response_etag(response)
            if keepable(request, response):
                keep_for_epoch(key, epoch, (response.content, list(response.items())))
        return (
            get_conditional_response(request, etag=response["ETag"], response=response) or response
        )

    def token_repeat(self, request: HttpRequest, match: ResolverMatch) -> HttpResponse:
        """The answer kept for this token if it still holds and the throttles let it
        through (counted); else the full path's, kept for the token's next request."""
        digest = TokenAuthentication.digest_of(request)
        try:
            key = answer_key(request, request.META.get("HTTP_ACCEPT", ""), str(digest))
        except DisallowedHost:
            return self.get_response(request)
        epoch, kept = epoch_and(key) if digest else (None, None)
        if kept is not None and allowed(request, match, kept[0], str(digest)):
            return HttpResponse(kept[1], headers=dict(kept[2]))
        response = self.get_response(request)
        token = getattr(request, "auth", None)  # DRF's, once it has authenticated
        if isinstance(token, ApiToken) and token.digest == digest and keepable(request, response):
            kept = (TokenAuthentication.snapshot(token), response.content, list(response.items()))
            keep_for_epoch(key, epoch, kept)
        return response


def allowed(request: HttpRequest, match: ResolverMatch, token: ApiToken, digest: str) -> bool:
    """Whether the kept token still holds (its last use not due to be written, which the
    full path does) and the view's throttles let the request through, counting it."""
    if TokenAuthentication.last_use_due(token):
        return False
    try:
        vouched = TokenAuthentication().vouched(token, digest)
    except APIException:
        return False
    if vouched is None:
        return False
    view = match.func.cls(**match.func.initkwargs)  # type: ignore[attr-defined]
    api_request = Request(request, authenticators=[ForcedAuthentication(*vouched)])  # type: ignore[list-item]
    view.setup(api_request, *match.args, **match.kwargs)
    try:
        view.check_throttles(api_request)
    except APIException:  # Throttled: the full path answers it
        for name in ("user", "auth"):  # what DRF's Request set: the full path sets its own
            request.__dict__.pop(name, None)
        return False
    return True
