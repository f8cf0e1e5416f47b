"""A stored first page is served only while the rows it was rendered from are unchanged:
the read that finds its stored page, by the snapshot its rows were read in or by their
fingerprint, in one statement, and the code every fingerprint names
(glossary.stored_pages stores the pages).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any, NamedTuple

from django.conf import settings
from django.db import DatabaseError, connection, transaction

from glossary.models import StoredPage
from glossary.prepared import fetch, prepared_cursor

logger = logging.getLogger(__name__)


class Stored(NamedTuple):
    """A first page rendered after a publish (glossary.models.StoredPage) whose rows are
    still, byte for byte, the rows it was rendered from: its values, as JSON."""

    parts: str


class Seen(NamedTuple):
    """What a stored page keeps of the rows it was rendered from (glossary.models.StoredPage):
    their fingerprint, the SHA-256 of its stamp, and the snapshot they were read in (empty
    when it cannot be trusted), with the transaction that read them and when the server
    that took it started."""

    fingerprint: str
    stamp: str = ""
    snapshot: str = ""
    writer: str = ""
    server: str = ""


# What a stored page keeps of the snapshot this statement reads in, and the check that its
# rows are still those of the snapshot it kept: functions of migration 0041, beside the
# triggers that note the changes they look for (and short to write: psycopg converts a
# statement of more than 4,096 characters on every run, `test_stored_page_snapshots`).
_SNAPSHOT = "glossary_page_snapshot()"
_WRITER = "COALESCE(pg_current_xact_id_if_assigned()::text, '')"
# (Written as migration 0041's function compares it.)
_SERVER = "CAST(EXTRACT(EPOCH FROM pg_postmaster_start_time()) AS TEXT)"
_UNCHANGED = "glossary_unchanged_since(s.snapshot, s.snapshot_writer, s.snapshot_server)"


def _stamp_digest(stamp: str) -> str:
    return hashlib.sha256(stamp.encode()).hexdigest()


def stored_or_rows(
    sql: str,
    params: Sequence[Any],
    order: str,
    kind: str,
    slug: str,
    stamp: str | None,
    *,
    columns: Sequence[str],
    fresh: bool = False,
) -> tuple[Seen, str | None, list[tuple[Any, ...]]]:
    """The rows of a page's statement `sql` (ordered by `order`), with what a stored page
    keeps of them (`Seen`); or, when the page stored for (`kind`, `slug`) was rendered
    from the rows this statement would read, only the page (never with `fresh`: the rows
    to render it again).

    As (seen, stored parts or None, rows), in one statement, so the rows are those a
    reader would be shown now. The stored page is served without reading its rows when no
    change to a table the page reads has committed since the snapshot they were read in
    (`_UNCHANGED`); else when their fingerprint is the page's, and the page then keeps
    this statement's snapshot (`_keep_snapshot`), so the next reader need not read them.

    The fingerprint is SHA-256 of `stamp` (what else the page was rendered from: the code,
    its address) and every row, in the rows' own order, each of its `columns` (the
    statement's, named in order) written as its length in bytes, a colon and its text, or
    "-" for NULL: a code no two different pages share, which costs a third of PostgreSQL's
    text form of a whole row (that quotes and escapes every value). No `stamp`, or not
    PostgreSQL: the rows alone.
    """
    if stamp is None or connection.vendor != "postgresql":
        return Seen(""), None, fetch(sql, params, keep_plan=True)
    names = ", ".join(columns)
    row_code = " || ".join(
        f"COALESCE(octet_length(p.{c}::text) || ':' || p.{c}::text, '-')" for c in columns
    )
    table, digest = StoredPage._meta.db_table, _stamp_digest(stamp)
    # (No stored page has an empty kind: `fresh` finds none.)
    address = ["" if fresh else kind, slug]
    rows = fetch(
        f"WITH fast AS MATERIALIZED (SELECT s.parts FROM {table} s "  # noqa: S608
        f"WHERE s.kind = %s AND s.slug = %s AND s.stamp = %s AND {_UNCHANGED}), "
        f"page AS MATERIALIZED (SELECT * FROM ({sql}) AS q({names}) "
        "WHERE NOT EXISTS (SELECT 1 FROM fast)), "
        "fp AS MATERIALIZED (SELECT encode(sha256(convert_to(%s || string_agg("
        f"{row_code}, E'\\n'), 'UTF8')), 'hex') AS h FROM page p), "
        f"hit AS MATERIALIZED (SELECT s.parts FROM {table} s, fp "
        "WHERE s.kind = %s AND s.slug = %s AND s.fingerprint = fp.h "
        # (A page with no record is no page, whatever is stored.)
        "AND EXISTS (SELECT 1 FROM page q WHERE q.part = 0)) "
        f"SELECT fp.h, f.parts, hit.parts, {_SNAPSHOT}, {_WRITER}, {_SERVER}, p.* FROM fp "
        "LEFT JOIN fast f ON TRUE LEFT JOIN hit ON TRUE "
        f"LEFT JOIN page p ON hit.parts IS NULL ORDER BY {order}",
        [*address, digest, *params, stamp, *address],
        keep_plan=True,
    )
    fingerprint, fast, parts, snapshot, writer, server = rows[0][:6]
    seen = Seen(fingerprint or "", digest, snapshot, writer, server)
    if fast is not None:
        return seen, fast, []
    if parts is not None:
        if snapshot:
            _keep_snapshot(kind, slug, seen)
        return seen, parts, []
    return seen, None, [row[6:] for row in rows if row[6] is not None]


def _keep_snapshot(kind: str, slug: str, seen: Seen) -> None:
    """The stored page at (`kind`, `slug`), found by its fingerprint to be the rows read in
    `seen`'s snapshot, keeps that snapshot (and its stamp, which is in the fingerprint): the
    next reader is served it without reading them. Kept only while its fingerprint is
    still `seen`'s: a page stored again since, from other rows, keeps its own. A failure
    is logged and leaves the page as it was (served by its fingerprint), never the
    reader without it."""
    try:
        with transaction.atomic(), prepared_cursor(keep_plan=True) as cursor:
            cursor.execute(
                f"UPDATE {StoredPage._meta.db_table} SET stamp = %s, snapshot = %s, "  # noqa: S608
                "snapshot_writer = %s, snapshot_server = %s "
                "WHERE kind = %s AND slug = %s AND fingerprint = %s",
                [seen.stamp, seen.snapshot, seen.writer, seen.server, kind, slug, seen.fingerprint],
            )
    except DatabaseError:
        logger.warning("Could not keep the snapshot of the stored page %s %s", kind, slug)


def code_digest() -> str:
    """The code a stored page was rendered by: this package's modules and its models
    package's, the project's URLconf and the language dates are written in, as they are
    when this module is imported, so as the process runs them (a worker still running the
    last release after a deploy stores pages under the last release's digest, never the
    new one's). A deploy that changes any of them leaves every stored page unused until it
    is stored again (`manage.py rerender`, which every deploy runs, stores them all)."""
    digest = hashlib.sha256(settings.LANGUAGE_CODE.encode())
    package = Path(__file__).resolve().parent
    # Found, not imported: the URLconf imports this module.
    urlconf = find_spec(settings.ROOT_URLCONF)
    files = sorted([*package.glob("*.py"), *package.glob("models/*.py")])
    if urlconf is not None and urlconf.origin:
        files.append(Path(urlconf.origin))
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


_CODE = code_digest()


def rendered_by() -> str:
    return _CODE
