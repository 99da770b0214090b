"""A report is a value (``validation.Report``, a frozen dataclass): ``report_match(report, …)``
and ``check_report(report)`` take it whole. A misspelt or unknown field (``organizer`` for
``organiser``) or a missing one is Python's own TypeError naming it, before anything is read
or written; no keyword is checked again by hand."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from django.utils import timezone

from ladder.matches import operations as matches
from ladder.matches.models import Match
from ladder.matches.validation import Report, check_report
from tests.matches.support import singles_report, unchanged


@pytest.fixture
def report(ladder, alice, bob) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return singles_report(ladder, alice, bob)


@pytest.mark.parametrize(
    ("change", "names"),
    [
        ({"organizer": True}, ["organizer"]),
        ({"playd_on": "2026-11-27"}, ["playd_on"]),
        ({"score": 1, "winner": 2}, ["score"]),
        ({"games": None}, ["games"]),
        ({"side_a": None, "side_b": None}, ["side_a", "side_b"]),
    ],
)
def test_an_unknown_or_missing_field_is_a_type_error(report, change, names) -> None:  # type: ignore[no-untyped-def]
    sent = {k: v for k, v in {**report, **change}.items() if v is not None}  # None: left out
    with unchanged(), pytest.raises(TypeError) as refused:
        Report(**sent)
    assert all(repr(name) in str(refused.value) for name in names), refused.value
    assert not Match.objects.exists()


@pytest.mark.parametrize("call", [matches.report_match, check_report], ids=["report", "check"])
def test_the_report_is_one_value_and_the_options_are_keywords(report, call) -> None:  # type: ignore[no-untyped-def]
    with unchanged(), pytest.raises(TypeError):
        call(**report)  # the values loose, not a Report
    with unchanged(), pytest.raises(TypeError):
        call(Report(**report), organizer=True)
    assert not Match.objects.exists()


def test_a_report_cannot_be_changed_once_made(report) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Report(**report).games = []  # type: ignore[misc]


def test_the_options_that_are_not_the_reports_still_pass(report, alice) -> None:  # type: ignore[no-untyped-def]
    """``key``, ``now``, ``organiser``, ``links`` are report_match's own; ``stats`` may be left out."""
    check_report(Report(**report), now=timezone.now())
    match = matches.report_match(Report(**report), key="k-1", now=timezone.now(), organiser=False)
    assert Match.objects.filter(pk=match.pk, state="pending").exists()
    assert match.reporter == alice
