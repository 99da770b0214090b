"""The replay from an early date (benchmarks/pipeline.py --replay-only), two pipelines in turns.

    .venv/bin/python benchmarks/ab_replay.py OLD_PIPELINE_PY [--rounds 3] [--everything 1]

OLD_PIPELINE_PY is another version of ratings/pipeline.py (say `git show
main:ratings/pipeline.py > /tmp/old_pipeline.py`), loaded as a module beside this checkout's:
both run on one PostgreSQL database of 200,000 matches among 10,000 players, in turns, so
that a slow minute of this shared machine falls on both. Each round corrects the ladder's
100th match and times each pipeline's `rate_ladder` (wall and this process's CPU); then each
replays every match with every row made wrong (`--everything` times each). After each run
of this checkout's pipeline, the other recomputes the ladder from scratch and must write no
row: both store the same rows.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from django.utils import timezone  # noqa: E402

from benchmarks.pipeline import (  # noqa: E402
    _loadavg,
    cpu_check,
    import_file,
    replay_from_early,
    setup_django,
    synthetic_history,
)
from tests.support import services  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("old", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--everything", type=int, default=1)
    args = parser.parse_args()
    cluster = services.start_postgres()
    try:
        subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres", "-qc",
             "create database bench"],
            check=True,
        )  # fmt: skip
        setup_django(cluster.url("bench"))
        spec = importlib.util.spec_from_file_location("old_pipeline", args.old)
        assert spec is not None and spec.loader is not None
        old = sys.modules["old_pipeline"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
        from django.db import connection

        from ladder.clubs.models import Ladder
        from ratings import pipeline as new

        print(
            f"import: {import_file(synthetic_history(10_000, 200_000, 3, timezone.localdate()), 'big'):.1f} s"
        )
        connection.cursor().execute("VACUUM (ANALYZE)")
        ladder_id = Ladder.objects.get(slug="big").pk
        times: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
        print(f"CPU check {cpu_check():.0f} ms, load {_loadavg()}")
        for r in range(args.rounds):
            for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
                module = old if name == "old" else new
                wall, cpu, rated, written = replay_from_early("big", rate=module.rate_ladder)
                times[name].append((wall, cpu))
                print(f"correction, {name}: {wall:.2f} s (CPU {cpu:.2f} s), {written} rows")
                if name == "new":
                    assert old.rate_ladder(ladder_id, from_scratch=True).written == 0
        for name in ("old", "new"):
            walls = [w for w, _ in times[name]]
            cpus = [c for _, c in times[name]]
            print(f"correction, {name}: median {statistics.median(walls):.2f} s wall, "
                  f"{statistics.median(cpus):.2f} s CPU ({len(walls)} runs)")  # fmt: skip
        for r in range(args.everything):
            for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
                module = old if name == "old" else new
                wall, cpu, rated, written = replay_from_early(
                    "big", everything=True, rate=module.rate_ladder
                )
                print(f"every row, {name}: {wall:.2f} s (CPU {cpu:.2f} s), {written} rows")
                if name == "new":
                    assert old.rate_ladder(ladder_id, from_scratch=True).written == 0
        print(f"CPU check {cpu_check():.0f} ms, load {_loadavg()}")
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
