"""Throughput of the visitor pages and the API under gunicorn, as a ratio of the smallest
Django site served the same way in the same run (issue 17 item 3).

    .venv/bin/python benchmarks/throughput.py [--duration 10] [--connections 8]
        [--ladders 2000:40000,10000:200000] [--database-url URL] [--keep]

1. Starts a throwaway PostgreSQL 15 cluster and Redis (as the tests do) and builds one
   ladder per ``--ladders`` entry (players:matches, synthetic singles histories imported
   with ``import_matches``, which writes with COPY), then ``VACUUM (ANALYZE)``.
   ``--database-url`` reuses a database an earlier ``--keep`` run built.
2. Serves production settings (DEBUG off, Redis as the caches and the broker, a real
   Celery worker) with ``gunicorn -w 2``, and the smallest Django site
   (``benchmarks/minimal_site.py``: one view, no database, no middleware) with the same
   gunicorn command, one at a time.
3. Runs ``wrk`` with ``--connections`` connections for ``--duration`` seconds against the
   minimal site, then each ladder's leaderboard, top player's page and API leaderboard
   (an authenticated client with a token: the user throttle is raised for the benchmark,
   API_THROTTLE_USER=1000000/min, since one client at 8 connections asks thousands a
   second), then the minimal site again; the ratio is against the mean of the two
   minimal runs.
4. Confirm → visible: a match reported and confirmed over the API (a real worker rates
   it), then polled on the API leaderboard until its rating shows.

Prints a markdown table (docs/BENCHMARKS.md records it).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from django.utils import timezone  # noqa: E402

from benchmarks.pipeline import (  # noqa: E402
    cpu_check,
    import_file,
    percentile,
    setup_django,
    synthetic_history,
)
from tests.support import services  # noqa: E402

MINIMAL = "benchmarks.minimal_site:application"
HOST = "localhost"
# As behind the site's TLS proxy: production's HTTPS redirect stays on.
HEADERS = {"Host": HOST, "X-Forwarded-Proto": "https"}


def gunicorn(app: str, env: dict[str, str], workers: int = 2) -> services.Process:
    """``gunicorn -w 2`` as the Procfile starts it (no access log, for either site)."""
    port = services.free_port()
    process = services._spawn(
        [
            sys.executable,
            "-m",
            "gunicorn",
            app,
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--no-control-socket",
        ],
        {**os.environ, "PYTHONUNBUFFERED": "1", **env},
        "gunicorn",
    )
    services.wait_for_port(port)
    process.extra["port"] = str(port)
    return process


def request(
    port: int,
    method: str,
    path: str,
    body: object = None,
    token: str | None = None,
) -> tuple[int, bytes]:
    headers = dict(HEADERS)
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None
    if body is not None:
        data = json.dumps(body)
        headers["Content-Type"] = "application/json"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, data, headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def wrk(port: int, path: str, duration: int, connections: int, token: str | None = None) -> dict:
    """requests/s, p50 and p99 (ms) and errors of one wrk run (after a warm-up request)."""
    status, _ = request(port, "GET", path, token=token)
    assert status == 200, (path, status)
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency"]
    for name, value in HEADERS.items():
        cmd += ["-H", f"{name}: {value}"]
    if token:
        cmd += ["-H", f"Authorization: Token {token}"]
    out = subprocess.run(
        [*cmd, f"http://127.0.0.1:{port}{path}"], check=True, capture_output=True, text=True
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]

    def latency(q: str) -> float:
        value, unit = re.search(rf"\s{q}%\s+([\d.]+)(us|ms|s)", out).groups()  # type: ignore[union-attr]
        return float(value) * UNITS[unit]

    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {
        "rps": rps,
        "p50": latency("50"),
        "p99": latency("99"),
        "non2xx": int(bad.group(1)) if bad else 0,
        "socket_errors": errors.group(1) if errors else "",
    }


def build(ladders: list[tuple[int, int]]) -> None:
    from django.db import connection, connections

    today = timezone.localdate()
    for seed, (players, matches) in enumerate(ladders, 11):
        started = time.perf_counter()
        import_file(synthetic_history(players, matches, seed, today), f"l{players}")
        print(
            f"built l{players}: {players:,} players, {matches:,} matches "
            f"in {time.perf_counter() - started:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    connection.cursor().execute("VACUUM (ANALYZE)")
    connections.close_all()


def prepare(players: int) -> dict[str, str]:
    """The ladder's top player and two API clients (with tokens) of its members."""
    from accounts.tokens import issue_token
    from ladder.clubs.models import Ladder
    from ratings.models import PlayerRating

    ladder = Ladder.objects.get(slug=f"l{players}")
    ladder.max_pending_reports = ladder.reports_per_hour = 100_000
    ladder.save()
    top = PlayerRating.objects.filter(ladder=ladder).order_by("-rating").select_related("user")
    rows = list(top[:3])
    return {
        "slug": ladder.slug,
        "top": rows[0].user.username,
        "a": rows[1].user.username,
        "a_token": issue_token(rows[1].user, "bench")[1],
        "b": rows[2].user.username,
        "b_token": issue_token(rows[2].user, "bench")[1],
    }


