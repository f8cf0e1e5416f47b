"""Public lists at size: thousands of live entries, and every list page reads only what it shows.

One entry is published through the real path; thousands more are copied from it in
bulk (entry, live version, listing rows, names, search index, counts), all naming the
same tag, person, episode and organisation. Each page must issue the queries it issues
for a small glossary, and on PostgreSQL no step of any of its plans may read more rows
than a page or two: no sort, count or scan of every live entry.
"""

from __future__ import annotations

import json
import re
from typing import Any

import psycopg
import pytest
from django.db import connection

from glossary import document
from glossary.listing_index import GROUPS, a_to_z
from glossary.models import (
    Entry,
    EntryVersion,
    Listing,
    ListingCount,
    ListingName,
    PublicRecord,
)
from tests.live import make_live_unchecked
from tests.public.test_live_listing import gadget
from tests.public.test_live_listing import named as named  # noqa: F401 - the fixture

SIZE = 3_000
# Rows any step of a page's plan may read: the index's 200 a page, skipping inside a
# letter, search's first tiers and its count of 100, with room to spare; far below SIZE.
BOUND = 1_000
# A sitemap page is 500 entries. The planner may read its range from the index as a bitmap,
# which counts the index entries of row versions the fixture's UPDATE of the word vectors
# left dead (one to a row) with the live ones: a page and its dead, still far below SIZE.
BOUNDS = {"sitemap": 1_500, "sitemap-deep": 1_500}

PAGES = {
    "index": ("/", 1),
    "letter": ("/?page=8", 1),
    "tag": ("/tags/gadgets/", 2),
    "person": ("/people/pat-guest/", 1),
    "episode": ("/episodes/test-show/1/7/", 1),
    "organisation": ("/organisations/acme/", 1),
    "person-page-2": ("/people/pat-guest/?page=2", 2),
    # The hits' rows, with their text for the passages that matched.
    "search": ("/search/?q=gadget", 1),
    "feed": ("/feed/", 1),
    "sitemap": ("/sitemap-entries.xml?p=2", 1),
    # Deep pages start from their letter's count, not by skipping every entry before them.
    "sitemap-deep": ("/sitemap-entries.xml?p=6", 1),
    "api-list-deep": ("/api/v1/entries/?page=120", 2),
    "api-list": ("/api/v1/entries/", 2),
}


