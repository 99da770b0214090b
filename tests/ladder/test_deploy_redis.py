"""Issue 22 What 5: the deploy files give the caches a Redis of their own, bounded
(maxmemory, LRU eviction), apart from the broker's, whose queue must never be evicted; and
that Redis starts with the configuration as written and evicts instead of refusing."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
import redis

from tests.support import services

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def settings_of(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    pairs = (line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))
    return {name: value for name, value in pairs}


def test_the_example_settings_put_the_caches_apart_from_the_broker() -> None:
    env = settings_of(DEPLOY / "ladder.env.example")
    broker = urlparse(env["CELERY_BROKER_URL"])
    caches = [urlparse(env["CACHE_URL"]), urlparse(env["LEADERBOARD_CACHE_URL"])]
    conf = (DEPLOY / "redis-cache.conf").read_text().splitlines()
    assert "maxmemory-policy allkeys-lru" in conf
    assert any(line.startswith("maxmemory ") for line in conf)
    for cache in caches:
        assert cache.port == 6380 and f"port {cache.port}" in conf
        assert cache.port != broker.port  # another server: eviction is per server
    assert caches[0].path != caches[1].path
    unit = (DEPLOY / "systemd" / "ladder-redis-cache.service").read_text()
    assert "/etc/redis/ladder-cache.conf" in unit
    assert "ladder-redis-cache.service" in (DEPLOY / "systemd" / "ladder.target").read_text()


@pytest.mark.services
def test_the_cache_redis_evicts_rather_than_grows() -> None:
    binary = shutil.which("redis-server")
    if binary is None:
        services.missing("redis-server")
    port = services.free_port()
    process = subprocess.Popen(
        [binary, str(DEPLOY / "redis-cache.conf"), "--port", str(port), "--maxmemory", "4mb"],
        stdout=subprocess.DEVNULL,
    )
    try:
        services.wait_for_port(port)
        client = redis.Redis(port=port)
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "allkeys-lru"}
        for n in range(2000):  # 20 MB of pages into 4 MB
            client.set(f"page:{n}", b"x" * 10_000)
        time.sleep(0.1)
        assert client.info("memory")["used_memory"] < 6 * 1024 * 1024
        assert client.get("page:1999") is not None  # the newest stay
        assert client.info("stats")["evicted_keys"] > 0
    finally:
        process.terminate()
        process.wait(10)