def confirm_to_visible(port: int, who: dict[str, str], samples: int) -> list[float]:
    """Report (as a) and confirm (as b) over the API; poll the API leaderboard (searching
    for a) until a's match count grows: the time from the confirmation to that."""
    rng = random.Random()  # a reused database holds earlier runs: no repeated match
    board = f"/api/v1/ladders/{who['slug']}/leaderboard/?q={who['a']}"

    def played() -> int:
        status, body = request(port, "GET", board, token=who["a_token"])
        assert status == 200, (status, body[:500])
        row = next(r for r in json.loads(body)["results"] if r["username"] == who["a"])
        return int(row["wins"]) + int(row["losses"])

    times = []
    for _ in range(samples):
        before = played()
        status, body = request(
            port,
            "POST",
            "/api/v1/matches/",
            {
                "ladder": who["slug"],
                "played_on": timezone.localdate().isoformat(),
                "side_a": [who["a"]],
                "side_b": [who["b"]],
                "games": [
                    [21, rng.randint(0, 19)],
                    [rng.randint(0, 19), 21],
                    [21, rng.randint(0, 19)],
                ],
            },
            token=who["a_token"],
        )
        assert status == 201, (status, body[:500])
        match_id = json.loads(body)["id"]
        started = time.perf_counter()
        status, body = request(
            port, "POST", f"/api/v1/matches/{match_id}/confirm/", {}, token=who["b_token"]
        )
        assert status == 200, (status, body[:500])
        while played() == before:
            if time.perf_counter() - started > 30:
                raise RuntimeError(f"match {match_id} not visible after 30 s")
            time.sleep(0.005)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--ladders", default="2000:40000,10000:200000")
    parser.add_argument("--database-url", help="reuse a database built by a --keep run")
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    parser.add_argument("--samples", type=int, default=20, help="confirm → visible samples")
    parser.add_argument("--only", default="", help="comma-separated page kinds to run")
    args = parser.parse_args()
    ladders = [tuple(int(n) for n in spec.split(":")) for spec in args.ladders.split(",")]

    cluster = None
    if args.database_url:
        database_url = args.database_url
    else:
        cluster = services.start_postgres()
        subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres"]
            + ["-qc", "create database bench"],
            check=True,
        )
        database_url = cluster.url("bench")
    redis = services.start_redis()
    base = redis.extra["url"].rsplit("/", 1)[0]
    os.environ.update(
        CELERY_BROKER_URL=f"{base}/0",
        CACHE_URL=f"{base}/1",
        LEADERBOARD_CACHE_URL=f"{base}/2",
        API_THROTTLE_USER="1000000/min",
        API_THROTTLE_MATCH_REPORT="1000000/hour",
        ALLOWED_HOSTS=HOST,
    )
    processes: list[services.Process] = [redis]
    rows: list[tuple[str, ...]] = []
    try:
        setup_django(database_url)
        os.environ["SECURE_SSL_REDIRECT"] = "1"  # setup_django turns it off; wrk says https
        if not args.database_url:
            build(ladders)  # type: ignore[arg-type]
        clients = {players: prepare(players) for players, _ in ladders}
        from django.db import connections

        connections.close_all()
        cpu = [cpu_check()]
        minimal = gunicorn(MINIMAL, {"DJANGO_SETTINGS_MODULE": "benchmarks.minimal_site"})
        floor = [wrk(int(minimal.extra["port"]), "/", args.duration, args.connections)]
        minimal.stop()

        worker = services.start_celery_worker(os.environ["CELERY_BROKER_URL"], database_url)
        processes.append(worker)
        site = gunicorn("ladder.wsgi", {})
        processes.append(site)
        port = int(site.extra["port"])
        measured = []
        for (players, matches), who in zip(ladders, clients.values(), strict=True):
            pages = {
                "leaderboard": (f"/ladders/{who['slug']}/", None),
                "player page": (f"/players/{who['top']}/?ladder={who['slug']}", None),
                "API leaderboard": (f"/api/v1/ladders/{who['slug']}/leaderboard/", who["a_token"]),
            }
            for kind, (path, token) in pages.items():
                if args.only and kind not in args.only.split(","):
                    continue
                result = wrk(port, path, args.duration, args.connections, token)
                measured.append((f"{kind}, {players:,} players / {matches:,} matches", result))
                print(kind, players, result, file=sys.stderr, flush=True)
        latencies: list[tuple[str, list[float]]] = []
        if args.samples:
            for (players, matches), who in zip(ladders, clients.values(), strict=True):
                label = f"confirm → visible, {players:,} players / {matches:,} matches"
                latencies.append((label, confirm_to_visible(port, who, args.samples)))
        site.stop()

        minimal = gunicorn(MINIMAL, {"DJANGO_SETTINGS_MODULE": "benchmarks.minimal_site"})
        floor.append(wrk(int(minimal.extra["port"]), "/", args.duration, args.connections))
        minimal.stop()
        cpu.append(cpu_check())

        base_rps = sum(r["rps"] for r in floor) / len(floor)
        rows.append(
            (
                "minimal Django site (before, after)",
                " / ".join(f"{r['rps']:,.0f}" for r in floor),
                "100%",
                " / ".join(f"{r['p99']:.1f} ms" for r in floor),
                "",
            )
        )
        for label, r in measured:
            errors = r["non2xx"] or r["socket_errors"]
            rows.append(
                (
                    label,
                    f"{r['rps']:,.0f}",
                    f"{100 * r['rps'] / base_rps:.0f}%",
                    f"{r['p99']:.1f} ms",
                    f"errors: {errors}" if errors else "",
                )
            )
        for label, times in latencies:
            rows.append(
                (
                    label,
                    "",
                    "",
                    "",
                    f"p50 {percentile(times, 0.5) * 1000:.0f} ms, "
                    f"p95 {percentile(times, 0.95) * 1000:.0f} ms, "
                    f"max {max(times) * 1000:.0f} ms ({len(times)} samples)",
                )
            )
        rows.append(
            (
                "CPU check before, after (3M-step loop)",
                "",
                "",
                "",
                " → ".join(f"{c:.0f} ms" for c in cpu),
            )
        )
    finally:
        for process in reversed(processes):
            process.stop()
        if cluster is not None:
            if args.keep:
                print(f"kept: --database-url {database_url}", file=sys.stderr)
            else:
                cluster.stop()
    print(
        f"wrk -t2 -c{args.connections} -d{args.duration}s; gunicorn -w 2\n\n"
        "| measure | requests/s | of minimal | p99 | notes |\n| --- | --- | --- | --- | --- |"
    )
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
