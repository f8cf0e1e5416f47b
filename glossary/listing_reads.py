"""The live listing and the public records, read in SQL: what the public lists, the sitemap,
the feed, search and the object pages read on every request.

The same visibility rule as glossary.selectors (every row read is a live version's listing,
`_IS_LIVE`), written by hand: compiling an ORM query costs as much as running one of these,
and a page runs a few. Each statement is kept prepared (glossary.prepared).
"""

from __future__ import annotations

import datetime
import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from django.db import connection

from glossary.models import (
    Entry,
    EntryVersion,
    Listing,
    ListingCount,
    ListingName,
    PublicRecord,
    PublicRecordLink,
)
from glossary.page_fingerprints import Seen, Stored, stored_or_rows
from glossary.paths import current_show
from glossary.prepared import aware, fetch

# --- The live listing (glossary.listing_index) ----------------------------------------------
#
# Public lists read a page of listing rows from an index. Written as SQL: compiling an
# ORM query costs as much as running one of these (0.3 ms), and a list page runs a few.
# Every statement reads only listing rows of live versions, the same rule as
# `live_versions()` (`_IS_LIVE`); a page's ids are first read from an index of the listing
# alone, then read, so a row that were not live would only be missing.

_LISTING = Listing._meta.db_table
_NAMED = ListingName._meta.db_table
_ENTRY = Entry._meta.db_table
# The rule: the listing's version is an entry's live version. On PostgreSQL the database
# holds it for every row at every commit (a deferred foreign key from the listing's version
# to `Entry.live_version`, migration 0023): a transaction that leaves a row of a version
# no longer live does not commit, so each statement's snapshot holds only live versions'
# rows and nothing is checked per row (checking was half of a sitemap page's database time
# at 10,000 entries, bench/README.md). SQLite cannot add that key to the table, so there
# each row is looked up (OFFSET keeps a planner from turning the lookup into a join that
# hashes every live entry: a page costs the rows it reads, whatever the glossary's size).
_IS_LIVE = (
    "TRUE"
    if connection.vendor == "postgresql"
    else (
        f"EXISTS (SELECT 1 FROM {_ENTRY} e "  # noqa: S608 - constants
        "WHERE e.live_version_id = l.version_id LIMIT 1 OFFSET 0)"
    )
)
_FROM_LISTING = f"{_LISTING} l"
# A listed version's search text (`v.search_text`): what a search page marks its hits with,
# read in the statement that finds them. Versions never change, and the listing decides
# which are shown.
SEARCH_TEXT = "v.search_text"
_WITH_SEARCH_TEXT = f"JOIN {EntryVersion._meta.db_table} v ON v.id = l.version_id"
# The same rule for a listing's name rows (`n`), read without their listing.
_NAME_IS_LIVE = (
    "TRUE"
    if connection.vendor == "postgresql"
    else (
        f"EXISTS (SELECT 1 FROM {_ENTRY} e "  # noqa: S608 - constants
        "WHERE e.live_version_id = n.listing_id LIMIT 1 OFFSET 0)"
    )
)
_A_TO_Z = "initial, sort_key, term"


def _this_show() -> int | None:
    """The show whose site is being served (glossary.paths.current_show), or None: then
    every list below reads the whole network's listing, as it always did."""
    site = current_show()
    return site.show_id if site else None


def _on_this_site(where: str) -> str:
    """`where` (over `l`), narrowed to the current show's listings on its site. The show's
    id is written in (an int from the database), so each show's statement is prepared as
    its own."""
    show = _this_show()
    return where if show is None else f"({where}) AND l.show_id = {int(show)}"


def _show_listed(show: int, columns: str, *, offset: int, limit: int) -> list[tuple[Any, ...]]:
    """`limit` of a show's live listings in A–Z order after `offset`, from the show's own
    A–Z index (`listing_show_a_to_z_idx`)."""
    return fetch(
        f"SELECT {columns} FROM {_FROM_LISTING} WHERE l.show_id = %s AND {_IS_LIVE} "  # noqa: S608
        f"ORDER BY l.show_id, {_LISTINGS_A_TO_Z.key} LIMIT %s OFFSET %s",
        [show, limit, offset],
        keep_plan=True,
    )


# The columns a list may read (list rows are rendered at publish: glossary.listing_rows).
LISTING_COLUMNS = frozenset(
    {
        "l.version_id",
        "l.initial",
        "l.term",
        "l.slug",
        "l.row_html",
        "l.feed_entry",
        "l.sitemap_url",
        "l.api_row",
    }
)


# The columns an object's page may read of the name rows, without their listing.
NAME_COLUMNS = frozenset({"n.link"})


def _columns(columns: str) -> str:
    for column in columns.split(","):
        if column.strip() not in LISTING_COLUMNS | {SEARCH_TEXT}:
            raise ValueError(f"{column.strip()!r} is not a listing column a list may read.")
    return columns


def _version_for(columns: str) -> str:
    """The join to the listing's version (`v`) that reading `columns` needs, if any."""
    return _WITH_SEARCH_TEXT if SEARCH_TEXT in columns else ""


def _listing_for(columns: str) -> str:
    """The listing (`l`) to read `columns` from: joined to its version (`v`) when they name
    its search text."""
    return f"{_FROM_LISTING} {_version_for(columns)}"


