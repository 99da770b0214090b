"""A club night under load, end to end (issue 17 item 4): Locust against the production
processes, then the database checked.

    .venv/bin/python benchmarks/clubnight_load.py [--duration 5m] [--members 200]
        [--visitors 500] [--spawn-rate 50] [--history 4000]

1. Starts a throwaway PostgreSQL 15 cluster and Redis, builds a singles ladder of
   ``--members`` players with a rated history of ``--history`` matches (``import_matches``),
   and gives every member an API token. For the load test only, the ladder's report limits
   are raised (``reports_per_hour`` 1,000, ``max_pending_reports`` 100) and so is the API's
   report throttle (``API_THROTTLE_MATCH_REPORT=1000/hour``): each simulated member reports
   a match every ~4.5 min (default think times), more than anyone plays. Nothing else is
   changed.
2. Starts the production processes the way a server does, ``deploy/run`` (``release``,
   then gunicorn with 2 workers, a Celery worker and Celery beat from the Procfile), with
   DEBUG off, Redis as broker and caches.
3. Runs ``benchmarks/locustfile.py`` headless: ``--members`` members (API with their token:
   inbox, confirm, report, leaderboard) and ``--visitors`` visitors (pages), for
   ``--duration``.
4. Waits for the worker to rate what was confirmed, then checks the database: every match
   a member reported exists; every confirmed match is rated exactly once (one rating change
   per player, and no change for a match that is not confirmed); nothing waits to be rated;
   and the stored ratings and changes equal a replay from scratch (``recompute_ratings``,
   compared value for value).

Prints a markdown table (docs/BENCHMARKS.md records it) and exits 1 if any check fails or
any request failed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from django.utils import timezone  # noqa: E402

from benchmarks.pipeline import import_file, setup_django, synthetic_history  # noqa: E402
from tests.support import services  # noqa: E402

SLUG = "club"


def build(members: int, history: int, tokens_file: Path) -> None:
    from accounts.tokens import issue_token
    from ladder.clubs.models import Ladder, Membership

    yesterday = timezone.localdate() - timedelta(days=1)
    import_file(synthetic_history(members, history, 21, yesterday), SLUG)
    ladder = Ladder.objects.get(slug=SLUG)
    ladder.reports_per_hour = 1000
    ladder.max_pending_reports = 100
    ladder.save()
    tokens = {
        m.user.username: issue_token(m.user, "load test")[1]
        for m in Membership.objects.filter(ladder=ladder).select_related("user")
    }
    tokens_file.write_text(json.dumps({"ladder": SLUG, "members": tokens}))


def start_site(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        site = subprocess.Popen(
            [str(ROOT / "deploy" / "run")],
            cwd=ROOT,
            env={**os.environ, **env, "PORT": str(port)},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        # The release step first: migrations, and collectstatic compressing every file.
        services.wait_for_port(port, timeout=600)
        deadline = time.monotonic() + 60
        while "ready." not in log.read_text(errors="replace"):  # the Celery worker
            if time.monotonic() > deadline or site.poll() is not None:
                raise RuntimeError("the worker did not start:\n" + log.read_text()[-3000:])
            time.sleep(0.2)
    except BaseException:
        stop_site(site)
        raise
    return site


def stop_site(site: subprocess.Popen[bytes]) -> None:
    if site.poll() is None:
        os.killpg(site.pid, signal.SIGTERM)
        try:
            site.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(site.pid, signal.SIGKILL)
            site.wait()


def wait_for_quiet(log: Path, timeout: float) -> float:
    """Seconds until the site is done: no request logged for 5 s (gunicorn still answers
    the requests queued when Locust stopped, a confirmation among them) and no confirmed
    match waiting to be rated (the worker catching up)."""
    from django.db import connection

    from ladder.matches.models import Match

    started = time.monotonic()
    size, quiet_since = -1, time.monotonic()
    while True:
        if log.stat().st_size != size:
            size, quiet_since = log.stat().st_size, time.monotonic()
        waiting = Match.objects.filter(ladder__slug=SLUG, needs_rating=True).exists()
        connection.close()
        if not waiting and time.monotonic() - quiet_since >= 5:
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise RuntimeError("the site was still busy (or matches unrated) after the test")
        time.sleep(0.5)


def snapshot() -> dict[str, Any]:
    from ratings.models import PlayerRating, RatingChange

    ratings = {
        user: (rating, rd, volatility, matches)
        for user, rating, rd, volatility, matches in PlayerRating.objects.filter(
            ladder__slug=SLUG
        ).values_list("user_id", "rating", "rd", "volatility", "matches")
    }
    changes = {
        (match, user): (before, after, rd)
        for match, user, before, after, rd in RatingChange.objects.filter(
            ladder__slug=SLUG
        ).values_list("match_id", "user_id", "rating_before", "rating_after", "rd_after")
    }
    return {"ratings": ratings, "changes": changes}


def check(results: dict[str, list[int]]) -> list[tuple[str, str, bool]]:
    """(check, finding, passed) for the database after the test."""
    from django.core.management import call_command
    from django.db.models import Count, Q

    from ladder.matches.models import RATED_STATES, Match

    found: list[tuple[str, str, bool]] = []
    reported = set(results["reported"])
    confirmed = set(results["confirmed"])
    matches = Match.objects.filter(ladder__slug=SLUG).annotate(
        players_n=Count("players", distinct=True),
        changes_n=Count("rating_changes", distinct=True),
    )
    exists = set(matches.filter(pk__in=reported).values_list("pk", flat=True))
    found.append(
        (
            "every reported match is in the database",
            f"{len(exists):,} of {len(reported):,}",
            exists == reported,
        )
    )
    rated_ok = set(
        matches.filter(pk__in=confirmed, state__in=RATED_STATES).values_list("pk", flat=True)
    )
    found.append(
        (
            "every confirmation that succeeded left the match confirmed",
            f"{len(rated_ok):,} of {len(confirmed):,}",
            rated_ok == confirmed,
        )
    )
    rated = matches.filter(state__in=RATED_STATES)
    wrong = rated.exclude(changes_n=models_f("players_n")).count()
    found.append(
        (
            "every confirmed match rated exactly once (one change per player)",
            f"{rated.count():,} confirmed matches, {wrong} not",
            wrong == 0,
        )
    )
    unrated_changes = matches.exclude(state__in=RATED_STATES).filter(changes_n__gt=0).count()
    found.append(
        (
            "no rating change for a match that is not confirmed",
            f"{unrated_changes}",
            unrated_changes == 0,
        )
    )
    waiting = Match.objects.filter(Q(ladder__slug=SLUG) & Q(needs_rating=True)).count()
    found.append(("nothing left waiting to be rated", f"{waiting}", waiting == 0))
    before = snapshot()
    call_command("recompute_ratings", "--ladder", SLUG, verbosity=0)
    after = snapshot()
    differ = [
        (part, key, before[part].get(key), after[part].get(key))
        for part in ("ratings", "changes")
        for key in set(before[part]) | set(after[part])
        if before[part].get(key) is None
        or after[part].get(key) is None
        or any(abs(x - y) > 1e-9 for x, y in zip(before[part][key], after[part][key], strict=True))
    ]
    for row in differ[:20]:
        print("differs (part, key, stored, replayed):", row, file=sys.stderr)
    diffs = len(differ)
    found.append(
        (
            "ratings and changes equal a replay from scratch",
            f"{len(after['ratings']):,} ratings, {len(after['changes']):,} changes, {diffs} differ",
            diffs == 0,
        )
    )
    return found


def models_f(name: str) -> Any:
    from django.db.models import F

    return F(name)


def locust_stats(prefix: str) -> list[dict[str, str]]:
    with open(f"{prefix}_stats.csv") as f:
        return list(csv.DictReader(f))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", default="5m", help="Locust's --run-time (e.g. 5m, 45s)")
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--visitors", type=int, default=500)
    parser.add_argument("--spawn-rate", type=float, default=50)
    parser.add_argument("--history", type=int, default=4000, help="matches before the night")
    parser.add_argument(
        "--think",
        default="15,45,10,40",
        help="seconds between actions: member min,max, visitor min,max (locustfile.py)",
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="ladder-load-"))
    cluster = services.start_postgres()
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres"]
        + ["-qc", "create database load"],
        check=True,
    )
    database_url = cluster.url("load")
    redis = services.start_redis()
    base = redis.extra["url"].rsplit("/", 1)[0]
    env = {
        "CELERY_BROKER_URL": f"{base}/0",
        "CACHE_URL": f"{base}/1",
        "LEADERBOARD_CACHE_URL": f"{base}/2",
        "API_THROTTLE_MATCH_REPORT": "1000/hour",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "BEAT_SCHEDULE_FILE": str(work / "celerybeat-schedule"),
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    site = None
    rows: list[tuple[str, str, bool]] = []
    stats: list[dict[str, str]] = []
    try:
        setup_django(database_url)
        os.environ["SECURE_SSL_REDIRECT"] = "1"  # setup_django turns it off; Locust says https
        tokens = work / "tokens.json"
        build(args.members, args.history, tokens)
        from django.db import connections

        connections.close_all()
        port = services.free_port()
        # The release step collects the static files itself, into a directory of its own.
        env["STATIC_ROOT"] = str(work / "static")
        site = start_site(env, port, work / "site.log")
        results = work / "results.json"
        prefix = str(work / "locust")
        started = time.monotonic()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "locust",
                "-f",
                str(ROOT / "benchmarks" / "locustfile.py"),
                "--headless",
                "--users",
                str(args.members + args.visitors),
                "--spawn-rate",
                str(args.spawn_rate),
                "--run-time",
                args.duration,
                "--host",
                f"http://127.0.0.1:{port}",
                "--csv",
                prefix,
                "--only-summary",
                "--loglevel",
                "WARNING",
            ],
            check=False,  # Locust exits 1 when a request failed: reported below
            env={
                **os.environ,
                "LADDER_LOAD_TOKENS": str(tokens),
                "LADDER_LOAD_RESULTS": str(results),
                "LADDER_LOAD_MEMBERS": str(args.members),
                "LADDER_LOAD_VISITORS": str(args.visitors),
                "LADDER_LOAD_THINK": args.think,
            },
        )
        elapsed = time.monotonic() - started
        stats = locust_stats(prefix)
        catch_up = wait_for_quiet(work / "site.log", 300)
        rows = check(json.loads(results.read_text()))
        rows.insert(
            0, ("site quiet and every match rated after the test", f"{catch_up:.1f} s", True)
        )
        rows.insert(0, ("test ran", f"{elapsed:.0f} s", True))
    finally:
        from django.db import connections

        connections.close_all()
        if site is not None:
            stop_site(site)
        redis.stop()
        cluster.stop()

    print(
        f"{args.members} members + {args.visitors} visitors, {args.duration}, "
        f"think times {args.think} s, "
        "deploy/run (gunicorn -w 2, Celery worker and beat), PostgreSQL, Redis\n\n"
        "| requests | count | failures | median | p95 | p99 | max | per second |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- |"
    )
    failures = 0
    for row in stats:
        failures += int(row["Failure Count"])
        print(
            f"| {row['Name']} | {int(row['Request Count']):,} | {row['Failure Count']} "
            f"| {row['50%']} ms | {row['95%']} ms | {row['99%']} ms "
            f"| {float(row['Max Response Time']):.0f} ms | {float(row['Requests/s']):.1f} |"
        )
    print("\n| check | finding | passed |\n| --- | --- | --- |")
    for name, finding, passed in rows:
        print(f"| {name} | {finding} | {'yes' if passed else 'NO'} |")
    if failures or not all(passed for _, _, passed in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
