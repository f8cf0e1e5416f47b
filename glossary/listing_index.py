"""The live listing: what the public lists and search read, kept as versions go live and go.

A list page must not sort, count or render every live entry per request
(bench/README.md: 54 ms for the index at 10,000 entries). So each live version
has a `Listing` row with its A–Z keys (and, rendered with its page, its rows:
glossary.listing_rows), a `ListingName` row for each person, episode,
organisation and tag it names (so an object's page reads one page of its
entries from an index), and `ListingCount` keeps how many listed versions start
with each letter and name each object, changed by one as versions come and go.

Kept in the publishing transaction, through the search index's hooks
(glossary.search.index_live / unindex / reindex_all, which glossary.publishing
calls whenever a version goes live, is replaced or is withdrawn):

- `index_live(version, doc)`: list a version that has just gone live. The row's
  existence is the claim: a version already listed is left as it is (one
  INSERT ... ON CONFLICT DO NOTHING, its row count saying which), so counts
  move exactly once per version whatever calls it twice;
- `write_names(...)`: its names, with what each object's page shows of it, written
  when its page is rendered (glossary.listing_rows);
- `unindex(version)`: delist a withdrawn or replaced version, its names and its
  counts (moved back by what its document names, as they were moved);
- `clear()`: forget every row before `reindex_all` lists every live version again.

Every change to the counts first updates the total's row, so concurrent
publishes take the counts' row locks in one order and cannot deadlock.

A row exists only for a live version: on PostgreSQL the database refuses to commit
a transaction that leaves one behind (a deferred foreign key to `Entry.live_version`,
migration 0023), on SQLite each row is checked live as it is read (glossary.selectors,
`_IS_LIVE`).
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection

from glossary import document
from glossary.document import EntryDocument
from glossary.models import EntryVersion, Listing, ListingCount, ListingName, PublicRecord

Kind = PublicRecord.Kind
LETTERS = string.ascii_uppercase
# The index's groups in order: "#" (digits and symbols), then A to Z.
GROUPS = ["#", *LETTERS]
# Counts: the total's row, then a row per letter, then per object.
TOTAL = (ListingCount.TOTAL, 0)
LETTER = ListingCount.LETTER


def a_to_z(term: str) -> tuple[int, str]:
    """Where a term sits in the A–Z lists: its group (0 "#", 1–26 A–Z), then its lowercase."""
    first = term[:1].upper()
    initial = LETTERS.index(first) + 1 if len(first) == 1 and first in LETTERS else 0
    return initial, term.lower()


def named(doc: EntryDocument) -> list[tuple[str, int]]:
    """The objects with public pages that `doc` names: the version's public indexes."""
    refs = document.referenced(doc)
    return sorted(
        [(Kind.EPISODE.value, pk) for pk in refs.episodes]
        + [(Kind.PERSON.value, pk) for pk in refs.people]
        + [(Kind.ORGANISATION.value, pk) for pk in refs.organisations]
        + [(Kind.TAG.value, pk) for pk in refs.tags]
    )


def _change_counts(keys: Iterable[tuple[str, int]], by: int) -> None:
    """Add `by` to each count, in one statement, the total's row first (lock order)."""
    rows = [TOTAL, *sorted(set(keys) - {TOTAL})]
    table = ListingCount._meta.db_table
    values = ", ".join(["(%s, %s, %s)"] * len(rows))
    params: list[str | int] = []
    for kind, object_id in rows:
        params += [kind, object_id, by]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (kind, object_id, live) VALUES {values} "  # noqa: S608 - constants
            f"ON CONFLICT (kind, object_id) DO UPDATE SET live = {table}.live + excluded.live",
            params,
        )


def index_live(
    version: EntryVersion,
    doc: EntryDocument,
    *,
    words: tuple[str, Sequence[Any]] | None = None,
) -> bool:
    """List `version`, which has just gone live; False if it already was (nothing changes).

    `words`: a SELECT giving the row's four search vectors (glossary.search, on
    PostgreSQL) and its parameters, written with the row so it is written once.
    """
    initial, sort_key = a_to_z(doc.term)
    table = Listing._meta.db_table
    columns = "version_id, initial, sort_key, term, slug, names, row_html, feed_entry, "
    columns += "sitemap_url, api_row, show_id"
    # The show as the version was saved, never the working copy's (a draft moved to another
    # show moves no public page).
    values: list[Any] = [
        version.pk,
        initial,
        sort_key,
        doc.term,
        doc.slug,
        doc.search_names(),
        version.show_id,
    ]
    if words is None:
        sql = (
            f"INSERT INTO {table} ({columns}) "  # noqa: S608
            "VALUES (%s, %s, %s, %s, %s, %s, '', '', '', '', %s)"
        )
    else:
        select, params = words
        sql = (
            f"INSERT INTO {table} ({columns}, words_a, words_ab, words_abc, words_abcd) "  # noqa: S608
            f"SELECT %s, %s, %s, %s, %s, %s, '', '', '', '', %s, w.* FROM ({select}) AS w"
        )
        values += params
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} ON CONFLICT (version_id) DO NOTHING", values)
        if cursor.rowcount != 1:
            return False
    # The names are written with the rows, when the page is rendered (glossary.listing_rows).
    _change_counts([(LETTER, initial), *named(doc)], +1)
    return True


def unindex(version: EntryVersion) -> bool:
    """Delist `version`, withdrawn or replaced; False if it was not listed.

    The counts move back by what the document names, as `index_live` moved them.
    """
    names, listings = ListingName._meta.db_table, Listing._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {names} WHERE listing_id = %s", [version.pk])  # noqa: S608
        cursor.execute(
            f"DELETE FROM {listings} WHERE version_id = %s RETURNING initial",  # noqa: S608
            [version.pk],
        )
        gone = cursor.fetchone()
    if gone is None:
        return False
    _change_counts([(LETTER, int(gone[0])), *named(document.load(version.data))], -1)
    return True


# Rows per statement when names are written: well under SQLite's limit on parameters.
_NAMES_PER_STATEMENT = 500


def write_names(
    items: Sequence[tuple[int, EntryDocument, str, dict[tuple[str, int], str]]],
) -> None:
    """The ListingName rows of these versions (id, document, link, parts), each with the
    version's link as the objects' pages list it and what its object's page shows
    (`parts`, JSON): statements that write them the first time and rewrite them after, a
    few hundred rows each, whatever the number of versions."""
    rows: list[list[Any]] = []
    for version_id, doc, link, parts in items:
        initial, sort_key = a_to_z(doc.term)
        for kind, object_id in named(doc):
            part = parts.get((kind, object_id), "")
            rows.append([version_id, kind, object_id, initial, sort_key, doc.term, link, part])
    table = ListingName._meta.db_table
    for start in range(0, len(rows), _NAMES_PER_STATEMENT):
        chunk = rows[start : start + _NAMES_PER_STATEMENT]
        values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s)"] * len(chunk))
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} (listing_id, kind, object_id, initial, sort_key, term, "  # noqa: S608
                f"link, part) VALUES {values} ON CONFLICT (listing_id, kind, object_id) "
                "DO UPDATE SET link = excluded.link, part = excluded.part",
                [value for row in chunk for value in row],
            )


def clear() -> None:
    """Forget every listing row and count (reindex_all lists every live version again)."""
    ListingName.objects.all().delete()
    Listing.objects.all().delete()
    ListingCount.objects.all().delete()
