"""``report_match(**report: Unpack[Report])`` and ``check_report`` take the report's values
as keywords, which mypy checks; at run time a misspelt or unknown keyword (``organizer``
for ``organiser``) or a missing one is a TypeError naming it, before anything is read or
written, as a plain signature would say."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from ladder.matches import operations as matches
from ladder.matches.models import Match
from ladder.matches.validation import check_report
from tests.matches.support import singles_report, unchanged


@pytest.fixture
def report(ladder, alice, bob) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return singles_report(ladder, alice, bob)


@pytest.mark.parametrize("call", [matches.report_match, check_report], ids=["report", "check"])
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"organizer": True}, "got an unexpected keyword argument 'organizer'"),
        ({"playd_on": "2026-11-27"}, "got an unexpected keyword argument 'playd_on'"),
        ({"score": 1, "winner": 2}, "got unexpected keyword arguments 'score', 'winner'"),
        ({"games": None}, "missing required keyword argument 'games'"),
        ({"side_a": None, "side_b": None}, "missing required keyword arguments 'side_a', 'side_b'"),
    ],
)
def test_an_unknown_or_missing_keyword_is_a_type_error(report, call, change, message) -> None:  # type: ignore[no-untyped-def]
    sent = {k: v for k, v in {**report, **change}.items() if v is not None}  # None: left out
    with unchanged(), pytest.raises(TypeError) as refused:
        call(**sent)
    assert str(refused.value) == f"{call.__name__}() {message}"
    assert not Match.objects.exists()


def test_the_keywords_that_are_not_the_reports_still_pass(report, alice) -> None:  # type: ignore[no-untyped-def]
    """``key``, ``now``, ``organiser``, ``links`` are report_match's own; ``stats`` may be left out."""
    check_report(now=timezone.now(), **report)
    match = matches.report_match(key="k-1", now=timezone.now(), organiser=False, **report)
    assert Match.objects.filter(pk=match.pk, state="pending", reporter=alice).exists()
