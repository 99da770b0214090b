"""Benchmarks of the ratings pipeline on real PostgreSQL (and Redis + a Celery worker).

    .venv/bin/python benchmarks/pipeline.py [--matches 100000] [--big-players 10000] [--big-matches 200000]

Starts a throwaway PostgreSQL cluster (as the tests do), then measures:
1. importing and rating N singles matches end to end (`import_matches`),
2. time from a confirmation to the rating being visible, with a real worker on Redis,
3. leaderboard and player page server time with many players and matches: cached (on
   Redis, as in production), uncached, and the first view after a rating run,
4. a replay from an early date on the big ladder: an early match corrected (flagged for
   rating again), then `rate_ladder`, which replays every later match and rewrites their
   change rows (issue 14's target: under 10 s at 200,000 matches). `--replay-only` imports
   the big ladder and measures only this.
Prints a markdown table (the results in docs/BENCHMARKS.md come from it).
"""

from __future__ import annotations

import argparse
import atexit
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from django.utils import timezone  # noqa: E402

from ratings.lab.simulate import play_match  # noqa: E402
from tests.support import services  # noqa: E402


def synthetic_history(players: int, matches: int, seed: int, end: date) -> str:
    """A singles history in the import format: players meet neighbours in skill, rally by rally."""
    rng = random.Random(seed)
    skill = [rng.gauss(0, 1) for _ in range(players)]
    days = 730
    lines = ["played_on,side_a,side_b,score,stats"]
    for i in range(matches):
        a = rng.randrange(players)
        b = (a + rng.randint(1, 40)) % players
        p = 1 / (1 + 10 ** (-(skill[a] - skill[b]) * 0.15))
        games = play_match(rng, p)  # best of 3 to 21, rally by rally
        played = end - timedelta(days=days - i * days // matches)
        score = " ".join(f"{x}-{y}" for x, y in games)
        lines.append(f"{played.isoformat()},player{a:05d},player{b:05d},{score},")
    return "\n".join(lines) + "\n"


def cpu_check() -> float:
    """Milliseconds for a fixed pure-Python loop: how fast this machine is right now (shared
    machines vary by 2x from minute to minute), to read the other numbers against."""
    started = time.perf_counter()
    total = 0
    for i in range(3_000_000):
        total += i * i
    return (time.perf_counter() - started) * 1000


def _loadavg() -> str:
    """The machine's load average (1, 5, 15 minutes): how busy it was around a timing."""
    return " / ".join(Path("/proc/loadavg").read_text().split()[:3])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def setup_django(database_url: str) -> None:
    """Production settings (DEBUG off, collected static files) on the benchmark database."""
    static_root = tempfile.mkdtemp(prefix="ladder-static-")
    atexit.register(shutil.rmtree, static_root, ignore_errors=True)
    os.environ.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="ladder.settings",
        LOG_LEVEL="ERROR",
        DEBUG="0",
        SECRET_KEY="benchmark-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz",
        ALLOWED_HOSTS="localhost",
        SECURE_SSL_REDIRECT="0",
        EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend",
        STATIC_ROOT=static_root,
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)


def import_file(text: str, slug: str) -> float:
    from django.core.management import call_command

    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(text)
    started = time.perf_counter()
    call_command(
        "import_matches",
        f.name,
        "--ladder",
        slug,
        "--create-ladder",
        "--create-players",
        verbosity=0,
        stdout=io.StringIO(),
    )
    elapsed = time.perf_counter() - started
    os.unlink(f.name)
    return elapsed


