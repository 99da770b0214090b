"""Who the client is, and the limits on the ways in that take a credential.

- `client_ip`: the one rule for a request's client address (TRUSTED_PROXY_COUNT), used by
  the login lockout (django-axes), the API throttles (DRF's NUM_PROXIES) and the
  password-reset limit.
- `LoginGuard`: django-axes' database handler (AXES_HANDLER) with two caps over its lockout
  per account and client address (20 failures, 15 minutes): an account takes at most
  LOGIN_ACCOUNT_FAILURE_LIMIT (100) failures an hour from all addresses together (OWASP ASVS
  4.0.3 §2.2.1: guessing from many addresses), and a client address at most
  LOGIN_ADDRESS_FAILURE_LIMIT (50) an hour across all accounts (spraying). Neither can lock
  the owner out: a browser that signed in to an account before carries a signed device
  cookie for it (OWASP's "device cookies"), and keeps its own allowance, the lockout per
  account and address, whatever the caps say. The caps count axes' own failure log
  (AccessFailureLog, one row a failure, pruned hourly by accounts.tasks).
- `refuse_locked_out_api_login`: django-axes answers a locked-out web login with its
  lockout page; a DRF view (the token endpoint) gets a 429 in JSON instead.
- `limit_password_reset`, `limit_signup` (`limit_posts`): forms that take an e-mail address,
  not a password, and send it mail, so they are rate-limited (DRF's throttle on the shared
  cache) per client address and per e-mail address rather than locked.
- The throttles here (`AnonRateThrottle`, `UserRateThrottle`, `ScopedRateThrottle`, the
  reset limit) let a request through when their cache (Redis) cannot be reached: an outage
  of the cache must not take the API or the reset form down. The login lockout keeps its
  count in the database, so it holds regardless.
- On Redis they count in one round trip (`SlidingWindow`): DRF's rule, its window and its
  wait, but the history is a sorted set trimmed and counted in Redis, instead of the whole
  list read, unpickled, pickled and written back on every request (two round trips, and
  bytes that grow with the rate: 600 a minute is 600 timestamps each way).
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
import secrets
from collections.abc import Callable, Mapping
from datetime import timedelta
from functools import wraps
from typing import TYPE_CHECKING, Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessFailureLog
from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache import cache as default_cache
from django.core.cache.backends.redis import RedisCache
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils import timezone
from redis.commands.core import Script
from redis.exceptions import RedisError
from rest_framework import throttling
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

if TYPE_CHECKING:
    from rest_framework.views import APIView

    from accounts.models import User

log = logging.getLogger(__name__)

LOCKED_OUT_MESSAGE = (
    "Too many failed log-in attempts. Logging in is paused here for {minutes} minutes: "
    "try again later, or reset your password."
)


def lockout_minutes(request: HttpRequest | Request | None = None) -> int:
    """How long logging in is paused: the cool-off, or the caps' hour when one of them hit."""
    if getattr(request, "login_capped", False):
        return math.ceil(FAILURE_WINDOW.total_seconds() / 60)
    return math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)


# The caps' window (LoginGuard), and the device cookie that lifts them for a browser.
FAILURE_WINDOW = timedelta(hours=1)
DEVICE_COOKIE = "ladder_device"
DEVICE_SALT = "accounts.security.device"
DEVICE_DAYS = 365
DEVICE_ACCOUNTS = 5  # accounts one browser may remember (a shared family computer)


def trusted_accounts(request: HttpRequest) -> list[str]:
    """The usernames this browser's device cookie vouches for (signed, at most a year old)."""
    try:
        value = request.get_signed_cookie(
            DEVICE_COOKIE, default="", salt=DEVICE_SALT, max_age=DEVICE_DAYS * 86400
        )
    except (ValueError, KeyError):  # a cookie of another kind, or not text
        return []
    return value.split() if value else []


class LoginGuard(AxesDatabaseHandler):
    """django-axes' lockout per account and client address, plus the caps per account and
    per client address over an hour, lifted for a browser with a device cookie for the
    account (see the module's docstring)."""

    # ``request``: Django's, on which axes (and this) set attributes of their own.
    def is_locked(self, request: Any, credentials: Mapping[str, object] | None = None) -> bool:
        if super().is_locked(request, credentials):
            return True
        username = get_client_username(request, credentials)
        if username and username in trusted_accounts(request):
            return False
        since = timezone.now() - FAILURE_WINDOW
        failures = AccessFailureLog.objects.filter(attempt_time__gte=since)
        capped = (
            username is not None
            and failures.filter(username=username).count() >= settings.LOGIN_ACCOUNT_FAILURE_LIMIT
        ) or (
            failures.filter(ip_address=request.axes_ip_address).count()
            >= settings.LOGIN_ADDRESS_FAILURE_LIMIT
        )
        request.login_capped = capped
        return bool(capped)


@receiver(user_logged_in)
def remember_device(
    sender: object, request: object = None, user: User | None = None, **kwargs: object
) -> None:
    """A sign-in on a page: the browser's device cookie vouches for this account from now on
    (DeviceCookieMiddleware writes it on the answer). Not for API clients: a script that
    gets a token keeps no cookies."""
    if isinstance(request, HttpRequest) and user is not None:
        names = [n for n in trusted_accounts(request) if n != user.get_username()]
        request.device_accounts = [user.get_username(), *names][:DEVICE_ACCOUNTS]  # type: ignore[attr-defined]


