"""Races on real PostgreSQL: the row locks make simultaneous operations take turns, so a
double report or a confirm racing a cancel leaves one result and one audit entry."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections
from django.utils import timezone

from ladder.matches import operations as matches
from ladder.matches.errors import MatchError, MatchStateError
from ladder.matches.models import AuditEntry, Match
from ladder.matches.validation import Report
from tests.factories import reported_match

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks"),
    pytest.mark.django_db(transaction=True),
]


def race(*calls):
    """Run the calls at the same moment, each in its own thread and connection."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except Exception as exc:  # the loser's refusal is the point
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    return results


def test_the_same_report_twice_at_once(ladder, alice, bob):
    def report(reporter, a, b, games):
        return lambda: matches.report_match(
            Report(
                ladder=ladder,
                reporter=reporter,
                played_on=timezone.localdate(),
                side_a=[a],
                side_b=[b],
                games=games,
            )
        )

    results = race(
        report(alice, alice, bob, [(21, 15), (21, 18)]),
        report(bob, bob, alice, [(15, 21), (18, 21)]),
    )
    assert sum(isinstance(r, Match) for r in results) == 1
    (refusal,) = [r for r in results if isinstance(r, MatchError)]
    assert "already reported" in refusal.message
    assert Match.objects.count() == 1 and AuditEntry.objects.count() == 1


def test_confirm_racing_cancel(ladder, alice, bob):
    match = reported_match(ladder, alice, [alice], [bob])
    results = race(
        lambda: matches.confirm_match(match, bob), lambda: matches.cancel_match(match, alice)
    )
    winners = [r for r in results if isinstance(r, Match)]
    (loser,) = [r for r in results if isinstance(r, MatchStateError)]
    assert len(winners) == 1
    match.refresh_from_db()
    assert match.state == winners[0].state
    assert (
        f"This match is {'already ' if match.state == 'confirmed' else ''}{match.state}"
        in loser.message
    )
    assert AuditEntry.objects.filter(match=match).count() == 2
