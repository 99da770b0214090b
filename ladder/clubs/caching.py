"""Visitor pages that browsers and shared caches can keep (docs/DEPLOY.md).

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

Ahead of all that, ``VisitorPageMiddleware`` (early in MIDDLEWARE, before sessions, CSRF,
authentication and the rest) answers a visitor's repeat from the shared cache in one round
trip and no query: the response exactly as the full path sent it last time (headers the
later middleware added included), kept under the address and the day and tagged with the
*epoch*, a random value on the shared cache that every change to what visitors' pages are
built from replaces (``pages_changed``: ladders, users and memberships as they are
saved or deleted, and every ``board_version`` bump, i.e. every rating run). A kept response
whose epoch is not the current one is not served; the request goes the full way, which
checks the versions in the database and keeps the response again under the current epoch.

``TokenRepeatMiddleware``, just after it, does the same for an API client's repeat of an API
read that allows it (``LeaderboardView``): the response the full path gave this token for
this address, kept under the epoch with the token it was given to. The token is checked by
the same function of ``accounts.tokens.TokenAuthentication`` that checks a remembered one,
and the view's own throttles (DRF's ``check_throttles``) count the request; anything else
(a cookie, another header, a token whose last use is due to be written, a refusal of any
kind) goes the full way, which answers as before. Every deletion of a token replaces the
epoch too, so a revoked token's answers are gone at once.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.cache import caches
from django.core.exceptions import DisallowedHost
from django.db import connection, transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.urls import Resolver404, ResolverMatch, get_urlconf, resolve
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.views.decorators.http import condition
from rest_framework.exceptions import APIException
from rest_framework.request import ForcedAuthentication, Request

from accounts.models import ApiToken, User
from accounts.tokens import TokenAuthentication
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
# Request headers a visitor's page depends on besides its address (a fragment or the page),
# in every visitor page's Vary with the cookie (the same address is private for a member).
VISITOR_VARY = ("HX-Request", "HX-Target", "HX-History-Restore-Request", "Cookie")
# The epoch of the responses the first middleware answers with (see the module docstring).
EPOCH_KEY = "visitor-pages:epoch"
# How long such a response is kept: should the shared cache fail just when a change replaces
# the epoch (the change is saved all the same), a stale page is served this long at most.
EARLY_SECONDS = 60


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


def cache_get_many(keys: list[str]) -> dict[str, Any]:
    """The entries ``keys`` of the shared page cache that are there, in one round trip."""
    if not settings.LEADERBOARD_CACHE_SECONDS:
        return {}
    try:
        return caches["leaderboard"].get_many(keys)
    except Exception:  # as in cache_get
        log.warning("The cache could not be read; reading the database instead", exc_info=True)
        return {}


def cache_set(key: str, value: Any, timeout: int | None = None) -> None:
    """Keep ``value`` under ``key`` in the shared page cache (nothing when it is off or down)."""
    if not settings.LEADERBOARD_CACHE_SECONDS:
        return
    try:
        caches["leaderboard"].set(
            key,
            value,
            min(timeout or settings.LEADERBOARD_CACHE_SECONDS, settings.LEADERBOARD_CACHE_SECONDS),
        )
    except Exception:  # as in cache_get
        log.warning("The cache could not be written", exc_info=True)


def is_visitor(request: HttpRequest) -> bool:
    """A request whose page may be shared: signed out and carrying no cookie (a cookie may
    hold a session, a message or a CSRF token the page would echo) and no credentials.
    Before the authentication middleware has run (``VisitorPageMiddleware``) there is no
    user yet; with no cookie there is no session to sign anyone in."""
    if request.COOKIES or "HTTP_AUTHORIZATION" in request.META:
        return False
    user = getattr(request, "user", None)
    return user is None or not user.is_authenticated


def keepable(request: HttpRequest, response: HttpResponse) -> bool:
    """Whether a visitor's response may be kept for other visitors: a whole page that sets
    no cookie (a page that drew a CSRF token is the first visitor's alone: its cookie
    follows)."""
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
    )


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


def visitor_request(request: HttpRequest) -> list[str]:
    """What tells one visitor's page from another besides the versions: the release, the
    day (statuses and trends move with it), the address and the headers in ``VISITOR_VARY``
    (a fragment or the whole page)."""
    return [
        RELEASE,
        timezone.localdate().isoformat(),
        request.get_full_path(),
        *(request.headers.get(name, "") for name in VISITOR_VARY if name != "Cookie"),
    ]


def visitor_etag(request: HttpRequest, version: object) -> str:
    parts = (repr(version), *visitor_request(request))
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
            # A 304 names the same headers as the page it stands for.
            patch_vary_headers(response, VISITOR_VARY)
            return response

        wrapper.visitor_page = True  # type: ignore[attr-defined]  # for VisitorPageMiddleware
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
        if keepable(request, response):
            headers = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
            cache_set(key, (response.content, headers))
        return response

    return wrapper


# ---- answered early --------------------------------------------------------------------


def _new_epoch() -> None:
    try:
        caches["leaderboard"].set(EPOCH_KEY, secrets.token_hex(8), None)
    except Exception:  # as in cache_get; EARLY_SECONDS bounds what this leaves stale
        log.warning("The visitor pages' epoch could not be replaced", exc_info=True)


def pages_changed() -> None:
    """Something visitors' pages are built from has changed (or who may see what, for the
    API's ``ratings.api.LeaderboardView``): what is kept under the epoch is stale. The epoch is replaced now and again once the transaction commits
    (a page built meanwhile from the data before the change may be kept under the first new
    epoch). A random value rather than a count: an epoch that the cache lost and made again
    is never an earlier one."""
    if not settings.VISITOR_PAGES_EARLY or not settings.LEADERBOARD_CACHE_SECONDS:
        return
    _new_epoch()
    transaction.on_commit(_new_epoch)


@receiver(post_save, sender=Ladder)
@receiver(post_delete, sender=Ladder)
@receiver(post_save, sender=Membership)
@receiver(post_delete, sender=Membership)
@receiver(post_save, sender=User)
@receiver(post_delete, sender=User)
@receiver(post_save, sender=Group)  # who is a moderator: what the API shows them
@receiver(post_delete, sender=Group)
@receiver(m2m_changed, sender=User.groups.through)
@receiver(post_delete, sender=ApiToken)  # a revoked token: what TokenRepeatMiddleware kept
def _pages_changed(sender: type, update_fields: Any = None, **kwargs: Any) -> None:
    """What the versions read (``public_ladder_rows``, ``public_player``) is saved through these
    models; a login's ``last_login`` is not shown anywhere. ``board_version`` is written with
    an update (``ratings.pipeline.bump_board``), which says so itself."""
    if update_fields is not None and set(update_fields) <= {"last_login"}:
        return
    pages_changed()


def epoch_and(key: str) -> tuple[str | None, Any]:
    """The current epoch (made when the cache has none: just started, or lost it) and what
    is kept under ``key`` for it, in one round trip; None for what was kept under another
    epoch or not at all. (None, None) when nothing is answered this way."""
    if not settings.VISITOR_PAGES_EARLY or not settings.LEADERBOARD_CACHE_SECONDS:
        return None, None
    found = cache_get_many([EPOCH_KEY, key])
    epoch, kept = found.get(EPOCH_KEY), found.get(key)
    if epoch is None:
        try:
            cache = caches["leaderboard"]
            cache.add(EPOCH_KEY, secrets.token_hex(8), None)
            return cache.get(EPOCH_KEY), None
        except Exception:  # as in cache_get: nothing is kept
            return None, None
    return epoch, kept[1] if kept is not None and kept[0] == epoch else None


def keep_for_epoch(key: str, epoch: str | None, value: object) -> None:
    """Keep ``value`` under ``key`` for ``epoch``, which must have been read (``epoch_and``)
    before the data ``value`` was built from."""
    if epoch is not None:
        cache_set(key, (epoch, value), EARLY_SECONDS)


def early_key(request: HttpRequest) -> str:
    """The key of the response kept for the first middleware (DisallowedHost for a host that
    the site does not serve)."""
    parts = [*visitor_request(request), str(request.scheme), request.get_host()]
    return "early:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()


def is_visitor_page(request: HttpRequest) -> bool:
    """A GET or HEAD of a page ``cacheable_for_visitors`` serves, by a visitor."""
    if request.method not in ("GET", "HEAD") or not is_visitor(request):
        return False
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return False
    return getattr(match.func, "visitor_page", False)


# Headers of a page that its 304 does not carry (its body's), and what the full path's
# CommonMiddleware gives a 304 instead.
ENTITY_HEADERS = ("Content-Type", "Content-Language", "Content-Length")


def kept_response(
    request: HttpRequest, etag: str, content: bytes, headers: list[tuple[str, str]]
) -> HttpResponse | None:
    """The kept response, or the 304 the full path would answer for it (None for any other
    answer to the request's conditions, e.g. 412, which the full path then gives)."""
    response = HttpResponse(content, headers=dict(headers))
    conditional = get_conditional_response(request, etag=etag, response=response)
    if conditional is response:
        return response
    if conditional is None or conditional.status_code != 304:
        return None
    not_modified = HttpResponseNotModified()
    for name, value in headers:
        if name not in ENTITY_HEADERS:
            not_modified.headers[name] = value
    not_modified.headers["Content-Length"] = "0"
    return not_modified


class VisitorPageMiddleware:
    """Answer a visitor's page from the shared cache before the other middleware (see the
    module's docstring), and keep the full path's response for the next visitor.

    Placed after SecurityMiddleware (its HTTPS redirect and headers apply to both answers)
    and before WhiteNoise, sessions, CSRF, authentication, messages, CSP and axes, whose
    headers the kept response already carries."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not settings.VISITOR_PAGES_EARLY or not is_visitor_page(request):
            return self.get_response(request)
        try:
            key = early_key(request)
        except DisallowedHost:
            return self.get_response(request)  # the full path refuses it
        # The epoch is read before the full path reads the database, so what it keeps is
        # tagged with an epoch no later than the data it was built from.
        epoch, kept = epoch_and(key)
        if kept is not None:
            response = kept_response(request, *kept)
            if response is not None:
                return response
        response = self.get_response(request)
        tag = getattr(request, "_visitor_etag", None)
        if (
            tag is not None
            and response.get("ETag") == tag
            and keepable(request, response)
            and is_visitor(request)
        ):
            keep_for_epoch(key, epoch, (tag, response.content, list(response.items())))
        return response


def early_api_view(request: HttpRequest) -> ResolverMatch | None:
    """The resolved API view of a GET that ``TokenRepeatMiddleware`` may answer: one whose
    class allows it (``answered_early``), by a client that sends a token and no cookie (with
    a cookie, the session is the API's first authentication)."""
    if (
        request.method != "GET"
        or request.COOKIES
        or "HTTP_AUTHORIZATION" not in request.META
        or not request.path_info.startswith("/api/")
    ):
        return None
    return _early_api_match(get_urlconf() or settings.ROOT_URLCONF, request.path_info)


# Resolving the address was a tenth of an early answer's time; a client repeats few addresses.
@functools.lru_cache(maxsize=1024)
def _early_api_match(urlconf: str, path: str) -> ResolverMatch | None:
    try:
        match = resolve(path, urlconf)
    except Resolver404:
        return None
    view_class = getattr(match.func, "cls", None)
    return match if getattr(view_class, "answered_early", False) else None


def token_answer_key(request: HttpRequest, digest: str) -> str:
    """The key of a token client's kept answer: the token, and everything else the full path's
    answer depends on (the release, the day, the address, the Accept header it was
    negotiated from); DisallowedHost for a host that the site does not serve."""
    parts = [
        RELEASE,
        timezone.localdate().isoformat(),
        str(request.scheme),
        request.get_host(),
        request.get_full_path(),
        request.META.get("HTTP_ACCEPT", ""),
        digest,
    ]
    return "early-api:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()


class TokenRepeatMiddleware:
    """Answer an API client's repeat of an API read from the shared cache (see the module's
    docstring), and keep the full path's answer for their next request.

    The checks are the full path's own: the token by ``TokenAuthentication.vouched`` (this
    token, not expired, its member active; a revoked token's deletion replaced the epoch),
    the throttles by the view's ``check_throttles`` (the request counts; a refusal goes the
    full way, which counts nothing more and answers 429 with its Retry-After). Content
    negotiation is not repeated: the kept answer is the one negotiated from this very Accept
    header and address. Placed right after ``VisitorPageMiddleware``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        match = early_api_view(request) if settings.VISITOR_PAGES_EARLY else None
        digest = TokenAuthentication.digest_of(request) if match is not None else None
        if match is None or digest is None:
            return self.get_response(request)
        try:
            key = token_answer_key(request, digest)
        except DisallowedHost:
            return self.get_response(request)  # the full path refuses it
        epoch, kept = epoch_and(key)  # read before the full path reads the database
        if kept is not None:
            response = self.answer(request, match, digest, *kept)
            if response is not None:
                return response
        response = self.get_response(request)
        token = getattr(request, "auth", None)  # DRF's, once it has authenticated
        if (
            getattr(response, "keep_for_caller", False)
            and response.status_code == 200
            and not response.streaming
            and not response.cookies
            and isinstance(token, ApiToken)
            and token.digest == digest
        ):
            kept_token = TokenAuthentication.snapshot(token)
            keep_for_epoch(key, epoch, (kept_token, response.content, list(response.items())))
        return response

    @staticmethod
    def answer(
        request: HttpRequest,
        match: ResolverMatch,
        digest: str,
        token: Any,
        content: bytes,
        headers: list[tuple[str, str]],
    ) -> HttpResponse | None:
        """The kept answer if the token still holds and the throttles let the request
        through (it is counted); None to go the full way. A token whose last use is due to be
        written goes the full way, which writes it."""
        authentication = TokenAuthentication()
        if TokenAuthentication.last_use_due(token):
            return None
        try:
            vouched = authentication.vouched(token, digest)
        except APIException:
            return None
        if vouched is None:
            return None
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
            return None
        return HttpResponse(content, headers=dict(headers))
