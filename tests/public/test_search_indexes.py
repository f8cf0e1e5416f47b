"""Search at any size, the same on SQLite (FTS5) and PostgreSQL (tsvector + pg_trgm).

Run on both: the default run is SQLite; with
DATABASE_URL=postgres://postgres@127.0.0.1:5432/glossary_search
TEST_DATABASE_NAME=test_glossary_search the same tests run on PostgreSQL.
"""

import re
from typing import Any

import pytest
from django.db import connection

from glossary import publishing
from glossary.models import Entry
from glossary.search import fts_query, results, search
from tests.live import make_live_unchecked


def slugs(query: str) -> list[str]:
    return [hit.slug for hit in search(query)]


def publish(make_entry: Any, term: str, **fields: Any) -> Entry:
    entry = make_entry(term, **fields)
    make_live_unchecked(entry)
    return entry


@pytest.mark.django_db
def test_the_search_indexes_exist():
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
            assert cursor.fetchone()
            cursor.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s",
                ["glossary_listing"],
            )
            indexes = dict(cursor.fetchall())
            for words in ("a", "ab", "abcd"):
                assert f"USING gin (words_{words})" in indexes[f"listing_words_{words}_idx"]
            assert "USING gin (names gin_trgm_ops)" in indexes["listing_names_trgm_idx"]
            assert "(initial, sort_key, term, version_id)" in indexes["listing_a_to_z_idx"]
        else:
            cursor.execute("SELECT name, sql FROM sqlite_master WHERE name LIKE 'glossary_search%'")
            tables = dict(cursor.fetchall())
            assert "fts5" in tables["glossary_search"]
            assert "porter" in tables["glossary_search"]
            assert "trigram" in tables["glossary_search_names"]


def _statements(query: str) -> list[str]:
    """The SQL a search page runs, as executed."""
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        results(query)[:51]
    return [q["sql"] for q in queries]


@pytest.mark.django_db
def test_each_tier_of_a_search_reads_an_index(make_entry):
    publish(make_entry, "Network", slug="network", body="A network.")
    statements = _statements("network")
    # Names and the summary's tier together, then the body's and the quotes': nothing fills
    # a page.
    assert len(statements) == 3
    if connection.vendor != "postgresql":
        assert all("MATCH" in sql or "LIKE" in sql for sql in statements)
        return
    with connection.cursor() as cursor:
        # Too few rows for the planner to choose an index unaided: forbid the other ways.
        forbidden = ["seqscan", "indexscan", "nestloop", "mergejoin"]
        for way in forbidden:
            cursor.execute(f"SET enable_{way} = off")
        plans = []
        for sql in statements:
            cursor.execute("EXPLAIN " + sql)
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
        for way in forbidden:
            cursor.execute(f"RESET enable_{way}")
    assert "listing_names_trgm_idx" in plans[0] and "listing_words_a_idx" in plans[0]
    assert "listing_words_ab_idx" in plans[0]
    # The body's tier reads the index of every word (it has none of its own).
    for plan in plans[1:]:
        assert "listing_words_abcd_idx" in plan


@pytest.mark.django_db
def test_a_word_in_every_entry_is_read_in_a_to_z_order_from_the_top(make_entry):
    """The first page of a common word is an ordered walk of the A–Z index, not a sort of
    every match: the plan the benchmark's common word gets at any size."""
    publish(make_entry, "Mesh", slug="mesh", summary="A network.")
    statements = _statements("network")
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for way in ("seqscan", "bitmapscan", "sort"):
            cursor.execute(f"SET enable_{way} = off")
        cursor.execute("EXPLAIN (FORMAT JSON) " + statements[0])  # names, then the summary
        (plan,) = cursor.fetchone()[0]
        for way in ("seqscan", "bitmapscan", "sort"):
            cursor.execute(f"RESET enable_{way}")

    def nodes(node: dict) -> list[dict]:
        return [node, *(n for child in node.get("Plans", []) for n in nodes(child))]

    # The summary tier's rows and its count are one walk, read once (a CTE): no sort in
    # it, and what the tier sorts is only what the walk kept (COUNT_LIMIT + 1 at most).
    (walk,) = [n for n in nodes(plan["Plan"]) if n.get("Subplan Name") == "CTE walked"]
    inside = nodes(walk)
    assert not [n for n in inside if n["Node Type"] == "Sort"]
    assert [n for n in inside if n.get("Index Name") == "listing_a_to_z_idx"]
    assert walk["Node Type"] == "Limit"
    # It leaves out the names tier's rows by id, found once, not by testing each row's
    # names and words again (a common word's walk tests hundreds).
    tested = " ".join(n.get("Filter", "") + n.get("Recheck Cond", "") for n in inside)
    assert "names" not in tested and "words_a " not in tested, tested
    (summary,) = [n for n in nodes(plan["Plan"]) if n.get("Alias") == "second_tier"]
    # The walk keeps only the order's keys; the page's rows (a listing row is wide) are
    # read at the end by their ids, and nothing else is scanned.
    scanned = [n for n in nodes(summary) if n.get("Relation Name") or n.get("Index Name")]
    assert scanned, "the page's rows are read by id"
    assert all(n.get("Index Name", "").endswith("_pkey") for n in scanned), scanned