@dataclass(frozen=True)
class _AToZ:
    """An A–Z index a page of a list is read from."""

    table: str
    # Which of its entries the list holds, and the unique column that ends its key.
    where: str
    tie: str
    # The key as the reading statement names it.
    key: str

    def between(
        self, params: list[Any], *, offset: int | str, limit: int, known: int | None
    ) -> tuple[str, list[Any]]:
        """The reading statement's key from the entry at `offset` to the page's last one.

        Both keys are found by skipping entries of the index alone. Bounded at both ends
        the range is small to the database, which walks the index; with only a lower
        bound it may gather and sort all that follows, which is done only where `known`,
        the list's length, says this is the last page, so that what follows is the page.
        Without `known` the page ends at the entry `limit - 1` after its first, or at the
        list's last one. `offset` may be an expression of the statement itself (SQL with
        no parameters): the length is then not known.
        """
        keys = f"{_A_TO_Z}, {self.tie}"

        def at(skip: str) -> str:
            return (
                f"(SELECT {keys} FROM {self.table} WHERE {self.where} "  # noqa: S608
                f"ORDER BY {keys} LIMIT 1 OFFSET {skip})"
            )

        if isinstance(offset, str):
            start, start_params = at(offset), [*params]
            end, end_params = at(f"{offset} + %s"), [*params, limit - 1]
            known = None
        else:
            start, start_params = at("%s"), [*params, offset]
            if known is not None and offset + limit > known:
                return f"({self.key}) >= {start}", start_params
            end, end_params = at("%s"), [*params, offset + limit - 1]
        if known is None:
            backwards = ", ".join(f"{key.strip()} DESC" for key in keys.split(","))
            end = (
                f"(SELECT {keys} FROM (SELECT 0 AS nth, {keys} FROM {end} AS at_end "  # noqa: S608
                f"UNION ALL SELECT 1, {keys} FROM (SELECT {keys} FROM {self.table} "
                f"WHERE {self.where} ORDER BY {backwards} LIMIT 1) AS last) AS ends "
                "ORDER BY nth LIMIT 1)"
            )
            end_params.extend(params)
        return f"({self.key}) >= {start} AND ({self.key}) <= {end}", [*start_params, *end_params]


# The live listings' A–Z index, each page read from the letter it starts in (`page_start`,
# `_PAGE_START`).
_LISTINGS_A_TO_Z = _AToZ(
    _LISTING,
    "initial >= (SELECT initial FROM page_start)",
    "version_id",
    "l.initial, l.sort_key, l.term, l.version_id",
)
_NAMES_A_TO_Z = _AToZ(
    _NAMED,
    "kind = %s AND object_id = %s",
    "listing_id",
    "n.initial, n.sort_key, n.term, n.listing_id",
)


def _read_page(
    index: _AToZ,
    sql: str,
    head: list[Any],
    params: list[Any],
    *,
    offset: int,
    limit: int,
    known: int | None,
) -> list[tuple[Any, ...]]:
    """Run `sql` (which leaves the page's range to fill, as `{between}`) for one page."""
    between, range_params = index.between(params, offset=offset, limit=limit, known=known)
    rows = fetch(sql.format(between=between), [*head, *range_params, limit], keep_plan=True)
    if not rows and known is not None:
        # The kept count ran ahead of the index (it should never): read without the end.
        return _read_page(index, sql, head, params, offset=offset, limit=limit, known=None)
    return rows


# Where a page of the A–Z index starts, from the letters' counts (`ListingCount.LETTER`,
# kept at publish) rather than by skipping every row before it: `letters` (each letter's
# count), and `page_start`, the first letter whose running total passes the offset (the
# first parameter, given twice) and how many of its rows come before the page. The
# letters' kind is written in, not bound: planned once for any value, `kind = $1` was
# taken to hold a sixth of all counts, and every count was scanned for 19 rows.
_PAGE_START = (
    "letters AS (SELECT object_id AS initial, CASE WHEN live > 0 THEN live "  # noqa: S608
    f"ELSE 0 END AS live FROM {ListingCount._meta.db_table} "
    f"WHERE kind = '{ListingCount.LETTER}'), "
    "page_start AS (SELECT initial, %s - (through - live) AS skip FROM (SELECT initial, "
    "live, SUM(live) OVER (ORDER BY initial) AS through FROM letters) AS running "
    "WHERE through > %s ORDER BY initial LIMIT 1)"
)


def _from_page_start(limit: int) -> tuple[str, list[Any]]:
    """The condition on `l` reading a page of `limit` live listings from `page_start`
    (`_PAGE_START`): from the letter it starts in, only that letter's earlier rows are
    skipped in the index; its last row is the one `limit - 1` after its first, or the
    index's last. A page past the end reads no row (no row is at or after NULL; SQLite
    refuses a NULL offset)."""
    return _LISTINGS_A_TO_Z.between(
        [], offset="COALESCE((SELECT skip FROM page_start), 0)", limit=limit, known=None
    )


def _a_to_z_page(select: str, *, offset: int, limit: int) -> tuple[str, list[Any]]:
    """The statement reading `select` (columns of `l`) for `limit` live listings in A–Z
    order after `offset`, and its parameters (`listed_a_to_z`)."""
    between, range_params = _from_page_start(limit)
    return (
        f"WITH {_PAGE_START} SELECT {select} FROM {_FROM_LISTING} "  # noqa: S608
        f"WHERE {between} AND {_IS_LIVE} ORDER BY {_LISTINGS_A_TO_Z.key} LIMIT %s",
        [offset, offset, *range_params, limit],
    )


