"""Smoke test of production: `deploy/run` (docs/DEPLOY.md) with DEBUG off, on PostgreSQL and Redis.

It starts gunicorn (2 workers), a Celery worker and beat from the Procfile on a throwaway
PostgreSQL cluster and Redis, then, over HTTP as browsers behind the site's TLS proxy would:
alice signs in and reports a match against bob, bob signs in and confirms it, and a visitor
sees both ratings move on the leaderboard. The same cluster is then stopped under the running
site: /readyz fails while it is down and recovers when it returns. Last, SIGTERM to
`deploy/run` stops every process it started.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import psycopg
import pytest
from django.utils import timezone

from tests.support import services

pytestmark = pytest.mark.services

HOST = "ladder.test"  # the site's name, in ALLOWED_HOSTS
PASSWORD = "smoke-test-pass-4711"
SETUP = f"""
from accounts.models import User
from ladder.clubs.models import Ladder
from ladder.clubs.services import join_ladder
ladder = Ladder.objects.create(name="Smoke Singles", slug="smoke", is_public=True)
for name in ("alice", "bob"):
    user = User.objects.create_user(name, name + "@example.org", {PASSWORD!r})
    user.display_name = name.capitalize()
    user.save(update_fields=["display_name"])
    join_ladder(user, ladder)
"""


@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    text: str

    def json(self) -> dict[str, object]:
        data = json.loads(self.text)
        assert isinstance(data, dict)
        return data


@dataclass
class Browser:
    """A browser reaching the site through its TLS proxy: it keeps cookies and sends the
    CSRF token with each form, and follows no redirect. (The proxy speaks plain HTTP to
    gunicorn and says `X-Forwarded-Proto: https`, which SECURE_PROXY_SSL_HEADER trusts.)"""

    port: int
    cookies: dict[str, str] = field(default_factory=dict)

    def get(self, path: str, *, host: str = HOST) -> Reply:
        return self.request("GET", path, host=host)

    def post(self, path: str, form: list[tuple[str, str]]) -> Reply:
        form = [*form, ("csrfmiddlewaretoken", self.cookies["csrftoken"])]
        return self.request("POST", path, form)

    def request(
        self,
        method: str,
        path: str,
        form: list[tuple[str, str]] | None = None,
        *,
        https: bool = True,
        host: str = HOST,
    ) -> Reply:
        headers = {"Host": host}
        if https:
            headers["X-Forwarded-Proto"] = "https"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"https://{host}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
        try:
            conn.request(method, path, body, headers)
            response = conn.getresponse()
            reply = Reply(response.status, response.headers, response.read().decode())
        finally:
            conn.close()
        for value in reply.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(value).items():
                self.cookies[name] = morsel.value
        return reply

    def sign_in(self, username: str) -> None:
        assert self.get("/accounts/login/").status == 200  # sets the CSRF cookie
        reply = self.post("/accounts/login/", [("username", username), ("password", PASSWORD)])
        assert reply.status == 302, reply.text[:2000]
        assert "sessionid" in self.cookies


@dataclass
class Site:
    cluster: services.Postgres
    process: services.Process
    port: int

    def probe(self, path: str) -> Reply:
        """A load balancer's probe: plain HTTP, addressed by IP (not an allowed host)."""
        return Browser(self.port).request("GET", path, https=False, host=f"127.0.0.1:{self.port}")


def _create_database(cluster: services.Postgres, name: str) -> str:
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return cluster.url(name)


