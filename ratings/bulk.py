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
from django.db.models.expressions import RawSQL

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
    """Insert `rows` (tuples in the order of `fields`, foreign keys as ids, JSON as Python
    values); returns the count."""
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
            # Binary: psycopg writes each value as it is in memory, and the server reads no
            # text: five times faster than text for a replay's floats.
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(_copy_types(model, fields))
                for row in rows:
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


def _copy_types(model: type[models.Model], fields: Sequence[str]) -> list[str]:
    """The PostgreSQL type of each column (a foreign key's is its target's), for COPY."""
    types = []
    for name in fields:
        field = model._meta.get_field(name)
        assert isinstance(field, models.Field), name
        db_type = field.db_type(connection)
        assert db_type, name  # a concrete column
        types.append(db_type.split("(")[0])  # "varchar(1)" → "varchar"
    return types


def delete_rows(model: type[models.Model], ids: Sequence[int], field: str = "pk") -> int:
    """Delete the rows whose `field` (the primary key, or a foreign key) is one of `ids`: one
    statement on PostgreSQL, a few hundred ids a statement elsewhere. Plain SQL, no signals
    or cascades: for rows nothing refers to. Returns the rows deleted."""
    table = connection.ops.quote_name(model._meta.db_table)
    column = model._meta.pk.column if field == "pk" else _columns(model, [field])[0]
    column = connection.ops.quote_name(column)
    count = 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            if ids:
                cursor.execute(f"DELETE FROM {table} WHERE {column} = ANY(%s)", [list(ids)])
                count = cursor.rowcount
        else:
            for start in range(0, len(ids), DELETE_BATCH):
                chunk = list(ids[start : start + DELETE_BATCH])
                marks = ", ".join(["%s"] * len(chunk))
                cursor.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)
                count += cursor.rowcount
    return count


IN_BATCH = 1000  # ids per `__in` where arrays cannot be passed
IdBatch = Sequence[int] | RawSQL  # what `id_batches` gives


def id_batches(ids: Sequence[int]) -> Iterable[IdBatch]:
    """`ids` as right-hand sides of `__in` lookups: on PostgreSQL all at once, as one array
    parameter (a statement with a parameter for each of many thousand ids is slow to build
    and run); elsewhere a thousand at a time. Nothing for no ids."""
    if connection.vendor == "postgresql":
        if ids:
            yield RawSQL("SELECT unnest(%s::bigint[])", (list(ids),))
        return
    for start in range(0, len(ids), IN_BATCH):
        yield ids[start : start + IN_BATCH]


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