def listed_a_to_z(columns: str, *, offset: int = 0, limit: int) -> list[tuple[Any, ...]]:
    """`limit` live listings in A–Z order after `offset` (`_IS_LIVE`), read in order
    from the A–Z index from the letter the page starts in (`_PAGE_START`): never sorted,
    never more than the page, whatever page it is (skipping every row before the page,
    a sitemap's twentieth page walked 20,000 index entries at 10,000 entries).
    """
    show = _this_show()
    if show is not None:
        return _show_listed(show, _columns(columns), offset=offset, limit=limit)
    sql, params = _a_to_z_page(_columns(columns), offset=offset, limit=limit)
    return fetch(sql, params, keep_plan=True)


def joined_a_to_z(column: str, *, offset: int = 0, limit: int) -> str | None:
    """`listed_a_to_z`'s page of one column as one text, or None when the page has no row:
    a sitemap page's addresses. On PostgreSQL the database joins them: a sitemap page of 500
    addresses arrives as one value instead of 500 rows to convert and join in the web worker
    (0.42 against 0.22 ms of its CPU a page at 10,000 entries, bench/README.md).

    The rows are joined as the page reads them, which is A–Z (its plan reads them from the
    index, or sorts them, under its LIMIT), but the aggregate is not asked to sort them
    again: PostgreSQL 15 sorts an aggregate's input for an ORDER BY of its own even when it
    arrives sorted, about a fifth of a sitemap page's database time at 10,000 entries
    (bench/README.md). A sitemap's addresses need no order; SQL promises none here.
    """
    if connection.vendor != "postgresql" or _this_show() is not None:
        rows = listed_a_to_z(column, offset=offset, limit=limit)
        return "".join(value for (value,) in rows) if rows else None
    page, params = _a_to_z_page(f"{_columns(column)} AS shown", offset=offset, limit=limit)
    (found,) = fetch(
        f"SELECT string_agg(shown, '') FROM ({page}) AS page",  # noqa: S608 - constants
        params,
        keep_plan=True,
    )
    joined: str | None = found[0]
    return joined


def listed_naming(
    kind: str,
    object_id: int,
    columns: str,
    *,
    offset: int = 0,
    limit: int,
    known: int | None = None,
) -> list[tuple[Any, ...]]:
    """`limit` live listings naming one object (glossary.listing_index), A–Z, after `offset`
    (`known`: how many name it, kept at publish), read in order from the names' index.

    `columns` are the listing's (`l.…`: each name row's listing is joined) or the name
    rows' own (`n.link`: read from the names' index and rows alone). The last column is
    what the object's page shows of each (`ListingName.part`), or None.
    """
    # A tag's page is the show's own on its site; a person's, episode's or organisation's
    # is the network's wherever it is read.
    show = _this_show() if kind == PublicRecord.Kind.TAG else None
    if show is not None:
        # A show's share of the names: read in A–Z order from the names' index, its
        # listings' show checked (a show's site lists fewer, on smaller pages of work).
        _columns(
            ",".join(c for c in columns.split(",") if c.strip() not in NAME_COLUMNS) or "l.slug"
        )
        rows = fetch(
            f"SELECT {columns}, n.part FROM {_NAMED} n JOIN {_FROM_LISTING} "  # noqa: S608
            "ON l.version_id = n.listing_id WHERE n.kind = %s AND n.object_id = %s "
            f"AND l.show_id = %s AND {_IS_LIVE} ORDER BY {_NAMES_A_TO_Z.key} LIMIT %s OFFSET %s",
            [kind, object_id, show, limit, offset],
            keep_plan=True,
        )
        parts = _loads_each([row[-1] for row in rows])
        return [(*row[:-1], part) for row, part in zip(rows, parts, strict=True)]
    if all(column.strip() in NAME_COLUMNS for column in columns.split(",")):
        source, live = f"{_NAMED} n", _NAME_IS_LIVE
    else:
        _columns(columns)
        source = f"{_NAMED} n JOIN {_FROM_LISTING} ON l.version_id = n.listing_id"
        live = _IS_LIVE
    sql = (
        f"SELECT {columns}, n.part FROM {source} "  # noqa: S608 - constants
        "WHERE n.kind = %s AND n.object_id = %s AND {between} "
        f"AND {live} ORDER BY {_NAMES_A_TO_Z.key} LIMIT %s"
    )
    rows = _read_page(
        _NAMES_A_TO_Z,
        sql,
        [kind, object_id],
        [kind, object_id],
        offset=offset,
        limit=limit,
        known=known,
    )
    parts = _loads_each([row[-1] for row in rows])
    return [(*row[:-1], part) for row, part in zip(rows, parts, strict=True)]


def listing_count(kind: str, object_id: int) -> int:
    """How many live listings name one object (or, kind `ListingCount.TOTAL`, there are)."""
    show = _this_show()
    if show is not None and kind == ListingCount.TOTAL:
        # A show's entries are counted, not kept: a show's site lists a share of the network.
        (counted,) = fetch(
            f"SELECT COUNT(*) FROM {_FROM_LISTING} WHERE l.show_id = %s AND {_IS_LIVE}",  # noqa: S608
            [show],
            keep_plan=True,
        )
        return int(counted[0])
    rows = fetch(
        f"SELECT live FROM {ListingCount._meta.db_table} WHERE kind = %s AND object_id = %s",  # noqa: S608
        [kind, object_id],
        keep_plan=True,
    )
    return max(0, int(rows[0][0])) if rows else 0


