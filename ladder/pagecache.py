"""Visitors' pages and an API client's repeat, answered from the shared cache.

**Visitors.** A signed-out visitor with no cookie sees what every other such visitor sees.
The pages in ``VISITOR_PAGES`` (home, the ladder list, a ladder's leaderboard, player pages,
head-to-head) read only the query parameters listed there: the others are dropped before
the view runs, so ``?junk=N`` is the same page, kept once. A visitor's page is sent public
for ``VISITOR_MAX_AGE`` seconds with the ETag of its content (a repeat that names it gets
a 304); anyone with a cookie or credentials gets it private. With a cache every process shares (``VISITOR_PAGES_EARLY``), the response is
kept whole on ``caches["leaderboard"]``, keyed by the address, the day and the HTMX headers,
and tagged with the epoch (``ladder.cache.pages_changed``): a visitor's repeat is answered
here, before sessions, CSRF, authentication and the rest, with one round trip and no query.
*Measured* (docs/BENCHMARKS.md, issue 17): without this the leaderboard and player pages
reached 13–15% of the minimal Django site on a quiet machine, against a target of 25%;
with it 50–60%.

**An API client's repeat** of a view in ``TOKEN_REPEATS`` (the API leaderboard) by token is
answered the same way: the answer the full path gave this token for this address and
Accept header, kept under the epoch with a copy of the token. The token is checked by
``TokenAuthentication.vouched`` (the check of a remembered token: not expired, member
active; a deleted token or a changed member replaces the epoch), and the view's own
throttles count the request (DRF's ``check_throttles``); anything else goes the full way.
*Measured*: without it the API leaderboard reached 17–23% against 25%; with it 28–41%.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any

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
from ladder.cache import epoch_and, keep_for_epoch

# Visitor pages by URL name, and the query parameters each reads.
VISITOR_PAGES = {
    "home": (),
    "ladder:list": (),
    "ladder:detail": ("q", "status", "page"),
    "ratings:player": ("ladder", "page", "range"),
    "ratings:head_to_head": ("a", "b"),
}
# API reads a token client's repeat may be answered from the cache, and the parameters they
# read (an address with others goes the full way: its links would echo them).
TOKEN_REPEATS = {"api:leaderboard": ("q", "status", "page", "format")}
# How long a browser or shared cache may show a visitor's page without asking again.
VISITOR_MAX_AGE = 30
# Request headers a visitor's page depends on besides its address (a fragment or the page),
# in its Vary with the cookie (the same address is private for a member).
VISITOR_VARY = ("HX-Request", "HX-Target", "HX-History-Restore-Request", "Cookie")


def is_visitor(request: HttpRequest) -> bool:
    """No cookie (a session, a message, a CSRF token the page would echo), no credentials."""
    return not request.COOKIES and "HTTP_AUTHORIZATION" not in request.META


# Resolving the address was a tenth of an early answer's time; clients repeat few addresses.
@functools.lru_cache(maxsize=1024)
def _resolve(urlconf: str, path: str) -> ResolverMatch | None:
    try:
        return resolve(path, urlconf)
    except Resolver404:
        return None


def answerable(request: HttpRequest) -> tuple[ResolverMatch, tuple[str, ...], bool] | None:
    """The resolved page, the parameters it reads and whether it is a token repeat, for a
    GET (or a visitor's HEAD) this middleware handles; None for anything else."""
    if request.method not in ("GET", "HEAD"):
        return None
    match = _resolve(get_urlconf() or settings.ROOT_URLCONF, request.path_info)
    if match is None:
        return None
    if match.view_name in VISITOR_PAGES:
        return match, VISITOR_PAGES[match.view_name], False
    token = request.method == "GET" and not request.COOKIES and "HTTP_AUTHORIZATION" in request.META
    if token and match.view_name in TOKEN_REPEATS:
        return match, TOKEN_REPEATS[match.view_name], True
    return None


def answer_key(request: HttpRequest, *parts: str) -> str:
    """The key of a kept answer: the day (statuses and trends move with it), the address and
    ``parts``; DisallowedHost for a host the site does not serve."""
    address = [request.scheme or "", request.get_host(), request.get_full_path()]
    text = "\n".join([timezone.localdate().isoformat(), *address, *parts])
    return "answer:" + hashlib.sha256(text.encode()).hexdigest()


class PageCacheMiddleware:
    """See the module's docstring. Placed after SecurityMiddleware (its redirect and headers
    apply to both answers) and before WhiteNoise, sessions, CSRF,
    authentication, messages, CSP and axes, whose headers a kept response already carries."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        found = answerable(request)
        if found is None:
            return self.get_response(request)
        match, params, token = found
        if token:
            if set(request.GET) - set(params):
                return self.get_response(request)
            return self.token_repeat(request, match)
        # The page reads these parameters only: drop the others before anyone sees them.
        read = QueryDict(mutable=True)
        for name in params:
            if name in request.GET:
                read.setlist(name, request.GET.getlist(name))
        request.META["QUERY_STRING"] = read.urlencode()
        request.GET = QueryDict(request.META["QUERY_STRING"])  # type: ignore[assignment]
        if is_visitor(request):
            response = self.visitor_page(request)
            if response.status_code in (200, 304):
                patch_cache_control(response, public=True, max_age=VISITOR_MAX_AGE)
        else:
            response = self.get_response(request)
            patch_cache_control(response, private=True)
        patch_vary_headers(response, VISITOR_VARY)
        return response

    def visitor_page(self, request: HttpRequest) -> HttpResponse:
        """The kept page (or its 304), else the full path's, kept for the next visitor."""
        try:
            key = answer_key(request, *(request.headers.get(h, "") for h in VISITOR_VARY[:-1]))
        except DisallowedHost:
            return self.get_response(request)  # the full path refuses it
        epoch, kept = epoch_and(key)  # read before the full path reads the database
        if kept is not None:
            content, headers = kept
            return conditional(request, HttpResponse(content, headers=dict(headers)))
        response = self.get_response(request)
        if response.status_code != 200 or response.streaming:
            return response
        set_response_etag(response)
        if keepable(request, response):
            keep_for_epoch(key, epoch, (response.content, list(response.items())))
        return conditional(request, response)

    def token_repeat(self, request: HttpRequest, match: ResolverMatch) -> HttpResponse:
        """The answer kept for this token, if it still holds and the throttles let it
        through (counted); else the full path's, kept for the token's next request."""
        digest = TokenAuthentication.digest_of(request)
        if digest is None:
            return self.get_response(request)
        try:
            key = answer_key(request, request.META.get("HTTP_ACCEPT", ""), digest)
        except DisallowedHost:
            return self.get_response(request)
        epoch, kept = epoch_and(key)
        if kept is not None:
            token, content, headers = kept
            if allowed(request, match, token, digest):
                return HttpResponse(content, headers=dict(headers))
        response = self.get_response(request)
        token = getattr(request, "auth", None)  # DRF's, once it has authenticated
        if isinstance(token, ApiToken) and token.digest == digest and keepable(request, response):
            kept = (TokenAuthentication.snapshot(token), response.content, list(response.items()))
            keep_for_epoch(key, epoch, kept)
        return response


def keepable(request: HttpRequest, response: HttpResponse) -> bool:
    """A whole 200 that sets no cookie (a page that drew a CSRF token is its visitor's alone)."""
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
    )


def conditional(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """The page, or Django's 304 for it when the request names its ETag."""
    return get_conditional_response(request, etag=response["ETag"], response=response) or response


def allowed(request: HttpRequest, match: ResolverMatch, token: Any, digest: str) -> bool:
    """Whether the kept token still holds (its last use need not be written yet) and the
    view's throttles let the request through, counting it."""
    authentication = TokenAuthentication()
    if TokenAuthentication.last_use_due(token):
        return False  # the full path writes it
    try:
        vouched = authentication.vouched(token, digest)
    except APIException:
        return False
    if vouched is None:
        return False
    view = match.func.cls(**match.func.initkwargs)  # type: ignore[attr-defined]
    # DRF's own stand-in for an authentication already made (its test client's too).
    forced: Any = ForcedAuthentication(*vouched)
    api_request = Request(request, authenticators=[forced])
    view.setup(api_request, *match.args, **match.kwargs)
    try:
        view.check_throttles(api_request)
    except APIException:  # Throttled: the full path answers it
        for name in ("user", "auth"):  # what DRF's Request set: the full path sets its own
            request.__dict__.pop(name, None)
        return False
    return True
