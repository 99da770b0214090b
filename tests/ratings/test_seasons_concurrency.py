"""Two moderators adding overlapping seasons at the same moment on real PostgreSQL: the
ladder's lock makes them take turns, so one season is saved and the other refused with
the reason (RULES.md "Seasons")."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.db import connection

from ratings.models import Season
from ratings.seasons import SeasonError
from ratings.upkeep import save_season
from tests.matches.test_matches_concurrency import race

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks"),
    pytest.mark.django_db(transaction=True),
]


def test_two_overlapping_seasons_at_once(ladder):
    first = date(2027, 1, 1)

    def add(name: str, offset: int):  # type: ignore[no-untyped-def]
        return lambda: save_season(
            Season(
                ladder=ladder,
                name=name,
                slug=name.lower(),
                starts_on=first + timedelta(days=offset),
                ends_on=first + timedelta(days=offset + 60),
            )
        )

    results = race(add("Winter", 0), add("Frost", 30))
    saved = [r for r in results if isinstance(r, Season)]
    refused = [r for r in results if isinstance(r, SeasonError)]
    assert len(saved) == 1 and len(refused) == 1, results
    assert "These days overlap" in str(refused[0])
    assert list(Season.objects.values_list("name", flat=True)) == [saved[0].name]