class DeviceCookieMiddleware:
    """Writes the device cookie a sign-in asked for (remember_device)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        names = getattr(request, "device_accounts", None)
        if names:
            response.set_signed_cookie(
                DEVICE_COOKIE,
                " ".join(names),
                salt=DEVICE_SALT,
                max_age=DEVICE_DAYS * 86400,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response


def client_ip(request: HttpRequest | Request) -> str | None:
    """The client's address: REMOTE_ADDR, or with TRUSTED_PROXY_COUNT = N proxies in front,
    the N-th address from the right of X-Forwarded-For (the ones left of it are the
    client's to forge). DRF's rule, so the throttles and the lockout agree."""
    ident = BaseThrottle().get_ident(request)  # type: ignore[arg-type]
    try:
        # Only a misconfigured count (more proxies than there are) lets a forged entry
        # through; never store one, fall back to the peer's address.
        return str(ipaddress.ip_address(ident))
    except ValueError:
        return request.META.get("REMOTE_ADDR")


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: object
) -> HttpResponse:
    """django-axes's answer to a locked-out login on a page (the site's or the admin's)."""
    return render(
        request,
        "registration/locked_out.html",
        {"lockout_minutes": lockout_minutes(request)},
        status=429,
    )


def refuse_locked_out_api_login(sender: object, request: object = None, **kwargs: object) -> None:
    """django-axes's `user_locked_out` signal: stop a DRF login with a 429."""
    if isinstance(request, Request):
        minutes = lockout_minutes(request)
        raise Throttled(wait=minutes * 60, detail=LOCKED_OUT_MESSAGE.format(minutes=minutes))


class CacheDownAllows:
    """A throttle that lets the request through when its cache cannot be reached."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        try:
            return bool(super().allow_request(request, view))  # type: ignore[misc]
        except (RedisError, OSError) as error:
            log.warning("throttle cache unreachable, request let through: %s", error)
            return True


# KEYS[1]: the window; ARGV: now, now - duration, the most requests, duration, a member.
# DRF's rule: drop what is at least a duration old; refuse if as many as allowed are left,
# saying how many and the oldest (for the wait); else count this request.
WINDOW_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[3]) then
  return {count, redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]}
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return {-1, ''}
"""
_script: list[Script] = []  # the script, registered once (EVALSHA, EVAL the first time)


class SlidingWindow(SimpleRateThrottle):
    """DRF's throttle, counted in Redis in one round trip when its cache is a Redis (see the
    module's docstring); DRF's own way on any other cache."""

    num_requests: int
    duration: int

    def allow_request(self, request: Request, view: APIView) -> bool:
        backend = caches[DEFAULT_CACHE_ALIAS] if self.cache is default_cache else self.cache
        if not isinstance(backend, RedisCache) or self.rate is None:
            return bool(super().allow_request(request, view))
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        client = backend._cache.get_client(write=True)  # type: ignore[attr-defined]
        if not _script:
            _script.append(client.register_script(WINDOW_SCRIPT))
        self.now = self.timer()
        count, oldest = _script[0](
            keys=[backend.make_and_validate_key(f"{self.key}:window")],
            args=[
                repr(self.now),
                repr(self.now - self.duration),
                self.num_requests,
                self.duration,
                f"{self.now!r}:{secrets.token_hex(4)}",
            ],
            client=client,
        )
        if count < 0:
            self.history = []
            return True
        # As DRF's history for its wait: as many entries, the oldest last.
        self.history = [self.now] * (count - 1) + [float(oldest)]
        return bool(self.throttle_failure())


class AnonRateThrottle(CacheDownAllows, throttling.AnonRateThrottle, SlidingWindow):
    pass


class UserRateThrottle(CacheDownAllows, throttling.UserRateThrottle, SlidingWindow):
    pass


class ScopedRateThrottle(CacheDownAllows, throttling.ScopedRateThrottle, SlidingWindow):
    pass


class PostThrottle(CacheDownAllows, SlidingWindow):
    """Counts a form's posts under ``scope`` (a rate of DEFAULT_THROTTLE_RATES) by ``ident``:
    the client address, or an e-mail address's digest."""

    def __init__(self, scope: str, ident: str) -> None:
        self.scope = scope
        self.ident = ident
        super().__init__()

    def get_cache_key(self, request: Request, view: APIView | None) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}


def limit_posts(
    address_scope: str, email_scope: str, template: str
) -> Callable[[Callable[..., HttpResponseBase]], Callable[..., HttpResponseBase]]:
    """A view decorator: refuse a POST with ``template`` (429) once the client address has
    used up the rate ``address_scope`` or the form's e-mail address the rate ``email_scope``.
    Every address is limited alike, taken or not, so the limit tells nothing."""

    def decorator(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponseBase:
            if request.method == "POST":
                email = str(request.POST.get("email", "")).strip().lower()[:254]
                throttles = [PostThrottle(address_scope, f"ip:{client_ip(request)}")]
                if email:
                    digest = hashlib.sha256(email.encode()).hexdigest()  # no addresses kept
                    throttles.append(PostThrottle(email_scope, f"email:{digest}"))
                # Every throttle counts this request, so check them all (no short-circuit).
                # (DRF's throttles take its Request and view; these read only META and the cache.)
                allowed = [
                    throttle.allow_request(request, None)  # type: ignore[arg-type]
                    for throttle in throttles
                ]
                if not all(allowed):
                    return render(request, template, status=429)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


# The password-reset form takes an e-mail address, not a password: rate-limited rather than
# locked ("password_reset", by client address and by e-mail address alike).
limit_password_reset = limit_posts(
    "password_reset", "password_reset", "registration/password_reset_limited.html"
)
# Sign-up: a club's members may share one address (club wifi), an e-mail address gets a few
# mails an hour at most ("signup", "signup_email").
limit_signup = limit_posts("signup", "signup_email", "accounts/signup_limited.html")
