"""Issue 29.4: the fault run (benchmarks/faults.py) in CI, shortened: reports and confirms
over the API under gunicorn while Redis is frozen and PostgreSQL restarts. No action that
committed answers 5xx, every retry of one answers 2xx, and a frozen Redis costs the requests
after the first timeout no more than a second per process, not one per request."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.services import ROOT, postgres_bin

pytestmark = [pytest.mark.services, pytest.mark.timeout(900)]  # five phases under load


def test_reports_and_confirms_through_a_frozen_redis_and_a_postgres_restart() -> None:
    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed")
    run = subprocess.run(
        [sys.executable, "benchmarks/faults.py", "--seconds", "4", "--clients", "2", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    rows = {(row["phase"], row["kind"]): row for row in outcome["phases"]}
    assert outcome["committed_5xx"] == 0, outcome
    assert outcome["retries_not_2xx"] == 0, outcome
    for kind in ("report", "confirm", "visitor page"):
        normal, frozen = rows[("normal", kind)], rows[("redis frozen", kind)]
        assert frozen["requests"] > 0 and frozen["count_5xx"] == 0, frozen
        # One socket timeout (0.25 s) per request would show in the median; on a shared CI
        # machine the absolute figures move, so compare with the same run's normal phase.
        assert frozen["p50_ms"] < normal["p50_ms"] + 150, (normal, frozen)
    for kind in ("report", "confirm", "visitor page"):
        assert rows[("redis back", kind)]["count_5xx"] == 0
