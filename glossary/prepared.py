"""Statements PostgreSQL keeps prepared: the public pages' hot reads, planned once.

Compiling an ORM query, or planning a statement, costs as much as running one of the
public pages' reads; the selectors (glossary.selectors) and the SQL reads behind the
lists (glossary.listing_reads) run theirs through these, with Django's error translation
and query logging kept.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

import psycopg
from django.core.signals import setting_changed
from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone


class Prepared:
    """A selector's query compiled by the ORM once per process; only the slug varies.

    Compiling a query costs more than everything else the entry page and the
    entry API answer do per request; the query is still the selectors' own, so
    the visibility rule is written once.
    """

    _SLUG = "\x00slug\x00"

    def __init__(self, build: Callable[[str], QuerySet[Any, Any]]) -> None:
        self._build = build
        self._compiled: tuple[str, list[Any]] | None = None
        setting_changed.connect(self._forget, weak=False)

    def _forget(self, **_: Any) -> None:
        self._compiled = None

    def first(self, slug: str) -> tuple[Any, ...] | None:
        if self._compiled is None:
            compiled, bound = self._build(self._SLUG)[:1].query.sql_with_params()
            assert list(bound).count(self._SLUG) == 1  # noqa: S101 - the slug is the only one
            self._compiled = (compiled, list(bound))
        sql, params = self._compiled
        # Prepared on the connection once it recurs (`prepared_cursor`): planning it cost a third
        # of the entry page's time, and its plan (a slug's row) never depends on the slug.
        with prepared_cursor(keep_plan=True) as cursor:
            cursor.execute(sql, [slug if p == self._SLUG else p for p in params])
            row: tuple[Any, ...] | None = cursor.fetchone()
        return row


def fetch(
    sql: str, params: Sequence[Any], *, keep_plan: bool | Literal["for_values"] = False
) -> list[tuple[Any, ...]]:
    """The rows of `sql`. `keep_plan`: see `prepared_cursor`; "for_values" keeps a plan made for
    these very values, for statements whose best plan depends on them (a search's words)."""
    with prepared_cursor(keep_plan=bool(keep_plan)) as cursor:
        if keep_plan == "for_values" and connection.vendor == "postgresql":
            # The values written into the statement, quoted by psycopg as Django's own
            # client-side binding quotes every ORM query's: each distinct statement is then
            # prepared once it recurs, and its plan is the one made for its values.
            cursor.execute(_with_values(sql, params))
        else:
            cursor.execute(sql, params)
        rows: list[tuple[Any, ...]] = cursor.fetchall()
    return rows


def _with_values(sql: str, params: Sequence[Any]) -> str:
    """`sql` with `params` written in as literals (psycopg's client-side quoting)."""
    raw_connection = connection.connection
    return psycopg.ClientCursor(raw_connection).mogrify(sql, params)


# After this many runs of one statement on a connection, PostgreSQL keeps it prepared and
# plans it no more (planning costs as much as running a list page's cheaper statements).
_PREPARE_AFTER = 2


@contextmanager
def prepared_cursor(*, keep_plan: bool = False) -> Iterator[Any]:
    """Django's cursor; with `keep_plan` on PostgreSQL, one whose parameters the server binds,
    so psycopg prepares the statement on the connection once it recurs.

    Only for statements whose best plan does not depend on their parameters (a page of
    an index from a key, a record by its address). Django's ORM keeps binding on the
    client, which never prepares, and the wrapper keeps Django's error translation and
    query logging.
    """
    if not keep_plan or connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            yield cursor
        return
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    raw_connection = connection.connection
    if raw_connection.prepare_threshold != _PREPARE_AFTER:
        raw_connection.prepare_threshold = _PREPARE_AFTER
    connection.validate_thread_sharing()
    with connection.wrap_database_errors:
        raw = psycopg.Cursor(raw_connection)
    # (django-stubs types these as taking Django's own wrapper; they wrap the driver's cursor.)
    wrap = connection.make_debug_cursor if connection.queries_logged else connection.make_cursor
    with wrap(raw) as cursor:  # type: ignore[arg-type]
        yield cursor


def aware(value: Any) -> datetime.datetime | None:
    """A time read by a raw cursor: SQLite's arrive as text, PostgreSQL's converted."""
    if value is None:
        return None
    moment = value if isinstance(value, datetime.datetime) else None
    if moment is None:
        moment = datetime.datetime.fromisoformat(str(value))
    return moment if timezone.is_aware(moment) else moment.replace(tzinfo=datetime.UTC)
