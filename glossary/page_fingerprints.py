"""A stored first page is served only while the rows it was rendered from are unchanged:
the read that fingerprints a page's rows and finds its stored page in one statement, and
the code every fingerprint names (glossary.stored_pages stores the pages).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection

from glossary.models import StoredPage
from glossary.prepared import fetch


class Stored(NamedTuple):
    """A first page rendered after a publish (glossary.models.StoredPage) whose rows are
    still, byte for byte, the rows it was rendered from: its values, as JSON."""

    parts: str


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
) -> tuple[str, str | None, list[tuple[Any, ...]]]:
    """The rows of a page's statement `sql` (ordered by `order`), with their fingerprint;
    or, when the page stored for (`kind`, `slug`) has that fingerprint, only the page
    (never with `fresh`: the rows to render it again).

    As (fingerprint, stored parts or None, rows): in one statement, so the rows
    fingerprinted are the rows a reader would be shown now. The fingerprint is SHA-256
    of `stamp` (what else the page was rendered from: the code, its address) and every
    row, in the rows' own order, each of its `columns` (the statement's, named in order)
    written as its length in bytes, a colon and its text, or "-" for NULL: a code no two
    different pages share, which costs a third of PostgreSQL's text form of a whole row
    (that quotes and escapes every value). No `stamp`, or not PostgreSQL: the rows alone.
    """
    if stamp is None or connection.vendor != "postgresql":
        return "", None, fetch(sql, params, keep_plan=True)
    names = ", ".join(columns)
    row_code = " || ".join(
        f"COALESCE(octet_length(CAST(p.{c} AS TEXT)) || ':' || CAST(p.{c} AS TEXT), '-')"
        for c in columns
    )
    rows = fetch(
        f"WITH page AS MATERIALIZED (SELECT * FROM ({sql}) AS q({names})), "  # noqa: S608
        "fp AS MATERIALIZED (SELECT encode(sha256(convert_to(%s || string_agg("
        f"{row_code}, E'\\n'), 'UTF8')), 'hex') AS h FROM page p), "
        f"hit AS MATERIALIZED (SELECT s.parts FROM {StoredPage._meta.db_table} s, fp "
        "WHERE s.kind = %s AND s.slug = %s AND s.fingerprint = fp.h "
        # (A page with no record is no page, whatever is stored.)
        "AND EXISTS (SELECT 1 FROM page q WHERE q.part = 0)) "
        "SELECT fp.h, hit.parts, p.* FROM fp LEFT JOIN hit ON TRUE "
        f"LEFT JOIN page p ON hit.parts IS NULL ORDER BY {order}",
        # (No stored page has an empty kind: `fresh` finds none.)
        [*params, stamp, "" if fresh else kind, slug],
        keep_plan=True,
    )
    fingerprint, parts = rows[0][0] or "", rows[0][1]
    if parts is not None:
        return fingerprint, parts, []
    return fingerprint, None, [row[2:] for row in rows if row[2] is not None]


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
