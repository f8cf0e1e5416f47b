"""Control characters in what a reader types: a clean answer, never a server error.

PostgreSQL text cannot hold a NUL at all, so a NUL that reaches a query is a
500 there (SQLite stores it happily: run these on PostgreSQL, as CI does).
"""

from __future__ import annotations

from urllib.parse import quote

CONTROLS = [chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)]]

PUBLIC_URLS = [
    "/",
    "/glossary/interconnect/",
    "/episodes/",
    "/people/",
    "/organisations/",
    "/tags/",
    "/search/",
    "/feed/",
    "/sitemap.xml",
    "/api/openapi.json",
    "/api/v1/entries/",
    "/api/v1/episodes/",
    "/api/v1/people/",
    "/api/v1/organisations/",
    "/api/v1/tags/",
    "/api/v1/search/",
]

# Every query parameter a public page or the API reads.
PARAMETERS = ["q", "p", "page", "page_size"]


def test_a_nul_in_the_search_page_query_is_a_space(client, demo):
    response = client.get("/search/?q=high%00bandwidth")
    assert response.status_code == 200
    page = response.content.decode()
    assert '<a href="/glossary/high-bandwidth-memory/">' in page
    assert "\x00" not in page
    alone = client.get("/search/?q=%00")
    assert alone.status_code == 200
    assert "/glossary/" not in alone.content.decode().split("<main", 1)[1]


def test_no_control_character_reaches_the_search_page_or_its_title(client, demo):
    for char in CONTROLS:
        response = client.get(f"/search/?q=memory{quote(char)}x")
        assert response.status_code == 200, repr(char)
        page = response.content.decode()
        # Newlines and tabs are the template's own; nothing else below a space is.
        assert not {c for c in page if c in CONTROLS} - {"\n", "\t"}, repr(char)


def test_the_api_refuses_a_control_character_in_a_search_with_a_400_that_names_it(client, demo):
    response = client.get("/api/v1/search/?q=abc%00def")
    assert response.status_code == 400
    assert response.json() == {
        "error": "q cannot contain control characters; character 4 is U+0000."
    }
    for char in CONTROLS:
        if char in "\t\n\r":
            continue
        response = client.get(f"/api/v1/search/?q=memory{quote(char)}")
        assert response.status_code == 400, repr(char)
        assert f"character 7 is U+{ord(char):04X}" in response.json()["error"]


def test_the_api_reads_tab_and_newline_in_a_search_as_spaces(client, demo):
    response = client.get("/api/v1/search/?q=high%09bandwidth%0Amemory")
    assert response.status_code == 200
    assert response.json()["results"][0]["slug"] == "high-bandwidth-memory"


def test_an_api_slug_with_a_nul_is_not_found(client, demo):
    for kind in ["entries", "people", "organisations", "tags"]:
        response = client.get(f"/api/v1/{kind}/interconnect%00/")
        assert response.status_code == 404, kind
        assert response.json()["error"].startswith("No "), kind


def test_every_parameter_a_public_page_reads_survives_control_characters(client, demo):
    for url in PUBLIC_URLS:
        for char in ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\x9f"]:
            query = "&".join(f"{name}=1{quote(char)}" for name in PARAMETERS)
            response = client.get(f"{url}?{query}")
            assert response.status_code < 500, (url, repr(char))
            if url.startswith("/api/v1/") and response.status_code != 200:
                assert response["Content-Type"].startswith("application/json"), (url, repr(char))