def live_listing_rows(
    columns: str,
    where: str,
    params: Sequence[Any],
    order: str,
    *,
    limit: int,
    offset: int = 0,
    order_params: Sequence[Any] = (),
) -> list[tuple[Any, ...]]:
    """Live listings matching `where` (SQL over `l`, the listing), in `order`: what search
    reads (glossary.search builds the conditions from the reader's words, as parameters)."""
    where = _on_this_site(where)
    return fetch(
        f"SELECT {_columns(columns)} FROM {_listing_for(columns)} WHERE {_IS_LIVE} AND {where} "  # noqa: S608
        f"ORDER BY {order} LIMIT %s OFFSET %s",
        [*params, *order_params, limit, offset],
        keep_plan="for_values",
    )


def live_listing_two_tiers(
    columns: str,
    first: tuple[str, Sequence[Any], str, Sequence[Any]],
    second: tuple[str, Sequence[Any], str, Sequence[Any]],
    *,
    limit: int,
    count_limit: int,
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], int]:
    """Two `live_listing_rows` reads in one statement (each: where, params, order, order
    params), the second leaving out the rows of the first, and how many rows the second
    holds, counted no further than `count_limit`: the first page of a search is one round
    trip.

    The first tier's rows are found once and the second leaves them out by id, not by
    testing each of its rows against the first's condition again: a common word's second
    tier tests hundreds of rows, and the test (names ILIKE the query, its words in the
    names) cost a quarter of the statement at 1,000 entries (bench/README.md).
    """
    (w1, p1, o1, op1), (w2, p2, o2, op2) = first, second
    w1, w2 = _on_this_site(w1), _on_this_site(w2)
    cols = _columns(columns)
    head = f"FROM {_FROM_LISTING} WHERE {_IS_LIVE} AND"
    listing = _listing_for(cols)
    first_ids = f"first_ids AS MATERIALIZED (SELECT l.version_id {head} {w1})"  # noqa: S608
    w2 = f"{w2} AND l.version_id NOT IN (SELECT version_id FROM first_ids)"  # noqa: S608
    first_tier = (
        f"SELECT * FROM (SELECT 0 AS tier, {cols}, CAST(NULL AS BIGINT) AS counted "  # noqa: S608
        f"FROM {listing} WHERE l.version_id IN (SELECT version_id FROM first_ids) "
        f"ORDER BY {o1} LIMIT %s) AS first_tier"
    )
    if o2 == _LISTINGS_A_TO_Z.key and not op2 and count_limit >= limit:
        # The second tier's rows are the first of those its count walks (both A–Z), so
        # the rows are walked once: a common word fills it, and every row walked is a
        # row's words matched against the query. The walk keeps only the order's keys
        # (a listing row is wide: carrying its columns through the walk and its sort cost
        # a fifth of the statement), and the page's rows are read by id at the end.
        rows = fetch(
            f"WITH {first_ids}, walked AS MATERIALIZED (SELECT "  # noqa: S608
            f"l.initial AS k1, l.sort_key AS k2, l.term AS k3, l.version_id AS k4 {head} {w2} "
            f"ORDER BY {_LISTINGS_A_TO_Z.key} LIMIT %s) {first_tier} UNION ALL "
            f"SELECT * FROM (SELECT 1 AS tier, {cols}, "
            "(SELECT COUNT(*) FROM walked) AS counted FROM (SELECT * FROM walked "
            f"ORDER BY k1, k2, k3, k4 LIMIT %s) AS w JOIN {_FROM_LISTING} ON l.version_id = w.k4 "
            f"{_version_for(cols)} ORDER BY w.k1, w.k2, w.k3, w.k4) AS second_tier",
            # In the order the statement names them: the first tier's ids, the walk, the
            # first tier, the second.
            [*p1, *p2, count_limit, *op1, limit, limit],
            keep_plan="for_values",
        )
    else:
        counted = (
            f"(SELECT COUNT(*) FROM (SELECT 1 {head} {w2} "  # noqa: S608 - constants
            f"ORDER BY {_LISTINGS_A_TO_Z.key} LIMIT %s) AS found)"
        )
        rows = fetch(
            f"WITH {first_ids} {first_tier} UNION ALL "  # noqa: S608 - constants
            f"SELECT * FROM (SELECT 1 AS tier, {cols}, {counted} AS counted "
            f"FROM {listing} WHERE {_IS_LIVE} AND {w2} ORDER BY {o2} LIMIT %s) AS second_tier",
            # In the order the statement names them: the first tier's ids, the first tier,
            # the count, the second.
            [*p1, *op1, limit, *p2, count_limit, *p2, *op2, limit],
            keep_plan="for_values",
        )
    # A union's branches come out in turn, each in its own order: keep that order.
    ones = [row[1:-1] for row in rows if row[0] == 0]
    twos = [row for row in rows if row[0] == 1]
    return ones, [row[1:-1] for row in twos], int(twos[0][-1]) if twos else 0


def live_listing_count(where: str, params: Sequence[Any], *, limit: int) -> int:
    """How many live listings match `where`, counting no further than `limit`.

    In A–Z order, so the database may walk the index and stop at `limit` when most rows
    match (a word in every entry), as it gathers the few when few do: without an order
    its only plans gather every match first.
    """
    where = _on_this_site(where)
    rows = fetch(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM {_FROM_LISTING} WHERE {_IS_LIVE} AND {where} "  # noqa: S608
        f"ORDER BY {_LISTINGS_A_TO_Z.key} LIMIT %s) AS found",
        [*params, limit],
        keep_plan="for_values",
    )
    return int(rows[0][0])


