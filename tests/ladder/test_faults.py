"""Issue 29.4: the fault run (benchmarks/faults.py) in CI, shortened: reports and confirms
over the API under gunicorn while Redis is frozen and PostgreSQL restarts. No action that
committed answers 5xx, every retry of one answers 2xx, nothing fails while Redis is frozen."""

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
    # A confirm is checked exactly (its match's state); a report by its reporter, date and
    # time, which another client's report can match: printed, not asserted.
    assert outcome["committed_5xx_by_kind"]["confirm"] == 0, outcome
    assert outcome["retries_not_2xx"] == 0, outcome
    for kind in ("report", "confirm", "visitor page"):
        normal, frozen = rows[("normal", kind)], rows[("redis frozen", kind)]
        assert normal["requests"] > 0 and frozen["requests"] > 0, (normal, frozen)
        assert frozen["count_5xx"] == 0, frozen
        # Latency is not asserted here: on a shared machine it is the load's (a run at a load
        # of 15 moved medians by 200 ms either way). test_cache_breaker.py counts the calls
        # that reach a frozen Redis exactly; docs/BENCHMARKS.md "Faults" has the figures.
    for kind in ("report", "confirm", "visitor page"):
        assert rows[("redis back", kind)]["count_5xx"] == 0