@pytest.fixture
def at_size(make_entry: Any, named: dict[str, Any], no_page_cache: Any) -> int:
    base = gadget(make_entry, named, "Widget")
    make_live_unchecked(base)
    base.refresh_from_db()
    version = base.live_version
    assert version is not None
    listing = Listing.objects.get(pk=version.pk)
    names = list(ListingName.objects.filter(listing=listing))
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    entries = Entry.objects.bulk_create(
        Entry(
            term=f"{letters[n % 26]}oclone {n:05}",
            slug=f"copy-{n:05}",
            status=Entry.Status.PUBLISHED,
            first_published_at=base.first_published_at,
            significant_change_at=base.significant_change_at,
        )
        for n in range(SIZE)
    )
    data = version.data
    versions = EntryVersion.objects.bulk_create(
        EntryVersion(
            entry=entry,
            number=1,
            data={**data, "id": entry.pk, "term": entry.term, "slug": entry.slug},
            term=entry.term,
            slug=entry.slug,
            summary=version.summary,
            published_at=version.published_at,
        )
        for entry in entries
    )
    for entry, copy in zip(entries, versions, strict=True):
        entry.live_version = copy
    Entry.objects.bulk_update(entries, ["live_version"])
    listings = []
    for copy in versions:
        initial, sort_key = a_to_z(copy.term)
        listings.append(
            Listing(
                version=copy,
                initial=initial,
                sort_key=sort_key,
                term=copy.term,
                slug=copy.slug,
                names=copy.term,
                row_html=listing.row_html.replace("widget", copy.slug).replace("Widget", copy.term),
                feed_entry=listing.feed_entry,
                sitemap_url=listing.sitemap_url.replace("widget", copy.slug),
                api_row=json.dumps({**json.loads(listing.api_row), "slug": copy.slug}),
            )
        )
    Listing.objects.bulk_create(listings, batch_size=500)
    ListingName.objects.bulk_create(
        (
            ListingName(
                listing=row,
                kind=name.kind,
                object_id=name.object_id,
                initial=row.initial,
                sort_key=row.sort_key,
                term=row.term,
                link=name.link.replace("widget", row.slug).replace("Widget", row.term),
                part=name.part,
            )
            for row in listings
            for name in names
        ),
        batch_size=1000,
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "UPDATE glossary_listing SET words_a = b.words_a, words_ab = b.words_ab, "
                "words_abc = b.words_abc, words_abcd = b.words_abcd "
                "FROM glossary_listing b WHERE b.version_id = %s",
                [version.pk],
            )
        else:
            cursor.execute(
                "INSERT INTO glossary_search (rowid, term, aliases, summary, body, quotes) "
                "SELECT l.version_id, l.term, '', s.summary, s.body, s.quotes "
                "FROM glossary_listing l, glossary_search s "
                "WHERE s.rowid = %s AND l.version_id <> %s",
                [version.pk, version.pk],
            )
    # The counts as publishing would have kept them.
    ListingCount.objects.all().delete()
    counts: dict[tuple[str, int], int] = {(ListingCount.TOTAL, 0): SIZE + 1}
    for row in [listing, *listings]:
        key = (ListingCount.LETTER, row.initial)
        counts[key] = counts.get(key, 0) + 1
    for name in names:
        counts[(name.kind, name.object_id)] = SIZE + 1
    # And the people below, each named by an entry: the table of counts holds thousands
    # of rows that are not letters, as at 10,000 entries (3,611 rows, 19 of them letters).
    for n in range(SIZE):
        counts[(PublicRecord.Kind.PERSON, 10_000_000 + n)] = 1
    ListingCount.objects.bulk_create(
        ListingCount(kind=kind, object_id=object_id, live=live)
        for (kind, object_id), live in counts.items()
    )
    assert version.published_at is not None
    # Records no page here shows, so that a plan reading every record reads thousands (a
    # person's page read them all once, a condition on the outer row inside a join).
    PublicRecord.objects.bulk_create(
        (
            PublicRecord(
                kind=PublicRecord.Kind.PERSON,
                object_id=10_000_000 + n,
                slug=f"someone-else-{n:05}",
                name=f"Someone Else {n:05}",
                sort_key=f"someone else {n:05}",
                data={"id": 10_000_000 + n, "name": f"Someone Else {n:05}"},
                version=version,
                published_at=version.published_at,
            )
            for n in range(SIZE)
        ),
        batch_size=1000,
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    assert document.load(versions[0].data).term == versions[0].term
    return SIZE + 1


def _rows_read(plan: dict[str, Any]) -> int:
    """The most rows any step of a plan read, the GIN indexes' bitmaps of matches aside."""
    loops = plan.get("Actual Loops", 1)
    read = (plan.get("Actual Rows", 0) + plan.get("Rows Removed by Filter", 0)) * loops
    if plan.get("Node Type") == "Bitmap Index Scan" and "words_" in plan.get("Index Name", ""):
        read = 0  # a word's matches, as the index lists them: no row is read
    return max([read, *(_rows_read(p) for p in plan.get("Plans", []))])


def _page_problems(client: Any, name: str) -> list[str]:
    """What is wrong with list page `name` at size: its status, its query count, and
    on PostgreSQL any step of a plan that reads more than BOUND rows."""
    path, expected = PAGES[name]
    statements: list[tuple[str, Any]] = []

    def keep(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        response = client.get(path)
    if response.status_code != 200:
        return [f"{name}: {path} answered {response.status_code}"]
    if len(statements) != expected:
        return [
            f"{name}: {len(statements)} queries, not {expected}: {[s[:80] for s, _ in statements]}"
        ]
    if connection.vendor != "postgresql":
        return []
    problems = []
    with connection.cursor() as cursor:
        # Planned as if the glossary were large: at SIZE rows, never vacuumed (the test's
        # transaction is never committed), a page that reads a third of the table may be
        # cheaper as a full scan and sort, and which plan wins depended on how much
        # earlier tests had left the table's file (the sitemap's page 2 failed so). A
        # statement that no index can serve is still planned as a full scan, and fails.
        cursor.execute("SET LOCAL enable_seqscan = off")
        for sql, params in statements:
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
            (plan,) = cursor.fetchone()[0]
            read = _rows_read(plan["Plan"])
            if read > BOUNDS.get(name, BOUND):
                problems.append(f"{name}: {read} rows for {sql[:120]}\n{json.dumps(plan)}")
        cursor.execute("RESET enable_seqscan")
    return problems


# One test over every page: building the glossary at size costs seconds, so it is
# built once and each page's problems are reported together.
def test_every_list_page_reads_only_what_it_shows_at_size(client, at_size):
    problems = [problem for name in PAGES for problem in _page_problems(client, name)]
    assert not problems, "\n".join(problems)


def test_the_pages_at_size_show_their_first_rows(client, at_size):
    index = client.get("/").content.decode()
    assert f"{at_size} entries" in index
    assert "Aoclone 00000" in index
    tag = client.get("/tags/gadgets/").content.decode()
    assert 'href="/tags/gadgets/?page=2" rel="next"' in tag
    assert f"Page 1 of {-(-at_size // 50)}" in tag
    search = client.get("/search/?q=gadget").content.decode()
    assert "More than 100 results" in search


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plan cache")
def test_the_statements_pages_keep_prepared_are_planned_once_for_every_value(client, at_size):
    """A kept statement is planned once, whatever its values: re-planning one on every run
    cost more than running it (the A–Z index's took 0.7 ms to plan, 0.4 to run)."""
    for path in ("/", "/?page=3", "/?page=8", "/people/pat-guest/", "/tags/gadgets/") * 4:
        assert client.get(path).status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SHOW plan_cache_mode")
        assert cursor.fetchone()[0] == "force_generic_plan"
        cursor.execute(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE NOT from_sql"
        )
        kept = cursor.fetchall()
    index = [row for row in kept if "page_start" in row[0]]
    assert len(index) == 1, kept
    assert all(custom == 0 for _, _, custom in kept), kept
    assert index[0][1] >= 10  # every run of the index's statement after it was prepared


def _generic_plan_problems(cursor: Any, name: str, sql: str, params: Any) -> list[str]:
    """What is wrong with the plan a kept statement runs with: prepared, planned once for
    any values (config/settings.py's plan_cache_mode), then run with these."""
    numbered = iter(range(1, len(params) + 1))
    prepared = re.sub(r"%s", lambda _: f"${next(numbered)}", sql.replace("%%", "\x00"))
    values = ", ".join(psycopg.sql.Literal(p).as_string(cursor.connection) for p in params)
    cursor.execute("DEALLOCATE ALL")
    cursor.execute("PREPARE kept AS " + prepared.replace("\x00", "%"))
    try:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE kept({values})")
        (plan,) = cursor.fetchone()[0]
    finally:
        cursor.execute("DEALLOCATE kept")
    problems = []
    read = _rows_read(plan["Plan"])
    if read > BOUNDS.get(name, BOUND):
        problems.append(f"{name}: its generic plan reads {read} rows for {sql[:120]}")
    # What the plan expects of the counts it reads (a letter's at most, or one object's):
    # a kind planned as a parameter was taken to hold a sixth of them (505 here), and at
    # 1,000 entries the letters' 19 were read by scanning all of them.
    for node in _nodes(plan["Plan"]):
        if node.get("Relation Name") == ListingCount._meta.db_table:
            if node["Plan Rows"] > 2 * len(GROUPS):
                problems.append(f"{name}: expects {node['Plan Rows']} counts, reads {node}")
    return problems


def _nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [plan, *(node for child in plan.get("Plans", []) for node in _nodes(child))]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plan cache")
def test_the_plans_kept_statements_run_with_read_only_what_a_page_shows(client, at_size):
    """The plan a kept statement is run with is made once, for any values, from the
    tables' statistics alone: it must serve every page as its own values' plan would.
    The A–Z index's was planned as if the letters held a sixth of every count the
    glossary keeps, and at 1,000 entries it scanned all 414 for the 19 letters."""
    problems: list[str] = []
    kept: list[tuple[str, Any]] = []

    def keep(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not isinstance(context["cursor"].cursor, psycopg.ClientCursor) and params:
            kept.append((sql, params))  # bound by the server: prepared once it recurs
        return execute(sql, params, many, context)

    for name, (path, _) in PAGES.items():
        kept.clear()
        with connection.execute_wrapper(keep):
            assert client.get(path).status_code == 200, path
        # Search's statements are planned for their words (prepared.fetch, "for_values").
        assert kept or name == "search", f"{name} ran no kept statement"
        with connection.cursor() as cursor:
            cursor.execute("SET plan_cache_mode = force_generic_plan")
            for sql, params in kept:
                problems += _generic_plan_problems(cursor.cursor, name, sql, params)
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's string_agg")
def test_an_index_page_arrives_a_row_a_letter(client, at_size):
    """The database joins each letter's rows of an index page: 200 rows to convert and group
    in the web worker cost the page a fifth of its CPU (bench/README.md)."""
    from glossary.listing_reads import a_to_z_page

    counts, _, page = a_to_z_page(recent=5, offset=0, limit=200)
    letters = [initial for initial, _ in page]
    assert letters == sorted(set(letters)), letters
    html = "".join(row for _, row in page)
    # The page's 200 rows, joined in A–Z order.
    assert html.count("<li>") == 200
    first = html.index("Aoclone 00000")
    assert first < html.index("Aoclone 00026") < html.index("Boclone 00001")
    assert sum(counts.values()) == at_size


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_an_objects_page_lists_its_entries_without_reading_their_listings(client, at_size):
    """A person's, episode's or organisation's entries come as their name rows list them
    (`ListingName.link`), not joined to each listing for a term and slug to escape."""
    statements: list[tuple[str, Any]] = []

    def keep(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements.append((sql, params))
        return execute(sql, params, many, context)

    for name in ("person", "person-page-2", "episode", "organisation"):
        path, _ = PAGES[name]
        statements.clear()
        with connection.execute_wrapper(keep):
            page = client.get(path).content.decode()
        assert re.search(r'<li><a href="/glossary/copy-(\d+)/">[A-Z]oclone \1</a></li>', page), name
        with connection.cursor() as cursor:
            for sql, params in statements:
                cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
                (plan,) = cursor.fetchone()[0]
                read = {node.get("Relation Name") for node in _nodes(plan["Plan"])}
                assert Listing._meta.db_table not in read, (name, sql[:200])


def test_a_sitemap_page_at_size_holds_its_page_of_the_a_to_z_list(client, at_size):
    """Page 2 of the entries' sitemap is the A–Z list's second 500, each once (the database
    joins them as it reads them: listing_reads.joined_a_to_z)."""
    from glossary.listing_reads import listed_a_to_z

    body = client.get("/sitemap-entries.xml?p=2").content.decode()
    shown = re.findall(r"<loc>[^<]*/glossary/([^/<]+)/</loc>", body)
    expected = [slug for (slug,) in listed_a_to_z("l.slug", offset=500, limit=500)]
    assert len(expected) == 500
    assert shown == expected