def replay_from_early(
    slug: str, everything: bool = False, profile: bool = False, rate: Any = None
) -> tuple[float, float, int, int]:
    """Seconds for the rating run after the ladder's 100th match was corrected (its score
    turned round, so its winner lost), the matches re-rated and the change rows written.

    `everything`: every rated match is marked instead, as new settings do
    (ratings.services.replay_later), and every stored change row is made wrong first (as
    if the settings had changed them all): every row is rewritten, the most a replay writes.
    Returns wall and CPU seconds of the run, the matches re-rated and the rows written;
    `profile`: print the run's cProfile (the 25 costliest functions) to stderr; `rate`:
    another `rate_ladder` to time (benchmarks/ab_replay.py)."""
    import cProfile
    import pstats

    from django.db.models import F

    from ladder.clubs.models import Ladder
    from ladder.matches.models import Game, Match
    from ratings.models import RatingChange
    from ratings.pipeline import rate_ladder

    ladder = Ladder.objects.get(slug=slug)
    if everything:
        Match.objects.filter(ladder=ladder, state__in=Match.RATED_STATES).update(needs_rating=True)
        RatingChange.objects.filter(ladder=ladder).update(change=F("change") + 1)
    else:
        early = Match.objects.filter(ladder=ladder).order_by("played_on", "id")[100]
        Game.objects.filter(match=early).update(a_points=F("b_points"), b_points=F("a_points"))
        Match.objects.filter(pk=early.pk).update(state="corrected", needs_rating=True)
    profiler = cProfile.Profile() if profile else None
    started, cpu = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.enable()
    result = (rate or rate_ladder)(ladder.pk)
    if profiler is not None:
        profiler.disable()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    if profiler is not None:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    assert result.replayed_from is not None
    return elapsed, cpu, result.rated, result.written


def confirmation_latency(database_url: str, samples: int, slug: str) -> list[float]:
    """Report + confirm in this process; a real worker on Redis rates; poll until visible."""
    from django.db import connection

    from ladder.celery import app
    from ladder.clubs.models import Ladder, Membership
    from ladder.matches.operations import confirm_match, report_match
    from ratings.models import RatingChange
    from tests.conftest import _reset_broker_pool

    redis = services.start_redis()
    app.conf.broker_url, app.conf.task_always_eager = redis.extra["url"], False
    _reset_broker_pool(app)
    worker = services.start_celery_worker(redis.extra["url"], database_url)
    latencies = []
    try:
        ladder = Ladder.objects.get(slug=slug)
        ladder.max_pending_reports = ladder.reports_per_hour = 10_000
        ladder.save()
        users = [
            m.user for m in Membership.objects.filter(ladder=ladder).select_related("user")[:40]
        ]
        rng = random.Random(3)
        today = timezone.localdate()
        for _ in range(samples):
            a, b = rng.sample(users, 2)
            match = report_match(
                ladder=ladder,
                reporter=a,
                played_on=today,
                side_a=[a],
                side_b=[b],
                games=[(21, rng.randint(0, 19)), (21, rng.randint(0, 19))],
            )
            started = time.perf_counter()
            confirm_match(match, b)
            while not RatingChange.objects.filter(match=match).exists():
                time.sleep(0.002)
            latencies.append(time.perf_counter() - started)
            connection.close()
    finally:
        worker.stop()
        redis.stop()
    return latencies


def page_rounds(cases: list[tuple[str, bool, Any]], samples: int) -> list[list[float]]:
    """The times of each (path, cached, member) case, taken in turns: a round requests
    every case once. A slow minute of the machine (its CPU is shared) then falls on every
    page alike, instead of on whichever page was being timed through it."""
    from django.db import connection
    from django.test import Client, override_settings

    clients = []
    for path, cached, member in cases:
        client = Client(HTTP_HOST="localhost")
        if member is not None:
            client.force_login(member)
        with override_settings(LEADERBOARD_CACHE_SECONDS=300 if cached else 0):
            client.get(path)  # warm
        clients.append(client)
    times: list[list[float]] = [[] for _ in cases]
    for _ in range(samples):
        for (path, cached, _member), client, taken in zip(cases, clients, times, strict=True):
            with override_settings(LEADERBOARD_CACHE_SECONDS=300 if cached else 0):
                started = time.perf_counter()
                response = client.get(path)
                taken.append(time.perf_counter() - started)
            assert response.status_code == 200, (path, response.status_code)
    connection.close()
    return times


PAGES = (
    ("leaderboard page", "/ladders/big/"),
    ("leaderboard page 20", "/ladders/big/?page=20"),
    ("leaderboard search", "/ladders/big/?q=player0012"),
    ("player page (top player)", "/players/{top}/"),
)
# As a member sees them (signed in: session, own membership, inbox badge), uncached.
MEMBER_PAGES = (
    ("leaderboard page, as a member", "/ladders/big/"),
    ("player page (top player), as a member", "/players/{top}/"),
    ("head-to-head with the top player, as a member", "/ladders/big/head-to-head/?a={top}&b={me}"),
    ("ladder list, as a member", "/ladders/"),
)


