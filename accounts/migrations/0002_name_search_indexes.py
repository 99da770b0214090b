"""Trigram indexes for finding players by part of their name (Django's ``icontains``,
which PostgreSQL runs as ``UPPER(column) LIKE UPPER('%text%')``): the leaderboard
search and the report form's type-ahead stay fast with thousands of members.

Without GIN's fast update: new names go straight into the index instead of a pending
list that every search would scan until the next vacuum (after an import of thousands
of players that list made each search several times slower). People sign up rarely.

PostgreSQL only; on SQLite (the local default) this does nothing.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

COLUMNS = ("username", "display_name")


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for column in COLUMNS:
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS accounts_user_{column}_trgm ON accounts_user "
            f"USING gin (UPPER({column}::text) gin_trgm_ops) WITH (fastupdate = off)"
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for column in COLUMNS:
        schema_editor.execute(f"DROP INDEX IF EXISTS accounts_user_{column}_trgm")


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [TrigramExtension(), migrations.RunPython(create, drop)]