def test_a_misspelt_term_or_alias_finds_the_entry(make_entry):
    publish(make_entry, "Attention", slug="attention", aliases="Transformer architecture")
    publish(make_entry, "Backpropagation", slug="backpropagation")
    found = results("backpropogation")
    assert found.fuzzy
    assert [h.slug for h in found] == ["backpropagation"]
    assert slugs("transformor") == ["attention"]
    assert search("transformor")[0].fuzzy


def test_stems_match_on_both_databases(make_entry):
    publish(make_entry, "Router", slug="router", body="It routes packets.")
    assert slugs("routing") == ["router"]
    assert slugs("routed") == ["router"]


def test_words_in_double_quotes_match_as_a_phrase(make_entry):
    publish(make_entry, "Fabric", slug="fabric", body="Fabrics use packet switching inside.")
    publish(make_entry, "Crossbar", slug="crossbar", body="Switching each packet in turn.")
    assert sorted(slugs("packet switching")) == ["crossbar", "fabric"]
    assert slugs('"packet switching"') == ["fabric"]


def test_words_said_in_quotes_are_found(demo):
    assert "interconnect" in slugs('"coherent cluster"')


def test_an_alias_ranks_above_a_summary_and_body_match(make_entry):
    publish(make_entry, "Aardvark", slug="aardvark", body="Counted in one zebibyte.")
    publish(make_entry, "Binary prefix", slug="binary-prefix", summary="About the zebibyte.")
    publish(make_entry, "Cubit", slug="cubit", aliases="Zebibyte")
    assert slugs("zebibyte") == ["cubit", "binary-prefix", "aardvark"]


def test_term_weight_beats_summary_beats_body_beats_quotes_on_both(make_entry):
    publish(make_entry, "Alpha", slug="alpha", body="About qubits.")
    publish(make_entry, "Beta", slug="beta", summary="About qubits.")
    publish(make_entry, "Qubit gate", slug="qubit-gate")
    assert slugs("qubits") == ["qubit-gate", "beta", "alpha"]


def test_fts_queries_quote_every_word_so_nothing_typed_is_syntax():
    assert fts_query("network") == '"network"'
    assert fts_query('"packet switching" NEAR') == '"packet switching" AND "NEAR"'
    assert fts_query("a or b -c") == '"a" OR "b" NOT "c"'
    assert fts_query('-x ** "un"closed" ""') == '"un" AND "closed"""'
    assert fts_query("*** ---") == ""


def test_search_pages_through_every_result(client, make_entry):
    # Past the count's limit (100) every page is still there: 120 results, three pages.
    for n in range(120):
        publish(make_entry, f"Widget {n:03}", slug=f"widget-{n:03}", body="A gadget.")
    found = results("gadget")
    assert found.count() == 100 and not found.count_exact
    first = client.get("/search/", {"q": "gadget"}).content.decode()
    assert first.count('href="/glossary/widget-') == 50
    assert "More than 100 results for" in first
    assert 'href="/search/?q=gadget&amp;page=2" rel="next"' in first
    last = client.get("/search/", {"q": "gadget", "page": 3}).content.decode()
    assert last.count('href="/glossary/widget-') == 20
    assert 'href="/search/?q=gadget&amp;page=2" rel="prev"' in last
    assert 'rel="next"' not in last
    assert client.get("/search/", {"q": "gadget", "page": 4}).status_code == 404
    api = client.get("/api/v1/search/", {"q": "gadget", "page_size": 100, "page": 2}).json()
    assert api["count"] == 100 and api["count_exact"] is False
    assert len(api["results"]) == 20
    assert api["next"] is None and api["previous"]


def test_a_search_under_the_count_limit_says_its_total(client, make_entry):
    for n in range(60):
        publish(make_entry, f"Widget {n:03}", slug=f"widget-{n:03}", body="A gadget.")
    first = client.get("/search/", {"q": "gadget"}).content.decode()
    assert "60 results for" in first and "Page 1 of 2" in first
    api = client.get("/api/v1/search/", {"q": "gadget"}).json()
    assert api["count"] == 60 and api["count_exact"] is True


def test_a_withdrawn_entry_disappears_from_search(make_entry):
    entry = publish(make_entry, "Quokka", slug="quokka", body="A marsupial.")
    assert slugs("marsupial") == ["quokka"]
    publishing.unpublish(entry)
    assert slugs("marsupial") == []
    assert slugs("quokka") == []
    assert slugs("quoka") == []  # nor offered as a misspelling


