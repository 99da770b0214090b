"""Fast inserts of many rows: PostgreSQL's COPY, or one executemany elsewhere.

Imports and replays write hundreds of thousands of rows; building a model instance for
each (what bulk_create does) costs more than the rating itself. These helpers write
plain tuples in the order of the given columns. Nothing here knows any rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, models


DELETE_BATCH = 500  # ids per DELETE where arrays cannot be passed (SQLite's parameter limit)


def _columns(model: type[models.Model], fields: Sequence[str]) -> list[str]:
    columns = []
    for name in fields:
        field = model._meta.get_field(name)
        assert isinstance(field, models.Field) and field.column, name  # a concrete column
        columns.append(field.column)
    return columns


def _jsonable(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, dict | list) else value


def insert_rows(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence[Any]]
) -> int:
    """Insert `rows` (tuples in the order of `fields`, foreign keys as ids); returns the count."""
    table = connection.ops.quote_name(model._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(c) for c in _columns(model, fields))
    json_at = [
        i
        for i, name in enumerate(fields)
        if isinstance(model._meta.get_field(name), models.JSONField)
    ]
    count = 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    if json_at:
                        row = [_jsonable(v) if i in json_at else v for i, v in enumerate(row)]
                    copy.write_row(row)
                    count += 1
        else:
            marks = ", ".join(["%s"] * len(fields))
            batch = [
                [_jsonable(v) if i in json_at else v for i, v in enumerate(row)] for row in rows
            ]
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", batch)
            count = len(batch)
    return count


def delete_rows(model: type[models.Model], ids: Sequence[int]) -> int:
    """Delete the rows with these primary keys: one statement on PostgreSQL, a few hundred ids
    a statement elsewhere. Plain SQL, no signals or cascades: for rows nothing refers to."""
    table = connection.ops.quote_name(model._meta.db_table)
    pk = connection.ops.quote_name(model._meta.pk.column)
    count = 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            if ids:
                cursor.execute(f"DELETE FROM {table} WHERE {pk} = ANY(%s)", [list(ids)])
                count = cursor.rowcount
        else:
            for start in range(0, len(ids), DELETE_BATCH):
                chunk = ids[start : start + DELETE_BATCH]
                marks = ", ".join(["%s"] * len(chunk))
                cursor.execute(f"DELETE FROM {table} WHERE {pk} IN ({marks})", list(chunk))
                count += cursor.rowcount
    return count


def reserve_ids(model: type[models.Model], count: int) -> list[int] | None:
    """`count` new primary keys in increasing order (PostgreSQL); None where unsupported."""
    if connection.vendor != "postgresql" or count == 0:
        return None if count else []
    table = model._meta.db_table
    column = model._meta.pk.column
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s) ORDER BY 1",
            [table, column, count],
        )
        return [row[0] for row in cursor.fetchall()]