def _newest_sql(columns: str, times: Literal["each", "first"]) -> str:
    changed = (
        "e.significant_change_at"
        if times == "each"
        else "CASE WHEN ROW_NUMBER() OVER (ORDER BY e.significant_change_at DESC, e.term) = 1 "
        "THEN e.significant_change_at END"
    )
    return (
        f"SELECT {_columns(columns)}, {changed} FROM {_ENTRY} e "  # noqa: S608 - constants
        f"JOIN {_LISTING} l ON l.version_id = e.live_version_id "
        f"WHERE {_on_this_site('e.live_version_id IS NOT NULL')} "
        "ORDER BY e.significant_change_at DESC, e.term LIMIT %s"
    )


def newest_listings(
    columns: str, *, limit: int, times: Literal["each", "first"] = "each"
) -> list[tuple[Any, ...]]:
    """The live listings of the entries changed most recently (significantly), newest first,
    each with that change's time (`times="first"`: the first only, the others None; the
    feed needs only the newest): read from the top of `entry_published_recent_idx`."""
    rows = fetch(_newest_sql(columns, times), [limit], keep_plan=True)
    return [(*row[:-1], aware(row[-1])) for row in rows]


def a_to_z_page(
    *, recent: int, offset: int, limit: int
) -> tuple[dict[int, int], list[tuple[str, str, datetime.datetime | None]], list[tuple[int, str]]]:
    """What a page of the A–Z index reads, in one statement: how many live listings start
    with each letter (`ListingCount.LETTER`, kept at publish, not counted), the
    `recent` newest listings as (term, slug, time of their change), and the page: `limit`
    live listings in A–Z order after `offset`, as (initial, row) (`_IS_LIVE`), read
    from the A–Z index as `listed_a_to_z` reads them.

    The page starts in the letter holding its first row, found from the kept counts in the
    statement itself, so only that letter's earlier rows are skipped in the index; its
    last row is the one `limit - 1` after its first, or the index's last. A page past the
    end reads no row. (Two statements, counts first, cost the same CPU on one machine and a
    round trip more wherever the database is across a network: bench/README.md. Kept
    prepared, it needs the generic plan config/settings.py asks for: left to choose,
    PostgreSQL planned it afresh on every run.)
    """
    show = _this_show()
    if show is not None:
        return _show_a_to_z_page(show, recent=recent, offset=offset, limit=limit)
    between, range_params = _from_page_start(limit)
    key = _LISTINGS_A_TO_Z.key
    # Each branch's rows in six columns: part, two numbers, two texts, a time. (Typed
    # NULLs: in a subquery an untyped one is text, which a union cannot match.)
    rows = fetch(
        # The letters' counts, and where the page starts.
        f"WITH {_PAGE_START} "  # noqa: S608
        "SELECT 0 AS part, initial, live, CAST(NULL AS TEXT), CAST(NULL AS TEXT), "
        "CAST(NULL AS TIMESTAMP WITH TIME ZONE) FROM letters "
        "UNION ALL SELECT * FROM (SELECT 1, CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), "
        f"newest.* FROM ({_newest_sql('l.term, l.slug', 'each')}) AS newest) AS newest_listed "
        f"UNION ALL SELECT * FROM ({_page_by_letter(between, key)}) AS page",
        [offset, offset, recent, *range_params, limit],
        keep_plan=True,
    )
    # A union's branches come out in turn, each in its own order.
    counts = {int(initial): int(live) for part, initial, live, *_ in rows if part == 0}
    newest = [(term, slug, aware(at)) for part, _, _, term, slug, at in rows if part == 1]
    page = [(int(initial), row) for part, initial, _, row, _, _ in rows if part == 2]
    return counts, newest, page


def _show_a_to_z_page(
    show: int, *, recent: int, offset: int, limit: int
) -> tuple[dict[int, int], list[tuple[str, str, datetime.datetime | None]], list[tuple[int, str]]]:
    """`a_to_z_page` on a show's site, in one statement: its letters' counts are counted
    from the show's A–Z index (a show's share of the network is small; the network's are
    kept at publish), then its newest listings and the page, read from that index."""
    rows = fetch(
        "SELECT 0 AS part, initial, COUNT(*), CAST(NULL AS TEXT), CAST(NULL AS TEXT), "  # noqa: S608
        f"CAST(NULL AS TIMESTAMP WITH TIME ZONE) FROM {_FROM_LISTING} "
        f"WHERE l.show_id = %s AND {_IS_LIVE} GROUP BY initial "
        "UNION ALL SELECT * FROM (SELECT 1, CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), "
        f"newest.* FROM ({_newest_sql('l.term, l.slug', 'each')}) AS newest) AS newest_listed "
        "UNION ALL SELECT * FROM (SELECT 2, l.initial, CAST(NULL AS BIGINT), l.row_html, "
        f"CAST(NULL AS TEXT), CAST(NULL AS TIMESTAMP WITH TIME ZONE) FROM {_FROM_LISTING} "
        f"WHERE l.show_id = %s AND {_IS_LIVE} ORDER BY l.show_id, {_LISTINGS_A_TO_Z.key} "
        "LIMIT %s OFFSET %s) AS page",
        [show, recent, show, limit, offset],
        keep_plan=True,
    )
    counts = {int(initial): int(live) for part, initial, live, *_ in rows if part == 0}
    newest = [(term, slug, aware(at)) for part, _, _, term, slug, at in rows if part == 1]
    page = [(int(initial), row) for part, initial, _, row, _, _ in rows if part == 2]
    return counts, newest, page