AFTER_A_CHANGE = "leaderboard page, first view after a rating run"


def first_views_after_changes(samples: int) -> list[float]:
    """A match is confirmed and rated (in this process: no broker), then the next visitor
    opens the leaderboard: the time of that first view, which the rating run's ready-made
    page in the shared cache serves."""
    from django.test import Client

    from ladder.clubs.models import Ladder, Membership
    from ladder.matches.operations import confirm_match, report_match

    ladder = Ladder.objects.get(slug="big")
    ladder.max_pending_reports = ladder.reports_per_hour = 10_000
    ladder.save()
    users = [m.user for m in Membership.objects.filter(ladder=ladder).select_related("user")[:40]]
    rng = random.Random(5)
    client = Client(HTTP_HOST="localhost")
    client.get("/ladders/big/")  # warm the process
    times = []
    for _ in range(samples):
        a, b = rng.sample(users, 2)
        match = report_match(
            ladder=ladder,
            reporter=a,
            played_on=timezone.localdate(),
            side_a=[a],
            side_b=[b],
            games=[(21, rng.randint(0, 19)), (21, rng.randint(0, 19))],
        )
        confirm_match(match, b)  # rated on commit, in this process
        started = time.perf_counter()
        response = client.get("/ladders/big/")
        times.append(time.perf_counter() - started)
        assert response.status_code == 200
    return times


def measure_pages(database_url: str, samples: int) -> None:
    """In a fresh process, as a web worker serves them (not in the process that imported
    300,000 matches), with the leaderboard cache on Redis as in production: each page's
    times, cached and not, then first views after rating runs, printed as JSON."""
    redis = services.start_redis()
    os.environ["LEADERBOARD_CACHE_URL"] = redis.extra["url"]
    try:
        _measure_pages(database_url, samples)
    finally:
        redis.stop()


