"""The shared cache: Django's Redis backend with one client per server and a breaker; reads
and writes that take an outage for a miss; the pages' epoch.

- **One client per server**: Django's backend builds a ``redis.Redis`` for every call, whose
  constructor cost more CPU than the round trip (0.2 ms of a 0.7 ms kept page). A client is
  thread-safe (a pooled connection per command), so each server's is made once.
- **The breaker** (issue 29): a frozen Redis costs each call its socket timeout, several per
  request. After one timeout or refused connection, a process does not ask that server for
  ``CACHE_BREAKER_SECONDS``: calls fail at once with ``Skipped`` (a ``ConnectionError``, which
  callers read as "the cache is away"), then one call tries again. ``ratings.tasks`` uses it
  for the broker too. docs/DEPLOY.md says what each user of Redis does meanwhile.
- **The epoch** (``pages_changed``): a random value the pages and answers kept by
  ``ladder.pagecache`` are tagged with, replaced by the functions that change what they show:
  ``ratings.pipeline.bump_board`` (ratings, memberships, names), a ladder's save or deletion,
  a token's deletion or a change to its member, a change of moderators, and ``migrate``.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, cast
from urllib.parse import urlparse

import redis
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient
from django.db import transaction
from redis.client import Pipeline

log = logging.getLogger(__name__)

# Until when (time.monotonic()) each server ("host:port") is skipped, in this process.
_skipped_until: dict[str, float] = {}


class Skipped(redis.ConnectionError):
    """A call not made: its server failed a moment ago (see the module's docstring)."""


def server_of(url: str) -> str:
    """The server of a Redis URL, as the breaker names it: every database of one Redis
    freezes together."""
    parts = urlparse(url)
    return parts.netloc.rpartition("@")[2] or parts.path


def skipping(server: str) -> bool:
    return time.monotonic() < _skipped_until.get(server, 0.0)


def failed(server: str) -> None:
    """``server`` did not answer: skip it for a while."""
    seconds = settings.CACHE_BREAKER_SECONDS
    if seconds > 0 and not skipping(server):
        log.warning("Redis at %s did not answer: not asking it for %s s", server, seconds)
        _skipped_until[server] = time.monotonic() + seconds


@contextmanager
def guarded(server: str) -> Iterator[None]:
    """Refuse at once while ``server`` is skipped; skip it after a connection error or timeout."""
    if skipping(server):
        raise Skipped(f"Redis at {server} is skipped: it did not answer a moment ago")
    try:
        yield
    except (redis.ConnectionError, redis.TimeoutError):
        failed(server)
        raise


class GuardedPipeline(Pipeline):
    server = ""

    def execute(self, raise_on_error: bool = True) -> list[object]:
        with guarded(self.server):
            return super().execute(raise_on_error)


class GuardedRedis(redis.Redis):
    """redis-py's client, every command (scripts too) through the breaker."""

    server = ""

    def execute_command(self, *args: object, **options: object) -> object:
        with guarded(self.server):
            return super().execute_command(*args, **options)

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> GuardedPipeline:
        pipeline = GuardedPipeline(
            self.connection_pool, self.response_callbacks, transaction, shard_hint
        )
        pipeline.server = self.server
        return pipeline


class _DjangoClientPrivates(Protocol):
    """What this client reuses of Django's, which django-stubs leave out (private)."""

    _servers: list[str]
    _pools: dict[int, redis.ConnectionPool]
    _pool_class: type[redis.ConnectionPool]
    _pool_options: dict[str, object]

    def _get_connection_pool_index(self, write: bool) -> int: ...


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, GuardedRedis] = {}

    def get_client(self, key: object = None, *, write: bool = False) -> GuardedRedis:
        django = cast(_DjangoClientPrivates, self)
        index = django._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            if index not in django._pools:  # as Django's _get_connection_pool, for this index
                django._pools[index] = django._pool_class.from_url(
                    django._servers[index], **django._pool_options
                )
            client = GuardedRedis(connection_pool=django._pools[index])
            client.server = server_of(django._servers[index])
            self._clients[index] = client
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str, params: dict[str, object]) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient


# ---- the page cache: it only saves time; off, down or skipped, it reads as a miss -------

EPOCH_KEY = "pages:epoch"
# How long a kept answer lives: should the cache fail just as a change replaces the epoch,
# a stale page is served this long at most.
EARLY_SECONDS = 60


def cache_get_many(keys: list[str]) -> dict[str, Any]:
    """The entries ``keys`` of the page cache that are there, in one round trip."""
    try:
        return caches["leaderboard"].get_many(keys) if settings.LEADERBOARD_CACHE_SECONDS else {}
    except redis.RedisError as error:  # down, or skipped by the breaker
        log.info("The page cache could not be read (%s); reading the database", error)
        return {}


def cache_get(key: str) -> Any:
    return cache_get_many([key]).get(key)


def cache_set(key: str, value: object, timeout: int | None = None) -> None:
    limit = settings.LEADERBOARD_CACHE_SECONDS
    try:
        if limit:
            caches["leaderboard"].set(key, value, min(timeout or limit, limit))
    except redis.RedisError as error:
        log.info("The page cache could not be written (%s)", error)


def _new_epoch() -> None:
    cache_set(EPOCH_KEY, secrets.token_hex(8))


def pages_changed(**kwargs: object) -> None:
    """Replace the epoch now and once the transaction commits (a page built meanwhile from
    the data before the change may be kept under the first new one). Random, not a count: an
    epoch the cache lost is never made again. Also a ``post_migrate`` receiver."""
    if settings.VISITOR_PAGES_EARLY:
        _new_epoch()
        transaction.on_commit(_new_epoch)


def epoch_and(key: str) -> tuple[str | None, Any]:
    """The current epoch (made if there is none) and what ``key`` holds for it, in one round
    trip; (None, None) without a shared cache."""
    if not settings.VISITOR_PAGES_EARLY:
        return None, None
    found = cache_get_many([EPOCH_KEY, key])
    epoch, kept = found.get(EPOCH_KEY), found.get(key)
    if epoch is None:
        _new_epoch()
        return cache_get(EPOCH_KEY), None
    return epoch, kept[1] if kept is not None and kept[0] == epoch else None


def keep_for_epoch(key: str, epoch: str | None, value: object) -> None:
    """Keep ``value`` for ``epoch``, read (``epoch_and``) before the data it was built from."""
    if epoch is not None:
        cache_set(key, (epoch, value), EARLY_SECONDS)
