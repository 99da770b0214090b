"""Fast writes of many rows: PostgreSQL's COPY, or one executemany elsewhere.

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
    return _write(model, fields, rows, on_conflict="")


def upsert_rows(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Sequence[Any]],
    unique: Sequence[str],
) -> int:
    """Insert `rows` (as `insert_rows`), or, where a row with the same `unique` fields (a
    unique constraint's) is stored, update its other `fields` if any of them differs.
    Returns the rows inserted or changed.

    A row updated in place keeps its keys, so PostgreSQL checks none of its foreign keys
    again: for a replay's rows, deleting and inserting them took twice as long."""
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)
    keys = _columns(model, unique)
    rest = [qn(c) for c in _columns(model, fields) if c not in keys]
    differs = "IS DISTINCT FROM" if connection.vendor == "postgresql" else "IS NOT"
    on_conflict = (
        f"ON CONFLICT ({', '.join(qn(c) for c in keys)}) DO UPDATE SET "
        + ", ".join(f"{c} = EXCLUDED.{c}" for c in rest)
        + " WHERE "
        + " OR ".join(f"{table}.{c} {differs} EXCLUDED.{c}" for c in rest)
    )
    return _write(model, fields, rows, on_conflict)


def _write(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Sequence[Any]],
    on_conflict: str,
) -> int:
    """Insert `rows`; with `on_conflict` (a clause), through a staging table on PostgreSQL
    (COPY cannot say what to do on a conflict)."""
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
            target = table
            if on_conflict:
                target = connection.ops.quote_name(f"staging_{model._meta.db_table}")
                cursor.execute(
                    f"CREATE TEMPORARY TABLE {target} AS SELECT {columns} FROM {table} WITH NO DATA"
                )
            # Binary: psycopg writes each value as it is in memory, and the server reads no
            # text: five times faster than text for a replay's floats.
            with cursor.cursor.copy(
                f"COPY {target} ({columns}) FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.set_types(_copy_types(model, fields))
                for row in rows:
                    copy.write_row(row)
                    count += 1
            if on_conflict:
                cursor.execute(
                    f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {target} {on_conflict}"
                )
                count = cursor.rowcount
                cursor.execute(f"DROP TABLE {target}")
        else:
            marks = ", ".join(["%s"] * len(fields))
            batch = [
                [_jsonable(v) if i in json_at else v for i, v in enumerate(row)] for row in rows
            ]
            cursor.executemany(
                f"INSERT INTO {table} ({columns}) VALUES ({marks}) {on_conflict}", batch
            )
            count = cursor.rowcount if on_conflict else len(batch)
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
