"""The link checker's SQL for thousands of sources at a time, written by hand.

At a 10,000-source run the ORM's per-value preparation (an `__in` lookup,
bulk_update's CASE expressions, bulk_create's instances) cost more CPU than
checking the links. These build the statements once and send the rows with one
executemany: the id filter of the claim, load and record queries, the UPDATE of
the state columns a check changed, and the INSERTs of the checks and of the
health changes they made.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any

from django.db import connection, models
from django.db.models import BooleanField, Field
from django.db.models.expressions import RawSQL

from editorial.linkcheck.fetch import CheckResult
from editorial.linkcheck.state import SourceRow, Transition
from editorial.models import SourceHealthChange
from glossary.models import LinkCheck, Source


def ids_in(model: type[models.Model], column: str, ids: Iterable[int]) -> RawSQL:
    """A `column IN (...)` filter with the ids written as integer literals.

    Django prepares every value of an `__in` lookup in Python, about 7 µs a value
    here, so the claim, load and record queries of a 10,000-source run spent
    more CPU building SQL than checking links. The ids are cast to int, so
    nothing but digits reaches the SQL.
    """
    ops = connection.ops
    literal = ",".join(str(int(i)) for i in ids) or "NULL"  # IN (NULL) matches nothing
    qualified = f"{ops.quote_name(model._meta.db_table)}.{ops.quote_name(column)}"
    return RawSQL(f"{qualified} IN ({literal})", [], output_field=BooleanField())  # noqa: S611


def concrete_field(model: type[models.Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    assert isinstance(field, Field)  # noqa: S101 - our own column names, never a relation
    return field


def prepper(field: Field[Any, Any]) -> Callable[[Any], Any] | None:
    """A fast value adapter for raw executemany (Field.get_db_prep_save costs ~10 µs a value).

    None means the value goes to the driver as it is. Only the field types the
    checker writes get a shortcut; anything else falls back to Django's own
    preparation.
    """
    if isinstance(field, models.DateTimeField):
        if connection.vendor == "sqlite":
            # Exactly what Django's SQLite backend stores: naive UTC via str().
            # Most rows repeat the run's `now`, so the last conversion is remembered.
            last: list[Any] = [None, None]

            def sqlite_datetime(v: datetime | None) -> str | None:
                if v is None:
                    return None
                if v is last[0]:
                    return last[1]  # type: ignore[no-any-return]
                text = str((v if v.tzinfo is UTC else v.astimezone(UTC)).replace(tzinfo=None))
                last[0], last[1] = v, text
                return text

            return sqlite_datetime
        if connection.vendor == "postgresql":
            return None
    if isinstance(field, models.JSONField):
        # Most checks follow no redirect: skip json.dumps for the empty chain.
        return lambda v: "[]" if v == [] else json.dumps(v)
    if isinstance(field, models.CharField | models.TextField | models.IntegerField):
        return None
    if isinstance(field, models.ForeignKey):
        return None
    return lambda v: field.get_db_prep_save(v, connection)


def prepared_rows(
    fields: Sequence[Field[Any, Any]], rows: Iterable[Sequence[Any]]
) -> list[list[Any]]:
    """Rows of raw values (in `fields` order) adapted for the driver; only what needs it."""
    preps = [(i, prep) for i, f in enumerate(fields) if (prep := prepper(f)) is not None]
    prepared = []
    for row in rows:
        values = list(row)
        for i, prep in preps:
            values[i] = prep(values[i])
        prepared.append(values)
    return prepared


def executemany(sql: str, rows: list[list[Any]]) -> None:
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def save_state(sources: Sequence[Source | SourceRow], names: Sequence[str]) -> None:
    """UPDATE the state columns `names` of `sources` with one executemany.

    bulk_update builds a CASE expression per field and row in Python, which
    cost more CPU than the HTTP checks themselves at a few thousand sources.
    Only the columns a check changed are written (a re-checked healthy source:
    two), which is cheaper to convert and for the database to apply.
    """
    if not sources:
        return
    ops = connection.ops
    fields = [concrete_field(Source, name) for name in names]
    assignments = ", ".join(f"{ops.quote_name(str(f.column))} = %s" for f in fields)
    table = ops.quote_name(Source._meta.db_table)
    sql = f"UPDATE {table} SET {assignments} WHERE id = %s"  # noqa: S608 - our own columns
    values = attrgetter(*(f.attname for f in fields), "pk")
    key = concrete_field(Source, "id")
    executemany(sql, prepared_rows([*fields, key], map(values, sources)))


CHECK_FIELDS = (
    "source",
    "url",
    "checked_at",
    "outcome",
    "status_code",
    "final_url",
    "redirects",
    "elapsed_ms",
    "error",
    "fingerprint",
)


def insert_rows(
    model: type[models.Model], names: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """INSERT rows of `model` (values in `names` order) with one executemany.

    See save_state for why not bulk_create; no model instances are built.
    """
    if not rows:
        return
    ops = connection.ops
    fields = [concrete_field(model, name) for name in names]
    columns = ", ".join(ops.quote_name(str(f.column)) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    table = ops.quote_name(model._meta.db_table)
    sql = f"INSERT INTO {table} ({columns}) VALUES ({marks})"  # noqa: S608 - our own columns
    executemany(sql, prepared_rows(fields, rows))


def insert_checks(rows: Sequence[Sequence[Any]]) -> None:
    """INSERT LinkCheck rows (values in CHECK_FIELDS order) with one executemany."""
    insert_rows(LinkCheck, CHECK_FIELDS, rows)


def check_values(result: CheckResult, source_id: int | None, now: datetime) -> list[Any]:
    """A LinkCheck row's values, in CHECK_FIELDS order."""
    return [
        source_id,
        result.url[:2000],
        now,
        str(result.outcome),
        result.status_code,
        result.final_url[:2000],
        result.redirects,
        result.elapsed_ms,
        result.error,
        result.fingerprint,
    ]


HEALTH_CHANGE_FIELDS = (
    "source",
    "url",
    "at",
    "from_health",
    "to_health",
    "outcome",
    "status_code",
    "error",
)


def insert_health_changes(rows: Sequence[Sequence[Any]]) -> None:
    """INSERT SourceHealthChange rows (values in HEALTH_CHANGE_FIELDS order) with one executemany.

    Written beside the checks, so a run over thousands of sources adds one
    statement per chunk however many of them changed.
    """
    insert_rows(SourceHealthChange, HEALTH_CHANGE_FIELDS, rows)


def health_change_values(
    result: CheckResult, source_id: int, transition: Transition, now: datetime
) -> list[Any]:
    """A SourceHealthChange row's values, in HEALTH_CHANGE_FIELDS order."""
    return [
        source_id,
        result.url[:2000],
        now,
        transition.old_health,
        transition.new_health,
        str(result.outcome),
        result.status_code,
        result.error,
    ]