def _page_by_letter(between: str, key: str) -> str:
    """The A–Z index page's branch of `a_to_z_page`: its rows from the index, in order, as
    (2, initial, NULL, row, NULL, NULL). On PostgreSQL the database joins each letter's rows
    into one text, as `joined_a_to_z` joins a sitemap page's: a page of 200 rows arrives as a
    row or two per letter, not 200 to convert and group in the web worker. Readers read this
    order, so unlike a sitemap's it is asked of the aggregate. (SQLite's group_concat
    promises no order: there each row comes as it is.)"""
    page = (
        f"SELECT l.row_html, {key} FROM {_FROM_LISTING} "  # noqa: S608 - constants
        f"WHERE {between} AND {_IS_LIVE} ORDER BY {key} LIMIT %s"
    )
    if connection.vendor != "postgresql":
        return (
            "SELECT 2, initial, CAST(NULL AS BIGINT), row_html, CAST(NULL AS TEXT), "  # noqa: S608
            f"CAST(NULL AS TIMESTAMP WITH TIME ZONE) FROM ({page}) AS rows"
        )
    return (
        "SELECT 2, initial, CAST(NULL AS BIGINT), string_agg(row_html, '' "  # noqa: S608
        "ORDER BY sort_key, term, version_id), CAST(NULL AS TEXT), "
        f"CAST(NULL AS TIMESTAMP WITH TIME ZONE) FROM ({page}) AS rows GROUP BY initial "
        "ORDER BY initial"
    )


# --- Public records, read without the ORM's compiler (the object pages' hot path) ----------

_RECORD = PublicRecord._meta.db_table
_RECORD_LINK = PublicRecordLink._meta.db_table


class Record(NamedTuple):
    """A public record as the object pages read it: its facts as stored (glossary.records
    writes them from validated documents), without a model instance per row."""

    kind: str
    object_id: int
    slug: str
    name: str
    data: dict[str, Any]


def _record(kind: str, row: tuple[Any, ...]) -> Record:
    _, object_id, slug, name, data = row
    loaded = data if isinstance(data, dict) else json.loads(data)
    return Record(kind, int(object_id), slug, name, loaded)


# The first page of what an object's page lists, read in the statement that finds its record:
# the live listings naming the object (`listed_naming` from its start), A–Z, as (its link,
# what the page shows of it), numbered in that order, from the names' rows alone: joining
# each to its listing for a term and slug to escape was a fifth of a person's statement.
# `{object_id}` is the object's id as an uncorrelated subquery, which the planner reads once.
_FIRST_NAMED = (
    "SELECT ROW_NUMBER() OVER (ORDER BY initial, sort_key, term, listing_id) AS ord, "  # noqa: S608
    f"link, part FROM (SELECT n.initial, n.sort_key, n.term, n.listing_id, n.link, n.part "
    f"FROM {_NAMED} n WHERE n.kind = %s AND n.object_id = {{object_id}} "
    f"AND {_NAME_IS_LIVE} ORDER BY {_NAMES_A_TO_Z.key} LIMIT %s) AS listed"
)


def _named_part(part: Any) -> Any:
    return json.loads(part) if isinstance(part, str) and part else part or None


def _loads_each(texts: Sequence[Any]) -> list[Any]:
    """Each stored JSON text decoded (an empty one as None), as `_named_part` does one: the
    texts of a page (its episodes' facts and its entries' parts, seventy or so) in one call
    to the decoder, which took half the time of a call each."""
    if not all(isinstance(text, str) for text in texts):
        return [_named_part(text) for text in texts]
    values = json.loads(f"[{','.join(text or 'null' for text in texts)}]")
    if len(values) != len(texts):
        raise ValueError("A stored JSON text held more than one value.")
    return list(values)


# The records an object's page names beside it, and where their ids are: an episode's
# show, sponsors, guests and their employers, in its record (as `found`, its `data`); a
# person's employers and an organisation's shows and the people who spoke for it, in what
# their shown episodes' links carry (glossary.records.link_facts; as `shown`, their
# `facts`). Each id is (its record's kind, the list holding it or None for the document
# itself, its key in each item: a name, or a position in a pair).
_KIND = PublicRecord.Kind
_NAMED_BESIDE: dict[str, tuple[str, list[tuple[str, str | None, str | int]]]] = {
    _KIND.EPISODE: (
        "found.data",
        [
            (_KIND.SHOW, None, "show"),
            (_KIND.ORGANISATION, "sponsors", "organisation"),
            (_KIND.ORGANISATION, "appearances", "affiliation"),
            (_KIND.PERSON, "appearances", "person"),
        ],
    ),
    _KIND.PERSON: ("shown.facts", [(_KIND.ORGANISATION, "roles", 1)]),
    _KIND.ORGANISATION: (
        "shown.facts",
        [(_KIND.SHOW, None, "show"), (_KIND.PERSON, "people", 0)],
    ),
}


@functools.cache
def _ids_named(kind: str, vendor: str) -> str:
    """SQL giving the (kind, object_id) of each record `kind`'s page names beside its
    object (`_NAMED_BESIDE`), in the JSON functions of the `vendor`'s database (constants
    only)."""
    column, paths = _NAMED_BESIDE[kind]
    source = column.split(".")[0]
    postgresql = vendor == "postgresql"
    selects = []
    for named, within, key in paths:
        if postgresql:
            field = f"'{key}'" if isinstance(key, str) else str(key)
            item, items = "item", f"jsonb_array_elements({column} -> '{within}') AS item"
            value = f"CAST({column if within is None else item} ->> {field} AS BIGINT)"
        else:
            field = f"$.{key}" if isinstance(key, str) else f"$[{key}]"
            item, items = "item.value", f"json_each({column}, '$.{within}') AS item"
            value = f"json_extract({column if within is None else item}, '{field}')"
        tables = source if within is None else f"{source}, {items}"
        selects.append(f"SELECT '{named}' AS kind, {value} AS object_id FROM {tables}")  # noqa: S608
    return " UNION ALL ".join(selects)