def _wait_until_ready(site: Site, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if site.process.proc.poll() is not None:
            break
        try:
            if site.probe("/readyz").status == 200:
                return
        except OSError:
            pass  # not listening yet (release is migrating and collecting static files)
        time.sleep(0.2)
    pytest.fail(f"the site did not become ready:\n{site.process.output()[-4000:]}")


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    if services.postgres_bin() is None:
        services.missing("PostgreSQL")
    try:
        redis = services.start_redis()
    except FileNotFoundError:
        services.missing("redis-server")
    cluster = services.start_postgres()
    scratch = Path(tempfile.mkdtemp(prefix="ladder-smoke-"))
    port = services.free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k != "TEST_DATABASE_URL"},
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "DJANGO_SETTINGS_MODULE": "ladder.settings",
        "PYTHONUNBUFFERED": "1",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": HOST,
        "DATABASE_URL": _create_database(cluster, "ladder"),
        "CELERY_BROKER_URL": redis.extra["url"],
        "LEADERBOARD_CACHE_URL": redis.extra["url"].rsplit("/", 1)[0] + "/1",
        "STATIC_ROOT": str(scratch / "static"),
        "BEAT_SCHEDULE_FILE": str(scratch / "celerybeat-schedule"),
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
        "CELERY_CONCURRENCY": "1",
    }
    process = services._spawn([str(services.ROOT / "deploy" / "run")], env, "production")
    site = Site(cluster=cluster, process=process, port=port)
    try:
        _wait_until_ready(site)
        subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", SETUP],
            cwd=services.ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=60,
        )
        yield site
        # deploy/run's own SIGTERM handling stops web, worker and beat (not our group kill).
        process.proc.send_signal(signal.SIGTERM)
        assert process.proc.wait(timeout=30) == 0, process.output()[-3000:]
        deadline = time.monotonic() + 10
        while _group_alive(process.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _group_alive(process.proc.pid), "deploy/run left processes running"
    finally:
        if _group_alive(process.proc.pid):
            os.killpg(process.proc.pid, signal.SIGKILL)
        process.proc.wait(timeout=10)
        cluster.stop()
        redis.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _board_row(page: str, name: str) -> str:
    """The leaderboard table row of the player called ``name`` ("" when not on the board)."""
    for row in re.findall(r'<tr class="status-[^"]*">(.*?)</tr>', page, re.S):
        if f">{name}</a>" in row:
            return str(row)
    return ""


def test_report_confirm_and_see_it_on_the_leaderboard(site: Site) -> None:
    alice = Browser(site.port)
    alice.sign_in("alice")
    reply = alice.post(
        "/ladders/smoke/report/",
        [
            ("played_on", timezone.localdate().isoformat()),
            ("opponent_1", "bob"),
            ("game_a", "21"),
            ("game_b", "15"),
            ("game_a", "21"),
            ("game_b", "17"),
        ],
    )
    assert reply.status == 302, reply.text[:3000]
    found = re.fullmatch(r"/matches/(\d+)/", reply.headers["Location"])
    assert found, reply.headers["Location"]
    match = found.group(1)

    bob = Browser(site.port)
    bob.sign_in("bob")
    reply = bob.post(f"/matches/{match}/confirm/", [])
    assert reply.status == 302, reply.text[:3000]
    confirmed = time.monotonic()

    visitor = Browser(site.port)
    while True:
        page = visitor.get("/ladders/smoke/")
        assert page.status == 200
        winner, loser = _board_row(page.text, "Alice"), _board_row(page.text, "Bob")
        if winner and loser:
            break
        assert time.monotonic() - confirmed < 10, (
            f"not on the leaderboard 10 s after confirming:\n{site.process.output()[-3000:]}"
        )
        time.sleep(0.1)
    assert "▲" in winner and "1–0" in winner, winner
    assert "▼" in loser and "0–1" in loser, loser
    assert "sessionid" not in visitor.cookies

    for path in ("/healthz", "/readyz"):
        assert site.probe(path).status == 200
    assert site.probe("/readyz").json()["checks"] == {
        "database": "ok",
        "migrations": "ok",
        "broker": "ok",
    }
    # Every other page still wants HTTPS and its own host name.
    plain = Browser(site.port).request("GET", "/", https=False)
    assert (plain.status, plain.headers["Location"]) == (301, f"https://{HOST}/")
    assert Browser(site.port).get("/", host=f"127.0.0.1:{site.port}").status == 400


def test_readyz_fails_while_postgresql_is_down_and_recovers(site: Site) -> None:
    site.cluster.pause()
    try:
        for _ in range(4):  # each of the two web workers
            reply = site.probe("/readyz")
            assert reply.status == 503, reply.text
            body = reply.json()
            assert body["failing"] == ["database"], body
        assert site.probe("/healthz").status == 200  # alive: no reason to restart it
    finally:
        site.cluster.resume()
    deadline = time.monotonic() + 15
    ready_in_a_row = 0
    while ready_in_a_row < 4:
        assert time.monotonic() < deadline, site.probe("/readyz").text
        ready_in_a_row = ready_in_a_row + 1 if site.probe("/readyz").status == 200 else 0
        time.sleep(0.05)
