"""Typed helpers that read settings from the environment and fail loudly on bad values."""

from __future__ import annotations

import os
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def envstr(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


def envbool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no).")


def envint(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None


def envlist(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_url(url: str) -> dict[str, object]:
    """Turn `postgres://user:pass@host:port/name` or `sqlite:///path` into a DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        path = unquote(parsed.path)
        # sqlite:///relative.db has path "/relative.db"; sqlite:////abs.db has "//abs.db".
        name = path[1:]
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": name or ":memory:"}
    if parsed.scheme in ("postgres", "postgresql", "pgsql"):
        options = {key: values[-1] for key, values in parse_qs(parsed.query).items()}
        host = unquote(parsed.hostname or "")
        if "host" in options:  # a Unix socket directory given as ?host=/path
            host = options.pop("host")
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": host,
            "PORT": str(parsed.port or ""),
            "OPTIONS": options,
            "CONN_MAX_AGE": envint("DATABASE_CONN_MAX_AGE", 60),
            "CONN_HEALTH_CHECKS": True,
        }
    raise ImproperlyConfigured(
        f"DATABASE_URL scheme {parsed.scheme!r} is not supported (use postgres:// or sqlite://)."
    )


def cache_from_url(name: str, url: str) -> dict[str, object]:
    """A cache: a Redis at `redis://host:port/db` (shared by every process that names it),
    or this process's memory when `url` is empty (`name` keeps it apart from the others)."""
    if not url:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": name}
    if urlparse(url).scheme not in ("redis", "rediss", "unix"):
        raise ImproperlyConfigured(
            f"The {name} cache needs a Redis URL (redis://...), not {url!r}."
        )
    return {
        "BACKEND": "core.cache.RedisCache",  # Django's, one client per server
        "LOCATION": url,
        # A cache that is down or slow costs a page little: it is read as a miss.
        "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
    }