# Each named record by its key. PostgreSQL: a lateral read, LIMIT 1, so each is one probe
# of the key's index however many records the table holds (as a join, its plan, made
# once for any page, may hash the whole table). SQLite joins by the index on its own.
_NAMED_RECORD = {
    "postgresql": f"CROSS JOIN LATERAL (SELECT b.id, b.object_id, b.slug, b.name, b.data, "  # noqa: S608
    f"b.kind FROM {_RECORD} b WHERE b.kind = wanted.kind AND b.object_id = wanted.object_id "
    "ORDER BY b.id LIMIT 1) AS r",
    "sqlite": f"JOIN {_RECORD} r ON r.kind = wanted.kind AND r.object_id = wanted.object_id",
}


def _named_records(kind: str) -> str:
    """SQL reading the records `kind`'s page names beside its object (`_NAMED_BESIDE`), as
    (id, object_id, slug, name, data as text, kind); `r` the record."""
    return (
        "SELECT r.id, r.object_id, r.slug, r.name, CAST(r.data AS TEXT) AS data, r.kind "  # noqa: S608
        f"FROM (SELECT DISTINCT * FROM ({_ids_named(kind, connection.vendor)}) AS ids) "
        f"AS wanted {_NAMED_RECORD[connection.vendor]}"
    )


class RecordListing(NamedTuple):
    """What an episode's page reads, in one statement (`public_record_listing`)."""

    record: Record
    # How many live listings name it, and the first page of them, as (link, part).
    entries: int
    first: list[Any]
    # The records its record names: (kind, object id) -> record.
    named: dict[tuple[str, int], Record]
    # What a stored page keeps of the rows read (`stored_or_rows`; empty when not asked).
    seen: Seen = Seen("")


def public_record_listing(
    kind: str, slug: str, first: int, stamp: str | None = None, *, fresh: bool = False
) -> RecordListing | Stored | None:
    """`public_record_at`, the first `first` live listings naming its object (as
    `listed_naming(kind, its id, "n.link", limit=first)`) and the records its
    record names (`_NAMED_BESIDE`, (kind, id) -> record), in one statement: an episode's
    page. With `stamp`, the page stored at this address instead, while its rows are
    unchanged (`stored_or_rows`; never with `fresh`)."""
    seen, stored, rows = stored_or_rows(
        f"WITH found AS MATERIALIZED (SELECT r.id, r.kind, r.object_id, r.slug, r.name, "  # noqa: S608
        f"r.data FROM {_RECORD} r WHERE r.kind = %s AND r.slug = %s ORDER BY r.id LIMIT 1) "
        "SELECT 0 AS part, CAST(0 AS BIGINT) AS ord, id, object_id, slug, name, "
        f"CAST(data AS TEXT) AS data, (SELECT c.live FROM {ListingCount._meta.db_table} c "
        "WHERE c.kind = found.kind AND c.object_id = found.object_id) AS named, "
        "kind FROM found "
        "UNION ALL SELECT 1, ord, CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), '', link, "
        "part, CAST(NULL AS BIGINT), '' FROM "
        f"({_FIRST_NAMED.format(object_id='(SELECT object_id FROM found)')}) AS first_page "
        # The named records, with their kind.
        "UNION ALL SELECT 2, CAST(0 AS BIGINT), id, object_id, slug, name, data, "
        f"CAST(NULL AS BIGINT), kind FROM ({_named_records(kind)}) AS named "
        "ORDER BY part, ord",
        [kind, slug, kind, first],
        "p.part, p.ord",
        kind,
        slug,
        stamp,
        columns=("part", "ord", "id", "object_id", "slug", "name", "data", "named", "kind"),
        fresh=fresh,
    )
    if stored is not None:
        return Stored(stored)
    if not rows or rows[0][0] != 0:
        return None
    _, _, *record, count, _ = rows[0]
    # The entries' parts and the named records' data, decoded together.
    decoded = _loads_each([text for *_, text, _, _ in rows[1:]])
    listed, named = [], {}
    for (part, _, _, object_id, slug, name, _, _, named_kind), value in zip(
        rows[1:], decoded, strict=True
    ):
        if part == 1:
            listed.append((name, value))
        else:
            named[(named_kind, int(object_id))] = Record(
                named_kind, int(object_id), slug, name, value
            )
    return RecordListing(_record(kind, tuple(record)), max(0, int(count or 0)), listed, named, seen)


def public_record_at(kind: str, slug: str) -> tuple[Record, int] | None:
    """The public record at an address (`public_record`, in one statement), and how many
    live listings name it (kept at publish: glossary.listing_index)."""
    show = _this_show() if kind == PublicRecord.Kind.TAG else None
    # On a show's site, its own listings naming the object are counted (not kept).
    named = (
        f"(SELECT c.live FROM {ListingCount._meta.db_table} c "  # noqa: S608 - constants
        "WHERE c.kind = r.kind AND c.object_id = r.object_id)"
        if show is None
        else f"(SELECT COUNT(*) FROM {_NAMED} n JOIN {_FROM_LISTING} "  # noqa: S608
        "ON l.version_id = n.listing_id WHERE n.kind = r.kind AND n.object_id = r.object_id "
        f"AND l.show_id = {int(show)} AND {_IS_LIVE})"
    )
    rows = fetch(
        f"SELECT r.id, r.object_id, r.slug, r.name, r.data, {named} "  # noqa: S608 - constants
        f"FROM {_RECORD} r WHERE r.kind = %s AND r.slug = %s ORDER BY r.id LIMIT 1",
        [kind, slug],
        keep_plan=True,
    )
    if not rows:
        return None
    *record, named = rows[0]
    return _record(kind, tuple(record)), max(0, int(named or 0))


