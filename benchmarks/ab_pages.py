"""Page server time of two checkouts of this project on the same database, alternating.

    .venv/bin/python benchmarks/ab_pages.py OLD_DIR NEW_DIR [--rounds 4] [--requests 30]
        [--players 10000] [--matches 200000] [--pages lb,lb20,q,player,m_lb,m_player]

OLD_DIR and NEW_DIR are checkouts (say `git worktree add /tmp/old <commit>`). A throwaway
PostgreSQL cluster gets the synthetic history of benchmarks/pipeline.py (imported with
NEW_DIR's code, then vacuumed); one server process per checkout then answers the same
requests, the two taking turns (and swapping who goes first) round by round, with the
leaderboard cache off. Prints each page's median p50 over the rounds and the ratio: on a
machine whose speed drifts by the minute, this ratio is steadier than either figure.
Pages: lb, lb20, q (search), player, h2h and, prefixed with m_, as a signed-in member.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def serve(root: str, database_url: str) -> None:
    """One checkout's server: reads "page count" lines, answers with [p50, p95] in seconds."""
    sys.path.insert(0, root)
    os.chdir(root)
    from benchmarks.pipeline import percentile, setup_django

    setup_django(database_url)
    from django.test import Client, override_settings

    from accounts.models import User
    from ratings.models import PlayerRating

    top, second = PlayerRating.objects.filter(ladder__slug="big").order_by("-rating")[:2]
    me, them = top.user.username, second.user.username
    paths = {
        "lb": "/ladders/big/",
        "lb20": "/ladders/big/?page=20",
        "q": "/ladders/big/?q=player0012",
        "player": f"/players/{me}/",
        "h2h": f"/ladders/big/head-to-head/?a={me}&b={them}",
        "list": "/ladders/",
    }
    visitor = Client(HTTP_HOST="localhost")
    member = Client(HTTP_HOST="localhost")
    member.force_login(User.objects.get(username=them))
    with override_settings(LEADERBOARD_CACHE_SECONDS=0):
        print("ready", flush=True)
        for line in sys.stdin:
            name, count = line.split()
            client = member if name.startswith("m_") else visitor
            path = paths[name.removeprefix("m_")]
            client.get(path)  # warm
            times = []
            for _ in range(int(count)):
                started = time.perf_counter()
                response = client.get(path)
                times.append(time.perf_counter() - started)
                assert response.status_code == 200, (path, response.status_code)
            print(json.dumps([percentile(times, 0.5), percentile(times, 0.95)]), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--pages", default="lb,lb20,q,player,m_lb,m_player")
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(*args.serve)
        return

    sys.path.insert(0, str(ROOT))
    from django.utils import timezone

    from benchmarks.pipeline import import_file, setup_django, synthetic_history
    from tests.support import services

    cluster = services.start_postgres()
    try:
        subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres"]
            + ["-qc", "create database bench"],
            check=True,
        )
        url = cluster.url("bench")
        setup_django(url)
        import_file(synthetic_history(args.players, args.matches, 3, timezone.localdate()), "big")
        from django.db import connection, connections

        connection.cursor().execute("VACUUM (ANALYZE)")
        connections.close_all()
        servers = {
            name: subprocess.Popen(
                [sys.executable, __file__, "old", "new", "--serve", checkout, url],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for name, checkout in (("old", args.old), ("new", args.new))
        }
        for server in servers.values():
            assert server.stdout is not None and server.stdout.readline().startswith("ready")
        pages = args.pages.split(",")
        p50s: dict[tuple[str, str], list[float]] = {(k, p): [] for k in servers for p in pages}
        for round_ in range(args.rounds):
            order = list(servers.items())
            for page in pages:
                for name, server in order if round_ % 2 == 0 else order[::-1]:
                    ask(server, f"{page} {args.requests}\n")
                    p50s[(name, page)].append(answer(server)[0])
        print("| page | old p50 | new p50 | new / old |\n| --- | --- | --- | --- |")
        for page in pages:
            old = statistics.median(p50s[("old", page)]) * 1000
            new = statistics.median(p50s[("new", page)]) * 1000
            print(f"| {page} | {old:.1f} ms | {new:.1f} ms | {new / old:.2f} |")
        for server in servers.values():
            server.terminate()
    finally:
        from django.db import connections

        connections.close_all()
        cluster.stop()


def ask(server: subprocess.Popen[str], line: str) -> None:
    assert server.stdin is not None
    server.stdin.write(line)
    server.stdin.flush()


def answer(server: subprocess.Popen[str]) -> Any:
    assert server.stdout is not None
    return json.loads(server.stdout.readline())


if __name__ == "__main__":
    main()
