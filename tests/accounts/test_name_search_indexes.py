"""Finding players by part of their name stays fast with thousands of members: on
PostgreSQL, trigram indexes serve Django's ``icontains`` (``UPPER(column) LIKE``)."""

from __future__ import annotations

import pytest
from django.db import connection

from accounts.models import User
from tests.factories import UserFactory

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="trigram indexes are PostgreSQL's"
)


def test_username_and_display_name_have_trigram_indexes(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'accounts_user'"
        )
        indexes = dict(cursor.fetchall())
    for column in ("username", "display_name"):
        definition = indexes[f"accounts_user_{column}_trgm"]
        assert "gin" in definition and "gin_trgm_ops" in definition
        assert f"upper(({column})::text)" in definition
        assert "fastupdate=off" in definition  # no pending list for searches to scan


def test_the_planner_uses_them_for_a_name_search(db):
    # A club's worth of members, counted (ANALYZE): on a table of a few rows, or one the
    # planner has no figures for, a walk through the username index costs it as little.
    User.objects.bulk_create(
        User(username=f"m{i}", display_name=f"Member {i}", email=f"m{i}@example.com")
        for i in range(2000)
    )
    UserFactory(username="zebedee", display_name="Zeb")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_user")
        cursor.execute("SET LOCAL enable_seqscan = off")  # a small table: force the choice
        query = User.objects.filter(username__icontains="bede") | User.objects.filter(
            display_name__icontains="bede"
        )
        sql, params = query.query.sql_with_params()
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "accounts_user_username_trgm" in plan and "accounts_user_display_name_trgm" in plan
    assert list(query.values_list("username", flat=True)) == ["zebedee"]