def test_only_the_live_version_is_searched(make_entry):
    entry = publish(make_entry, "Tarsier", slug="tarsier", body="A primate.")
    entry.body = "A small nocturnal animal."
    entry.save()
    assert slugs("nocturnal") == []  # the working copy is no one's to read yet
    make_live_unchecked(entry)
    assert slugs("nocturnal") == ["tarsier"]
    assert slugs("primate") == []  # the words of the replaced version are gone


def test_rerender_rebuilds_the_index(make_entry):
    publish(make_entry, "Okapi", slug="okapi", body="A forest giraffid.")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "UPDATE glossary_listing SET words_a = NULL, words_ab = NULL, "
                "words_abc = NULL, words_abcd = NULL"
            )
        else:
            cursor.execute("DELETE FROM glossary_search")
    assert slugs("giraffid") == []
    publishing.rerender_all()
    assert slugs("giraffid") == ["okapi"]


def test_the_summary_ranks_above_the_body_however_often_the_body_says_it(make_entry):
    publish(make_entry, "Aardvark", slug="aardvark", body="Qubits, qubits, qubits and qubits.")
    publish(make_entry, "Yak", slug="yak", summary="About qubits.")
    publish(make_entry, "Bee", slug="bee", summary="Qubits too.")
    # Tiers first (summary above body), A–Z within a tier.
    assert slugs("qubits") == ["bee", "yak", "aardvark"]


def test_every_word_in_one_tier_ranks_above_words_spread_further(make_entry):
    publish(make_entry, "Spread", slug="spread", summary="Alpha.", body="Beta.")
    publish(make_entry, "Together", slug="together", summary="Alpha beta.")
    quoted = publish(make_entry, "Quoted", slug="quoted", body="Alpha.")
    from glossary.models import Episode, Person, Quote, Show

    show = Show.objects.create(name="S", slug="s")
    episode = Episode.objects.create(show=show, number=1, title="One", duration=600)
    person = Person.objects.create(name="P", slug="p")
    Quote.objects.create(entry=quoted, episode=episode, speaker=person, start=5, text="Beta!")
    make_live_unchecked(quoted)
    assert slugs("alpha beta") == ["together", "spread", "quoted"]


def test_an_excluded_word_excludes_in_every_tier(make_entry):
    publish(make_entry, "Plain", slug="plain", summary="A gadget.")
    publish(make_entry, "Painted", slug="painted", summary="A gadget.", body="Painted blue.")
    assert slugs("gadget -blue") == ["plain"]


def publish_widgets(make_entry: Any) -> None:
    """Seven entries saying "widget": one in its term, three in the summary, three in the
    body, so the results lie across three tiers."""
    for n, field in enumerate(["summary", "body", "summary", "body", "summary", "body", "term"]):
        term = f"Widget {n}" if field == "term" else f"Item {n}"
        fields = {"summary": "Plain.", "body": "Plain."}
        if field != "term":
            fields[field] = "A widget."
        publish(make_entry, term, slug=f"item-{n}", **fields)


def test_pages_read_across_tiers_lay_them_end_to_end(client, make_entry, monkeypatch):
    from glossary import views

    publish_widgets(make_entry)
    everything = slugs("widget")
    assert everything[0] == "item-6" and len(everything) == 7
    monkeypatch.setattr(views, "SEARCH_PAGE_SIZE", 2)
    paged = []
    for number in range(1, 5):
        page = client.get("/search/", {"q": "widget", "page": number}).content.decode()
        paged += re.findall(r'<li><a href="/glossary/([^/]+)/">', page)
    assert paged == everything
    assert client.get("/search/", {"q": "widget", "page": 5}).status_code == 404


def test_following_next_from_the_first_page_reads_every_result_once(client, make_entry):
    """A page starting inside one tier and ending in a later one reads on to its end: were
    the rows read twice counted, it would stop early, an entry would never be shown and
    the page would say there was no next one."""
    publish_widgets(make_entry)
    everything = slugs("widget")
    for size in (1, 2, 3, 4):
        url: str | None = f"/api/v1/search/?q=widget&page_size={size}"
        paged = []
        while url:
            answer = client.get(url).json()
            assert answer["count"] == 7
            paged += [row["slug"] for row in answer["results"]]
            url = answer["next"]
        assert paged == everything, size
        found = results("widget")
        assert [h.slug for n in range(0, 7, size) for h in found[n : n + size]] == everything


