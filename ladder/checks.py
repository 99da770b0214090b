"""Deployment checks of our own, run by `manage.py check --deploy`."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register
from django.http.request import split_domain_port, validate_host

PER_PROCESS_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


@register(Tags.security, Tags.caches, deploy=True)
def check_shared_cache(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: object
) -> list[CheckMessage]:
    """The API throttles and the password-reset limit count in the default cache: a cache
    per process lets N web processes allow N times the rate."""
    if settings.CACHES["default"]["BACKEND"] in PER_PROCESS_CACHES:
        return [
            Warning(
                "The default cache is per process, so each web process counts the API "
                "throttles and the password-reset limit on its own.",
                hint="Set CACHE_URL to a Redis shared by the web processes (redis://host:6379/2).",
                id="ladder.W001",
            )
        ]
    return []


@register(deploy=True)
def check_time_zone(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: object
) -> list[CheckMessage]:
    """A club far from London that forgets TIME_ZONE has its members' "today" refused as a
    future date for part of each day, and its matches dated by London's calendar."""
    if not settings.TIME_ZONE_SET:
        return [
            Warning(
                f"TIME_ZONE is not set, so the club's dates (members' today, report dates, "
                f"expiry, club nights) follow {settings.DEFAULT_TIME_ZONE}'s clock.",
                hint="Set TIME_ZONE to the club's time zone (an IANA name such as "
                "Pacific/Auckland), even if it is Europe/London.",
                id="ladder.W002",
            )
        ]
    return []


@register(Tags.security, deploy=True)
def check_site_url(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: object
) -> list[CheckMessage]:
    """Links in e-mails (sign-up, matches to confirm, disputes) are SITE_URL + a path: they are
    sent after commit, often by the worker, with no request to take an address from. A
    SITE_URL the site does not answer to (unset: http://127.0.0.1:8000) mails dead links."""
    parts = urlsplit(settings.SITE_URL)
    host, _ = split_domain_port(parts.netloc)
    if parts.scheme in ("http", "https") and host and validate_host(host, settings.ALLOWED_HOSTS):
        return []
    return [
        Warning(
            f"SITE_URL is {settings.SITE_URL!r}, not an address this site answers to "
            "(ALLOWED_HOSTS): links in its e-mails would lead nowhere.",
            hint="Set SITE_URL to the site's public address, e.g. https://ladder.example.org.",
            id="ladder.W003",
        )
    ]