def _measure_pages(database_url: str, samples: int) -> None:
    setup_django(database_url)

    from ratings.models import PlayerRating

    top = PlayerRating.objects.filter(ladder__slug="big").order_by("-rating").first()
    assert top is not None
    second = PlayerRating.objects.filter(ladder__slug="big").order_by("-rating")[1]
    cases: list[tuple[str, str, bool, Any]] = []  # (label, path, cached, member)
    for cached in (True, False):
        for label, path in PAGES:
            if cached and not path.startswith("/ladders/"):
                continue  # only the leaderboard has a cache
            cases.append((label, path.format(top=top.user.username), cached, None))
    for label, path in MEMBER_PAGES:
        path = path.format(top=top.user.username, me=second.user.username)
        cases.append((label, path, False, second.user))
    cpu_before = cpu_check()
    times = page_rounds([(path, cached, member) for _, path, cached, member in cases], samples)
    cpu_after = cpu_check()
    results = [
        (label, path, cached, taken)
        for (label, path, cached, _), taken in zip(cases, times, strict=True)
    ]
    results.append((AFTER_A_CHANGE, "/ladders/big/", True, first_views_after_changes(30)))
    json.dump({"cpu": [cpu_before, cpu_after], "pages": results}, sys.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--big-players", type=int, default=10_000)
    parser.add_argument("--big-matches", type=int, default=200_000)
    parser.add_argument("--latency-samples", type=int, default=100)
    parser.add_argument(
        "--replay-only", action="store_true", help="only the replay from an early date"
    )
    parser.add_argument(
        "--profile", action="store_true", help="with --replay-only: profile each replay"
    )
    parser.add_argument("--measure-pages", metavar="DATABASE_URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_pages:
        measure_pages(args.measure_pages, 100)
        return

    cluster = services.start_postgres()
    subprocess.run(
        [
            "psql",
            "-h",
            "127.0.0.1",
            "-p",
            str(cluster.port),
            "-U",
            "postgres",
            "-qc",
            "create database bench",
        ],
        check=True,
    )
    database_url = cluster.url("bench")
    rows: list[tuple[str, str, str]] = []

    def record(*row: str) -> None:
        rows.append(row)  # type: ignore[arg-type]
        print(" | ".join(row), file=sys.stderr, flush=True)

    try:
        record("CPU check: a 3,000,000-step Python loop", f"{cpu_check():.0f} ms", "")
        setup_django(database_url)
        today = timezone.localdate()
        if args.replay_only:
            elapsed = import_file(
                synthetic_history(args.big_players, args.big_matches, 3, today), "big"
            )
            record(
                f"import + rate {args.big_matches:,} matches ({args.big_players:,} players)",
                f"{elapsed:.1f} s",
                "",
            )
            from django.db import connection

            connection.cursor().execute("VACUUM (ANALYZE)")
            record("load average before the replays", _loadavg(), "")
            for _ in range(2):
                elapsed, cpu, rated, written = replay_from_early("big", profile=args.profile)
                record(
                    f"replay from an early date (100th match corrected): {rated:,} matches "
                    f"re-rated, {written:,} change rows rewritten",
                    f"{elapsed:.1f} s (CPU of this process {cpu:.1f} s)",
                    "< 10 s",
                )
            elapsed, cpu, rated, written = replay_from_early(
                "big", everything=True, profile=args.profile
            )
            record(
                f"replay of every match, every row wrong: {rated:,} matches re-rated, "
                f"{written:,} change rows rewritten",
                f"{elapsed:.1f} s (CPU of this process {cpu:.1f} s)",
                "",
            )
            record("load average after", _loadavg(), "")
            return
        players = max(args.matches // 20, 100)
        elapsed = import_file(synthetic_history(players, args.matches, 1, today), "import")
        record(
            *(
                f"import + rate {args.matches:,} singles matches ({players:,} players)",
                f"{elapsed:.1f} s",
                "≤ 60 s",
            )
        )

        import_file(synthetic_history(200, 2_000, 2, today - timedelta(days=1)), "latency")
        lat = confirmation_latency(database_url, args.latency_samples, "latency")
        record(
            *(
                f"confirmation → rating visible, real worker ({len(lat)} samples, 200 players)",
                f"p50 {percentile(lat, 0.5) * 1000:.0f} ms, p95 {percentile(lat, 0.95) * 1000:.0f} ms",
                "p95 < 1 s",
            )
        )

        elapsed = import_file(
            synthetic_history(args.big_players, args.big_matches, 3, today), "big"
        )
        record(
            *(
                f"import + rate {args.big_matches:,} matches ({args.big_players:,} players)",
                f"{elapsed:.1f} s",
                "",
            )
        )
        from django.db import connection, connections

        # Steady state, as a database in service is: autovacuum would otherwise set the
        # freshly imported tables' hint bits and visibility map in the middle of the timing
        # (runs that overlapped it measured pages up to twice as slow).
        connection.cursor().execute("VACUUM (ANALYZE)")
        connections.close_all()
        pages = subprocess.run(
            [sys.executable, __file__, "--measure-pages", database_url],
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        )
        measured = json.loads(pages.stdout)
        record(
            "CPU check, just before and after the page timings",
            " → ".join(f"{ms:.0f} ms" for ms in measured["cpu"]),
            "",
        )
        for label, path, cached, times in measured["pages"]:
            how = "cached" if cached else "uncached"
            if not path.startswith("/ladders/big/") or "head-to-head" in path:
                how = "no cache"
            if label == AFTER_A_CHANGE:
                how = f"{len(times)} runs"
            record(
                f"{label} ({how}), {args.big_players:,} players / {args.big_matches:,} matches",
                f"p50 {percentile(times, 0.5) * 1000:.1f} ms, "
                f"p95 {percentile(times, 0.95) * 1000:.1f} ms",
                "p95 < 50 ms",
            )
        lat = confirmation_latency(database_url, args.latency_samples, "big")
        record(
            *(
                f"confirmation → rating visible, real worker ({len(lat)} samples, "
                f"{args.big_players:,} players / {args.big_matches:,} matches)",
                f"p50 {percentile(lat, 0.5) * 1000:.0f} ms, p95 {percentile(lat, 0.95) * 1000:.0f} ms",
                "p95 < 1 s",
            )
        )
        record("CPU check again, at the end", f"{cpu_check():.0f} ms", "")
    finally:
        from django.db import connections

        connections.close_all()
        cluster.stop()
    print("| measure | result | target |\n| --- | --- | --- |")
    for row in rows:
        print(f"| {row[0]} | {row[1]} | {row[2]} |")


if __name__ == "__main__":
    main()
