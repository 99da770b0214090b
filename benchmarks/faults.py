"""Degrade, don't stall (issue 29.4): a small load of reports and confirms over the API while
Redis is frozen and PostgreSQL restarts, under production settings.

    .venv/bin/python benchmarks/faults.py [--seconds 10] [--clients 2] [--json]

Starts a throwaway PostgreSQL and Redis (as the tests do; Redis is the broker and both
caches, as on one small server), a ladder of 40 members with API tokens, a real Celery
worker and ``gunicorn -w 2``. ``--clients`` threads each report a match as one member and
confirm it as the opponent, over and over, and a visitor reads the leaderboard. Phases:

1. ``normal`` for ``--seconds``;
2. ``redis frozen``: Redis stopped with SIGSTOP (it takes connections, never answers) for
   ``--seconds``; latencies counted from one second in (each web process meets one timeout
   first, then its breaker skips Redis: core/cache.py);
3. ``redis back``: SIGCONT, ``--seconds``;
4. ``postgres restart``: PostgreSQL stopped (fast) and started again under the load;
   a client whose action failed waits for the database and retries once, as a client
   would (a report under the same Idempotency-Key). Counted: actions that committed and
   yet answered 5xx (a report found by its key, a confirm by its match's state), retries
   that did not answer 2xx.
5. Afterwards: how many confirmed matches still wait 5 s after the load stopped (beat does
   not run here, so these would wait for the sweep), by the phase they were confirmed in.

Prints per phase and kind the requests, p50 / p95 / max and the answers that were not 2xx;
``--json`` prints the same as JSON (tests/ladder/test_faults.py reads it).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.pipeline import percentile, setup_django  # noqa: E402
from tests.support import services  # noqa: E402

HOST = "localhost"
HEADERS = {"Host": HOST, "X-Forwarded-Proto": "https"}


def call(
    port: int,
    method: str,
    path: str,
    token: str | None = None,
    body: Any = None,
    key: str | None = None,
) -> tuple[int, bytes]:
    headers = dict(HEADERS)
    if key:
        headers["Idempotency-Key"] = key
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body), "application/json"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, data, headers)
        response = conn.getresponse()
        return response.status, response.read()
    except OSError:
        return 599, b""  # no answer at all
    finally:
        conn.close()


class Load:
    """The clients: reports and confirms, and a visitor, recording (phase, kind, started,
    seconds, status) for every request."""

    def __init__(self, port: int, members: list[tuple[str, str]], slug: str) -> None:
        self.port, self.members, self.slug = port, members, slug
        self.phase = "normal"
        self.phase_started = time.monotonic()
        self.phase_began = [("normal", time.time())]  # wall clock, to compare with the rows
        self.stop = threading.Event()
        self.records: list[tuple[str, str, float, float, int]] = []
        self.failed_actions: list[tuple[str, int | None, dict[str, Any]]] = []
        self.lock = threading.Lock()

    def set_phase(self, phase: str) -> None:
        self.phase, self.phase_started = phase, time.monotonic()
        self.phase_began.append((phase, time.time()))

    def timed(
        self,
        kind: str,
        method: str,
        path: str,
        token: str | None,
        body: Any = None,
        key: str | None = None,
    ) -> tuple[int, bytes]:
        phase, since = self.phase, time.monotonic() - self.phase_started
        started = time.monotonic()
        status, answer = call(self.port, method, path, token, body, key)
        with self.lock:
            self.records.append((phase, kind, since, time.monotonic() - started, status))
        return status, answer

    def client(self, number: int) -> None:
        rng = random.Random(number)
        while not self.stop.is_set():
            (a, a_token), (b, b_token) = rng.sample(self.members, 2)
            games = [[21, rng.randint(0, 19)], [rng.randint(0, 19), 21], [21, rng.randint(0, 19)]]
            report = {
                "ladder": self.slug,
                "played_on": (date.today() - timedelta(days=rng.randint(0, 6))).isoformat(),
                "side_a": [a],
                "side_b": [b],
                "games": games,
            }
            key = str(uuid.UUID(int=rng.getrandbits(128)))
            status, answer = self.timed("report", "POST", "/api/v1/matches/", a_token, report, key)
            if status >= 500:
                sent = {"report": report, "key": key, "token": a_token, "reporter": a}
                self.failed_actions.append(("report", None, sent))
                continue
            if status != 201:
                continue
            match_id = json.loads(answer)["id"]
            path = f"/api/v1/matches/{match_id}/confirm/"
            status, _ = self.timed("confirm", "POST", path, b_token, {})
            if status >= 500:
                self.failed_actions.append(("confirm", match_id, {"token": b_token}))

    def visitor(self) -> None:
        while not self.stop.is_set():
            self.timed("visitor page", "GET", f"/ladders/{self.slug}/", None)
            time.sleep(0.05)


def summary(
    records: list[tuple[str, str, float, float, int]], skip: dict[str, float]
) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[tuple[float, int]]] = defaultdict(list)
    for phase, kind, since, seconds, status in records:
        if since >= skip.get(phase, 0.0):
            groups[(phase, kind)].append((seconds, status))
    rows = []
    for (phase, kind), items in groups.items():
        times = [seconds for seconds, _ in items]
        rows.append(
            {
                "phase": phase,
                "kind": kind,
                "requests": len(items),
                "p50_ms": round(percentile(times, 0.5) * 1000, 1),
                "p95_ms": round(percentile(times, 0.95) * 1000, 1),
                "max_ms": round(max(times) * 1000, 1),
                "not_2xx": sorted({status for _, status in items if status >= 300}),
                "count_5xx": sum(1 for _, status in items if status >= 500),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    cluster = services.start_postgres()
    redis = services.start_redis()
    processes: list[services.Process] = [redis]
    try:
        subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres"]
            + ["-qc", "create database faults"],
            check=True,
        )
        database_url = cluster.url("faults")
        base = redis.extra["url"].rsplit("/", 1)[0]
        os.environ.update(
            CELERY_BROKER_URL=f"{base}/0",
            CACHE_URL=f"{base}/1",
            LEADERBOARD_CACHE_URL=f"{base}/2",
            API_THROTTLE_USER="1000000/min",
            API_THROTTLE_MATCH_REPORT="1000000/hour",
            RATING_SWEEP_SECONDS="100000",  # no beat runs anyway: nothing waits for a sweep
        )
        setup_django(database_url)
        os.environ["SECURE_SSL_REDIRECT"] = "1"
        members, slug = prepare()
        from django.db import connections

        connections.close_all()
        worker = services.start_celery_worker(os.environ["CELERY_BROKER_URL"], database_url)
        processes.append(worker)
        site = services.start_gunicorn({}, "--workers", "2")
        processes.append(site)
        port = int(site.extra["url"].rsplit(":", 1)[1])
        for _ in range(10):  # each gunicorn worker's first requests load the code
            call(port, "GET", f"/ladders/{slug}/")
            call(port, "GET", f"/api/v1/ladders/{slug}/leaderboard/", members[0][1])
        load = Load(port, members, slug)
        threads = [threading.Thread(target=load.client, args=(n,)) for n in range(args.clients)]
        threads.append(threading.Thread(target=load.visitor))
        for thread in threads:
            thread.start()
        try:
            time.sleep(args.seconds)
            load.set_phase("redis frozen")
            os.killpg(redis.proc.pid, signal.SIGSTOP)
            time.sleep(args.seconds)
            os.killpg(redis.proc.pid, signal.SIGCONT)
            load.set_phase("redis back")
            time.sleep(args.seconds)
            load.set_phase("postgres restart")
            time.sleep(1)
            cluster.pause()
            time.sleep(1)
            cluster.resume()
            time.sleep(args.seconds)
        finally:
            load.stop.set()
            for thread in threads:
                thread.join(60)
        outcome = after_faults(load, port)
        outcome["phases"] = summary(load.records, {"redis frozen": 1.0})
        outcome["unrated_after_5s"] = wait_rated(slug)
        outcome["waiting_by_phase"] = waiting_by_phase(slug, load.phase_began)
    finally:
        for process in reversed(processes):
            if process is redis:
                os.killpg(redis.proc.pid, signal.SIGCONT)
            process.stop()
        cluster.stop()
    if args.json:
        print(json.dumps(outcome))
        return
    print(f"{args.clients} clients, {args.seconds:g} s per phase; gunicorn -w 2, a Celery worker\n")
    print(
        "| phase | kind | requests | p50 | p95 | max | not 2xx |\n| --- | --- | --- | --- | --- | --- | --- |"
    )
    for row in outcome["phases"]:
        print(
            f"| {row['phase']} | {row['kind']} | {row['requests']} | {row['p50_ms']} ms"
            f" | {row['p95_ms']} ms | {row['max_ms']} ms | {row['not_2xx'] or ''} |"
        )
    print(
        f"\nactions answered 5xx: {outcome['failed_actions']}; of them committed: "
        f"{outcome['committed_5xx_by_kind']}; retries not 2xx: {outcome['retries_not_2xx']}; "
        f"confirmed matches still waiting 5 s later (left to the sweep): "
        f"{outcome['unrated_after_5s']}, by the phase they were confirmed in: "
        f"{outcome['waiting_by_phase']}"
    )


def prepare() -> tuple[list[tuple[str, str]], str]:
    from accounts.tokens import issue_token
    from ladder.clubs.models import Ladder
    from ladder.clubs.services import join_ladder
    from tests.factories import UserFactory

    ladder = Ladder.objects.create(
        name="Faults", slug="faults", max_pending_reports=100_000, reports_per_hour=100_000
    )
    members = []
    for n in range(40):
        user = UserFactory(username=f"f{n:02d}", display_name=f"Fault Player {n}")
        join_ladder(user, ladder)
        members.append((user.username, issue_token(user, "faults")[1]))
    return members, ladder.slug


def after_faults(load: Load, port: int) -> dict[str, Any]:
    """Each action that answered 5xx: did it commit? Its retry (once the database answers)
    must answer 2xx: the same success for a confirm that happened, and for a report sent
    again under its key the match it made (or the one made now, if the first was not)."""
    from django.db import connections

    from ladder.matches.models import Match

    connections.close_all()
    committed = {"report": 0, "confirm": 0}
    retries_bad = 0
    for kind, match_id, data in load.failed_actions:
        if kind == "confirm":
            if Match.objects.get(pk=match_id).state == "confirmed":
                committed["confirm"] += 1
            path = f"/api/v1/matches/{match_id}/confirm/"
            status, _ = call(port, "POST", path, data["token"], {})
        else:
            mine = Match.objects.filter(reporter__username=data["reporter"])
            committed["report"] += mine.filter(report_key=data["key"]).exists()
            status, _ = call(
                port, "POST", "/api/v1/matches/", data["token"], data["report"], data["key"]
            )
        retries_bad += not 200 <= status < 300
    return {
        "failed_actions": len(load.failed_actions),
        "committed_5xx": sum(committed.values()),
        "committed_5xx_by_kind": committed,
        "retries_not_2xx": retries_bad,
    }


def waiting_by_phase(slug: str, phase_began: list[tuple[str, float]]) -> dict[str, int]:
    """The confirmed matches still waiting, by the phase they were confirmed in."""
    from ladder.matches.models import Match

    waiting: dict[str, int] = {}
    confirmed = Match.objects.filter(ladder__slug=slug, needs_rating=True)
    for decided_at in confirmed.values_list("decided_at", flat=True):
        phase = max((at, name) for name, at in phase_began if at <= decided_at.timestamp())[1]
        waiting[phase] = waiting.get(phase, 0) + 1
    return waiting


def wait_rated(slug: str) -> int:
    from ladder.matches.models import Match

    deadline = time.monotonic() + 5
    waiting = Match.objects.filter(ladder__slug=slug, needs_rating=True)
    while waiting.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    return waiting.count()


if __name__ == "__main__":
    main()