def test_or_with_an_excluded_word_lists_an_entry_once(make_entry):
    """Found by its term (no "kwzbar" there), not by its term and summary (which says it),
    and again by its body: listed in the first tier only."""
    publish(
        make_entry, "Dupcheck alpha", slug="dupcheck-alpha",
        summary="Mentions kwzbar here.", body="Says kwzfoo.",
    )  # fmt: skip
    publish(make_entry, "Other", slug="other", summary="Plain.", body="Plain.")
    found = results("kwzfoo or -kwzbar")
    hits = [h.slug for h in found]
    assert len(hits) == len(set(hits)) == found.count()
    if connection.vendor == "postgresql":
        # (FTS5 has no "or not": SQLite reads it as "kwzfoo and not kwzbar", finding none.)
        assert sorted(hits) == ["dupcheck-alpha", "other"]


def test_the_count_stops_at_its_limit_and_every_page_stays_reachable(
    client, make_entry, monkeypatch
):
    from glossary import search as search_module
    from glossary import views

    monkeypatch.setattr(search_module, "COUNT_LIMIT", 5)
    monkeypatch.setattr(views, "COUNT_LIMIT", 5)
    monkeypatch.setattr(views, "SEARCH_PAGE_SIZE", 5)
    for n in range(12):
        publish(make_entry, f"Gizmo {n:02}", slug=f"gizmo-{n:02}", body="A gadget.")
    first = client.get("/search/", {"q": "gadget"}).content.decode()
    assert "More than 5 results for “gadget”" in first
    assert (
        "Page 1:" in first and 'rel="next"' in first and " of " not in first.split("Page 1")[1][:5]
    )
    last = client.get("/search/", {"q": "gadget", "page": 3}).content.decode()
    assert last.count('href="/glossary/gizmo-') == 2 and 'rel="next"' not in last
    assert client.get("/search/", {"q": "gadget", "page": 4}).status_code == 404
    api = client.get("/api/v1/search/", {"q": "gadget", "page_size": 5}).json()
    assert api["count"] == 5 and api["count_exact"] is False and api["next"]
    third = client.get("/api/v1/search/", {"q": "gadget", "page_size": 5, "page": 3}).json()
    assert len(third["results"]) == 2 and third["next"] is None
    small = client.get("/api/v1/search/", {"q": "gizmo 03"}).json()
    assert small["count"] == 1 and small["count_exact"] is True


@pytest.mark.django_db
def test_each_consumer_reads_only_the_rows_it_shows(client, make_entry):
    publish(make_entry, "Gadget", slug="gadget", summary="A small tool.")
    (page_hit,) = results("gadget", shows="row_html")[:50]
    assert 'href="/glossary/gadget/"' in page_hit.row_html and page_hit.api_row == ""
    (api_hit,) = results("gadget", shows="api_row")[:50]
    assert api_hit.row_html == "" and '"slug":"gadget"' in api_hit.api_row
    assert api_hit.text is None  # the text is read only to mark the page's row
    # So are the closest terms, when nothing matches.
    publish(make_entry, "Backpropagation", slug="backpropagation")
    (closest,) = results("backpropogation", shows="row_html")[:50]
    assert closest.fuzzy and closest.api_row == "" and "backpropagation" in closest.row_html
    (closest,) = results("backpropogation", shows="api_row")[:50]
    assert closest.fuzzy and closest.row_html == "" and "backpropagation" in closest.api_row
    assert 'href="/glossary/gadget/"' in client.get("/search/", {"q": "gadget"}).content.decode()
    api = client.get("/api/v1/search/", {"q": "gadget"}).json()
    assert [r["slug"] for r in api["results"]] == ["gadget"]


@pytest.mark.django_db
def test_a_search_recurring_on_a_connection_keeps_the_plan_made_for_its_words(make_entry):
    """PostgreSQL plans a search's statement for its words (a common word walks the A–Z
    index, a rare one reads the word's index), so the words are written into it, quoted
    by psycopg; once the same search recurs the statement is kept prepared, plan and all.
    Whatever the reader typed stays a value: quotes, backslashes and percent signs too."""
    publish(make_entry, "O'Brien's 100% \\ rule", slug="obrien", summary="Odd quokka.")
    publish(make_entry, "Quokka", slug="quokka")
    typed = ["O'Brien's", "100%", "\\ rule", "quokka", "'; DROP TABLE glossary_entry; --"]
    for _ in range(3):
        assert slugs(typed[0]) == ["obrien"]
        assert slugs(typed[1]) == ["obrien"]
        assert slugs(typed[2]) == ["obrien"]
        assert slugs(typed[3]) == ["quokka", "obrien"]
        assert slugs(typed[4]) == []
    assert Entry.objects.count() == 2
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        kept = [row[0] for row in cursor.fetchall()]
    searches = [sql for sql in kept if "glossary_listing" in sql and "websearch_to_tsquery" in sql]
    assert any("'quokka'" in sql for sql in searches), kept
    assert any("'O''Brien''s'" in sql for sql in searches), kept
    assert not [sql for sql in searches if "$1" in sql]
