"""Search: any unicode a reader can send (NULs, lone surrogates as they arrive
percent-encoded, very long text) finds results or nothing, never a server error.

Run on PostgreSQL too (as CI does): a NUL only fails there.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glossary.search import MAX_QUERY_LENGTH, normalise_query, search

# Every code point, surrogates and controls included, and words the demo can match.
ANY_CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, categories=None)
QUERIES = st.one_of(
    st.text(ANY_CHAR, max_size=60),
    st.lists(
        st.one_of(
            st.sampled_from(["memory", "HBM", "interconect", "NVLink", "AI", '"', "-", "OR"]),
            st.text(ANY_CHAR, max_size=3),
        ),
        max_size=8,
    ).map(" ".join),
    st.text(ANY_CHAR, min_size=1000, max_size=5000),
    # The characters that hurt: NUL, other controls, a lone surrogate, and words around them.
    st.text(
        st.sampled_from(["\x00", "\x01", "\x1b", "\x85", "\ud800", "\udfff", "a", " "]), max_size=10
    ),
)
DB_SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def encoded(text: str) -> str:
    # A lone surrogate reaches a server as the bytes of its UTF-8-like encoding.
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


@settings(max_examples=300)
@given(st.text(ANY_CHAR, max_size=400))
def test_a_normalised_query_is_short_clean_and_stable(raw: str) -> None:
    query = normalise_query(raw)
    assert len(query) <= MAX_QUERY_LENGTH
    assert query == query.strip()
    assert "  " not in query
    assert not any(
        ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or 0xD800 <= ord(c) < 0xE000 for c in query
    )
    assert normalise_query(query) == query


@DB_SETTINGS
@given(QUERIES)
def test_search_answers_any_text(demo: Any, raw: str) -> None:
    hits = search(raw)
    assert all(hit.slug and hit.term for hit in hits)


@DB_SETTINGS
@given(QUERIES)
def test_the_search_page_answers_any_text(demo: Any, raw: str) -> None:
    response = Client().get(f"/search/?q={encoded(raw)}")
    assert response.status_code == 200


@DB_SETTINGS
@given(QUERIES, st.one_of(st.just(""), st.text(ANY_CHAR, max_size=5)))
def test_the_search_api_answers_any_text_with_results_or_a_named_400(
    demo: Any, raw: str, page: str
) -> None:
    url = f"/api/v1/search/?q={encoded(raw)}"
    if page:
        url += f"&page={encoded(page)}"
    response = Client().get(url)
    assert response.status_code in (200, 400, 404), response.content
    assert response["Content-Type"].startswith("application/json")
    if response.status_code != 200:
        assert response.json()["error"]
