"""The shared cache: Django's Redis cache with one client per server and a breaker for a
server that does not answer; reading and writing it so that an outage is a miss; the pages'
epoch.

- **One client per server.** Django's ``RedisCacheClient.get_client`` builds a new
  ``redis.Redis`` for every cache call; redis-py's constructor fills in its table of reply
  parsers each time, which cost more CPU than the round trip itself on a visitor's kept page
  (0.2 ms of a 0.7 ms request). A client is safe to share between threads (it takes a
  connection from the pool for each command), so each server's is made once.
- **The breaker** (issue 29): a Redis that is frozen or gone costs a request its socket
  timeout on every call, several times per request (the token cache, the throttles, the page
  cache). After one connection error or timeout, this process stops asking that server for
  ``CACHE_BREAKER_SECONDS``: every call fails at once with ``Skipped`` (a ``ConnectionError``,
  which the callers already read as "the cache is away"), then one call tries it again. The
  broker's publishes use the same breaker (``ratings.tasks``): one frozen Redis, one pause.
  docs/DEPLOY.md says what each user of the cache does meanwhile.
- **The epoch** (``pages_changed``): a random value on ``caches["leaderboard"]`` that the kept
  visitor pages and API answers are tagged with (``ladder.pagecache``). It is replaced by the
  functions that change what they show: ``ratings.pipeline.bump_board`` (every rating run,
  membership and name change), a ladder's save or deletion, a token's deletion or a change
  to its member (``accounts.tokens``), and every ``migrate`` (each deploy runs one).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
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

    def execute(self, raise_on_error: bool = True) -> Any:
        with guarded(self.server):
            return super().execute(raise_on_error)


class GuardedRedis(redis.Redis):
    """redis-py's client, every command (scripts too) through the breaker."""

    server = ""

    def execute_command(self, *args: Any, **options: Any) -> Any:
        with guarded(self.server):
            return super().execute_command(*args, **options)

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> GuardedPipeline:
        pipeline = GuardedPipeline(
            self.connection_pool, self.response_callbacks, transaction, shard_hint
        )
        pipeline.server = self.server
        return pipeline


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, GuardedRedis] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> GuardedRedis:
        django: Any = self  # django-stubs leave out the client's private attributes
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
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient


# ---- the shared page cache ---------------------------------------------------------------
# It only saves time: one that is off, down or skipped reads as a miss and fails nothing.

EPOCH_KEY = "pages:epoch"
# How long an answer kept under an epoch lives: should the cache fail just when a change
# replaces the epoch (the change is saved all the same), a stale page is served this long.
EARLY_SECONDS = 60


def cache_get_many(keys: list[str]) -> dict[str, Any]:
    """The entries ``keys`` of the shared page cache that are there, in one round trip."""
    if not settings.LEADERBOARD_CACHE_SECONDS:
        return {}
    try:
        return caches["leaderboard"].get_many(keys)
    except redis.RedisError as error:  # down, or skipped by the breaker
        log.info("The page cache could not be read (%s); reading the database", error)
        return {}


def cache_get(key: str) -> Any:
    return cache_get_many([key]).get(key)


def cache_set(key: str, value: Any, timeout: int | None = None) -> None:
    """Keep ``value`` under ``key`` for ``timeout`` seconds at most ``LEADERBOARD_CACHE_SECONDS``."""
    limit = settings.LEADERBOARD_CACHE_SECONDS
    if limit:
        try:
            caches["leaderboard"].set(key, value, min(timeout or limit, limit))
        except redis.RedisError as error:
            log.info("The page cache could not be written (%s)", error)


def _new_epoch() -> None:
    cache_set(EPOCH_KEY, secrets.token_hex(8))


def pages_changed(**kwargs: Any) -> None:
    """What kept pages and answers show has changed: replace the epoch now and again once
    the transaction commits (a page built meanwhile from the data before the change may be
    kept under the first new epoch). Random rather than a count: an epoch the cache lost and
    made again is never an earlier one. (``kwargs``: it is also a ``post_migrate`` receiver.)"""
    if settings.VISITOR_PAGES_EARLY:
        _new_epoch()
        transaction.on_commit(_new_epoch)


def epoch_and(key: str) -> tuple[str | None, Any]:
    """The current epoch (made if the cache has none) and what is kept under ``key`` for it,
    in one round trip; (None, None) when there is no shared cache to answer from."""
    if not settings.VISITOR_PAGES_EARLY:
        return None, None
    found = cache_get_many([EPOCH_KEY, key])
    epoch, kept = found.get(EPOCH_KEY), found.get(key)
    if epoch is None:
        _new_epoch()
        return cache_get(EPOCH_KEY), None
    return epoch, kept[1] if kept is not None and kept[0] == epoch else None


def keep_for_epoch(key: str, epoch: str | None, value: object) -> None:
    """Keep ``value`` under ``key`` for ``epoch``, read (``epoch_and``) before the data it
    was built from."""
    if epoch is not None:
        cache_set(key, (epoch, value), EARLY_SECONDS)