class ObjectPage(NamedTuple):
    """What a person's or organisation's page reads, in one statement
    (`public_record_and_episodes`)."""

    record: Record
    # How many live listings name it (kept at publish: glossary.listing_index).
    entries: int
    # The first episodes naming it, as their links' facts, and how many there are.
    episodes: list[dict[str, Any]]
    total: int
    # The first page of the live listings naming it, as (term, slug, part).
    first: list[Any]
    # The records those episodes name beside it: (kind, object id) -> record.
    named: dict[tuple[str, int], Record]
    # What a stored page keeps of the rows read (`stored_or_rows`; empty when not asked).
    seen: Seen = Seen("")


def public_record_and_episodes(
    kind: str, slug: str, limit: int, first: int, stamp: str | None = None, *, fresh: bool = False
) -> ObjectPage | Stored | None:
    """A person's or organisation's page's reads, in one statement: the record at an
    address and how many live listings name it (`public_record_at`), then the first
    `limit` public episodes whose record names it, in list order (shows A to Z, newest
    first), and how many there are: each as what its link carries for the page
    (glossary.records.link_facts). The episodes and their count are read from the links'
    index alone (`publicrecordlink_order_idx`, each link carrying its episode's sort
    key), then only those links' facts: no episode's record is read. Then, as
    `public_record_listing`, the first `first` live listings naming it; last, the
    records of the employers, shows and people those episodes' facts name
    (`_NAMED_BESIDE`; a second statement for them cost the page a sixth of its time).

    With `stamp`, the page stored at this address instead, while its rows are unchanged
    (`stored_or_rows`; never with `fresh`).
    """
    links = _RECORD_LINK
    # The object's id, as a value the planner reads once (an uncorrelated subquery): a
    # condition on the outer row would be evaluated for every record of the table.
    object_id = (
        f"(SELECT a.object_id FROM {_RECORD} a "  # noqa: S608 - constants
        "WHERE a.kind = %s AND a.slug = %s ORDER BY a.id LIMIT 1)"
    )
    seen, stored, rows = stored_or_rows(
        # The episodes shown, read once for their facts and for the records they name.
        f"WITH shown AS MATERIALIZED (SELECT k.record_id, k.facts, k.sort_key FROM {links} k "  # noqa: S608
        f"WHERE k.kind = %s AND k.object_id = {object_id} "
        "ORDER BY k.sort_key, k.record_id LIMIT %s) "
        "SELECT 0 AS part, r.id, r.object_id, r.slug, r.name, CAST(r.data AS TEXT), "
        f"(SELECT c.live FROM {ListingCount._meta.db_table} c "
        "WHERE c.kind = r.kind AND c.object_id = r.object_id), "
        f"(SELECT COUNT(*) FROM {links} k WHERE k.kind = r.kind AND k.object_id = r.object_id), "
        f"'' AS sort_key FROM {_RECORD} r WHERE r.kind = %s AND r.id = "
        f"(SELECT a.id FROM {_RECORD} a WHERE a.kind = %s AND a.slug = %s ORDER BY a.id LIMIT 1) "
        # (Typed NULLs: in a subquery an untyped one is text, which a union cannot match.)
        "UNION ALL SELECT 1, record_id, CAST(NULL AS BIGINT), '', '', CAST(facts AS TEXT), "
        "CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), sort_key FROM shown "
        "UNION ALL SELECT 2, ord, CAST(NULL AS BIGINT), '', link, part, CAST(NULL AS BIGINT), "
        f"CAST(NULL AS BIGINT), '' FROM ({_FIRST_NAMED.format(object_id=object_id)}) AS first_page "
        # The named records, their kind where the others keep their sort key.
        "UNION ALL SELECT 3, id, object_id, slug, name, data, CAST(NULL AS BIGINT), "
        f"CAST(NULL AS BIGINT), kind FROM ({_named_records(kind)}) AS named "
        "ORDER BY part, sort_key, id",
        [kind, kind, slug, limit, kind, kind, slug, kind, kind, slug, first],
        "p.part, p.sort_key, p.id",
        kind,
        slug,
        stamp,
        columns=("part", "id", "object_id", "slug", "name", "data", "live", "links", "sort_key"),
        fresh=fresh,
    )
    if stored is not None:
        return Stored(stored)
    if not rows or rows[0][0] != 0:
        return None
    _, *record, count, total, _ = rows[0]
    # The episodes' facts, the entries' parts and the named records' data, decoded together.
    decoded = _loads_each([text for _, _, _, _, _, text, _, _, _ in rows[1:]])
    episodes, listed, named = [], [], {}
    for (part, _, object_id, slug, name, _, _, _, named_kind), value in zip(
        rows[1:], decoded, strict=True
    ):
        if part == 1:
            episodes.append(value)
        elif part == 2:
            listed.append((name, value))
        else:
            key = (named_kind, int(object_id))
            named[key] = Record(named_kind, int(object_id), slug, name, value)
    return ObjectPage(
        _record(kind, tuple(record)),
        max(0, int(count or 0)),
        episodes,
        int(total or 0),
        listed,
        named,
        seen,
    )
