"""The leaderboard cache on a real Redis (LEADERBOARD_CACHE_URL): a worker's rating run leaves the
visitors' first page there for every web process, and a cache that goes away costs the
pages and the rating runs nothing but the time to read the database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.cache import EPOCH_KEY
from ladder.env import cache_from_url
from ladder.matches.models import Match
from ladder.matches.operations import confirm_match
from ratings.pipeline import rate_ladder
from tests.ratings.pages_support import text_of
from tests.ratings.test_reliability import require_postgres, wait_until
from tests.support import services

pytestmark = pytest.mark.services


@pytest.fixture
def shared_cache(redis_server: services.Process, settings) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """This process's cache on the session's Redis (its database 1; the broker uses 0)."""
    url = redis_server.extra["url"].removesuffix("/0") + "/1"
    settings.CACHES = {**settings.CACHES, "leaderboard": cache_from_url("leaderboard", url)}
    caches["leaderboard"].clear()
    yield url
    caches["leaderboard"].clear()


def board(client, slug: str) -> tuple[str, int]:  # type: ignore[no-untyped-def]
    """The leaderboard page's text, and how many queries serving it took."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/ladders/{slug}/")
    assert response.status_code == 200
    return text_of(response.content.decode()), len(queries)


@pytest.mark.django_db(transaction=True)
def test_a_workers_rating_run_leaves_the_first_page_in_the_shared_cache(  # type: ignore[no-untyped-def]
    client, club, make_match, shared_cache, celery_broker, worker_database_url, monkeypatch
) -> None:
    require_postgres()
    ladder, users = club
    match = make_match(
        ladder, [users[0]], [users[1]], [(21, 9), (21, 11)], timezone.localdate(), "pending"
    )
    monkeypatch.setenv("LEADERBOARD_CACHE_URL", shared_cache)  # the worker's settings read it
    worker = services.start_celery_worker(celery_broker, worker_database_url)
    try:
        confirm_match(match, users[1])  # the worker rates it after the commit
        wait_until(
            lambda: not Match.objects.filter(pk=match.pk, needs_rating=True).exists(),
            30,
            "the worker to rate the match",
        )
    finally:
        worker.stop()
    warmed, queries = board(client, ladder.slug)
    # The ladder; the rows are the worker's, from Redis.
    assert queries == 1
    assert "0 ranked · 2 provisional · 0 inactive" in warmed  # the rated match
    caches["leaderboard"].clear()
    # What the database gives (the current season too: none here).
    assert board(client, ladder.slug) == (warmed, 7)


@pytest.mark.django_db
def test_pages_and_rating_runs_carry_on_when_the_cache_goes_away(  # type: ignore[no-untyped-def]
    client, club, make_match, settings
) -> None:
    ladder, users = club
    try:
        redis = services.start_redis()
    except FileNotFoundError:
        services.missing("redis-server")
    try:
        settings.CACHES = {
            **settings.CACHES,
            "leaderboard": cache_from_url("leaderboard", redis.extra["url"]),
        }
        make_match(ladder, [users[0]], [users[1]], [(21, 9), (21, 11)], timezone.localdate())
        rate_ladder(ladder.pk)
        warmed, queries = board(client, ladder.slug)
        assert queries == 1
        assert "0 ranked · 2 provisional · 0 inactive" in warmed
    finally:
        redis.stop()
    # Read from the database instead (the current season too: none here).
    assert board(client, ladder.slug) == (warmed, 7)
    make_match(ladder, [users[2]], [users[3]], [(21, 19), (23, 21)], timezone.localdate())
    assert rate_ladder(ladder.pk).rated == 1  # its page is not kept, and that is all
    assert "0 ranked · 4 provisional · 0 inactive" in board(client, ladder.slug)[0]


@pytest.mark.django_db(transaction=True)
def test_a_workers_rating_run_shows_at_once_on_pages_answered_early(  # type: ignore[no-untyped-def]
    client,
    club,
    make_match,
    shared_cache,
    celery_broker,
    worker_database_url,
    monkeypatch,
    settings,
) -> None:
    """The rating happens in another process: its bump of the board replaces the epoch on
    the shared cache, so this process's first middleware no longer answers with the page
    kept before it."""
    require_postgres()
    settings.VISITOR_PAGES_EARLY = True
    ladder, users = club
    match = make_match(
        ladder, [users[0]], [users[1]], [(21, 9), (21, 11)], timezone.localdate(), "pending"
    )
    confirm_match(match, users[1])  # its rating waits in the broker for a worker
    before, _ = board(client, ladder.slug)
    assert board(client, ladder.slug) == (before, 0)  # answered early
    epoch = caches["leaderboard"].get(EPOCH_KEY)
    monkeypatch.setenv("LEADERBOARD_CACHE_URL", shared_cache)  # the worker's settings read it
    worker = services.start_celery_worker(celery_broker, worker_database_url)
    try:
        wait_until(
            lambda: not Match.objects.filter(pk=match.pk, needs_rating=True).exists(),
            30,
            "the worker to rate the match",
        )
    finally:
        worker.stop()
    assert caches["leaderboard"].get(EPOCH_KEY) != epoch
    after, queries = board(client, ladder.slug)
    assert queries > 0  # the full path: the versions from the database
    assert after != before and "0 ranked · 2 provisional · 0 inactive" in after
    assert board(client, ladder.slug) == (after, 0)  # kept again, under the new epoch
