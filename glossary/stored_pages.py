"""An episode's, person's or organisation's first page, stored after each change that
touches it (glossary.reference_views serves it while its rows are unchanged:
glossary.page_fingerprints)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef
from django.http import HttpRequest

from glossary import selectors
from glossary.models import PublicRecord, StoredPage
from glossary.page_fingerprints import Seen, Stored
from glossary.paths import path_for
from glossary.prepared import prepared_cursor
from glossary.reference_views import ENTRIES_PAGE_SIZE, STORED_KINDS, first_page_stamp

logger = logging.getLogger(__name__)


def write_stored_pages(pages: Sequence[tuple[str, str, str, Seen]]) -> None:
    """Store first pages, each as (kind, slug, parts, what it keeps of its rows), replacing
    any stored at its address (`store_first_pages`). One statement whose values the server
    binds: the ORM's client-side quoting of fifteen pages of JSON cost 40 ms."""
    if not pages:
        return
    # Each address once (a statement may not update a row twice), in key order: two stores
    # at once then lock their rows in the same order, and never wait on each other in a
    # circle.
    by_address = {(page[0], page[1]): page for page in pages}
    pages = [by_address[address] for address in sorted(by_address)]
    columns = [list(column) for column in zip(*(page[:3] + page[3] for page in pages), strict=True)]
    with prepared_cursor(keep_plan=True) as cursor:
        cursor.execute(
            f"INSERT INTO {StoredPage._meta.db_table} (kind, slug, parts, fingerprint, stamp, "  # noqa: S608
            "snapshot, snapshot_writer, snapshot_server) SELECT * FROM unnest(%s::text[], "
            "%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[]) "
            "ON CONFLICT (kind, slug) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, "
            "parts = EXCLUDED.parts, stamp = EXCLUDED.stamp, snapshot = EXCLUDED.snapshot, "
            "snapshot_writer = EXCLUDED.snapshot_writer, "
            "snapshot_server = EXCLUDED.snapshot_server",
            columns,
        )


def store_first_pages(keys: Iterable[tuple[str, str]], *, again: bool = False) -> int:
    """Render and store the first page of each (kind, slug) whose stored page is not its
    rows' (`again`: each one, replacing whatever is stored; PostgreSQL only, elsewhere
    every page is rendered per request). How many were stored."""
    if connection.vendor != "postgresql":
        return 0
    made: list[tuple[str, str, str, Seen]] = []
    stored = 0
    for kind, slug in keys:
        kept = STORED_KINDS[kind]
        request = HttpRequest()
        request.method, request.path = "GET", path_for(kept.route, *slug.split("/"))
        found = kept.read(kind, slug, ENTRIES_PAGE_SIZE, first_page_stamp(request), again)
        if found is not None and not isinstance(found, Stored):
            values = json.dumps(kept.values(request, found))
            made.append((kind, slug, values, found.seen))
        if len(made) == _STORE_BATCH:
            write_stored_pages(made)
            stored, made = stored + len(made), []
    write_stored_pages(made)
    return stored + len(made)


# Pages written a statement at a time (each is about 15 KB).
_STORE_BATCH = 100


# While `storing_once` runs: the pages the publishes touched (None among them: all).
_storing_once: ContextVar[set[tuple[str, str] | None] | None] = ContextVar(
    "_storing_once", default=None
)


@contextmanager
def storing_once() -> Iterator[None]:
    """Publishes in this block store no page; at its end the pages they touched are stored,
    each once (`generate_glossary`: a page stored after each of ten thousand publishes
    would be rendered again and again for nothing)."""
    touched: set[tuple[str, str] | None] = set()
    token = _storing_once.set(touched)
    try:
        yield
    finally:
        _storing_once.reset(token)
    if None in touched:
        store_all_first_pages()
    else:
        store_first_pages(sorted(key for key in touched if key is not None))


def store_all_first_pages() -> int:
    """Render and store every episode's, person's and organisation's first page again,
    replacing what is stored, and forget the pages stored at addresses no record has any
    more (a renamed person's old one). How many were stored."""
    keys = selectors.pages_touched(None)
    if connection.vendor == "postgresql":
        kept = PublicRecord.objects.filter(kind=OuterRef("kind"), slug=OuterRef("slug"))
        StoredPage.objects.exclude(Exists(kept)).delete()
    return store_first_pages(keys, again=True)


def store_touched_pages(
    entry_ids: Sequence[int] | None = None,
    pages: Sequence[tuple[str, str]] | None = None,
    **_: Any,
) -> None:
    """After a publish, withdrawal, re-render or import is committed
    (glossary.signals.live_content_changed): store the first pages it touched (`pages`,
    found before the commit), or every one when every live page changed. A failure here
    leaves those pages rendered per request, as correct and slower; it never undoes the
    change."""
    touched = _storing_once.get()
    if touched is not None:
        if pages is None and entry_ids is None:
            touched.add(None)
        else:
            touched.update(pages if pages is not None else selectors.pages_touched(entry_ids))
        return
    try:
        if pages is not None:
            store_first_pages(pages)
        elif entry_ids is None:
            store_all_first_pages()
        else:
            store_first_pages(selectors.pages_touched(entry_ids))
    except Exception:
        logger.exception("Could not store the first pages touched by entries %s", entry_ids)
