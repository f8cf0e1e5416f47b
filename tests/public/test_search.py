"""Search: term and alias matches first, stemming and misspellings, live entries only."""

import pytest

from glossary.search import search
from tests.live import make_live_unchecked


def slugs(query: str) -> list[str]:
    return [hit.slug for hit in search(query)]


def test_a_term_match_ranks_above_a_body_match(make_entry):
    make_live_unchecked(
        make_entry("Switch", slug="switch", body="A switch joins links; a switch is no cable.")
    )
    make_live_unchecked(make_entry("Cable", slug="cable", body="A cable joins two ports."))
    assert slugs("cable") == ["cable", "switch"]


def test_an_alias_match_ranks_first(demo):
    assert slugs("HBM")[0] == "high-bandwidth-memory"
    assert slugs("NVLink")[0] == "interconnect"


def test_search_reaches_quotes(demo):
    assert "interconnect" in slugs("coherent cluster")


def test_a_misspelling_still_finds_the_term(demo):
    hits = search("interconect")
    assert hits and hits[0].slug == "interconnect"
    assert hits[0].fuzzy


def test_search_finds_nothing_for_an_empty_query(demo):
    assert search("   ") == []


def test_unpublished_entries_are_never_found(make_entry):
    make_entry("Secretterm", slug="secretterm", body="Secretterm body")
    assert search("secretterm") == []
    assert search("secreterm") == []


@pytest.mark.django_db
def test_stemming_on_postgresql_or_word_matching_elsewhere(make_entry):
    from django.db import connection

    make_live_unchecked(make_entry("Router", slug="router", body="It routes packets."))
    query = "routing" if connection.vendor == "postgresql" else "routes"
    assert slugs(query) == ["router"]


def test_the_search_page_links_results_and_echoes_the_query_safely(client, demo):
    page = client.get("/search/", {"q": "<b>memory</b>"}).content.decode()
    assert "&lt;b&gt;memory&lt;/b&gt;" in page
    page = client.get("/search/", {"q": "memory"}).content.decode()
    assert '<a href="/glossary/high-bandwidth-memory/">High-bandwidth memory</a>' in page
    assert '<meta name="robots" content="noindex">' in page


def test_the_search_page_says_when_nothing_matched(client, demo):
    page = client.get("/search/", {"q": "qwertyuiop"}).content.decode()
    assert "Nothing found for “qwertyuiop”" in page
