"""A page number no list reaches is a missing page, never a server error.

schemathesis found `/api/v1/search/?page=10757799679699192410800128` answering 500: the
page's offset overflowed the database's 64-bit integers. Every paginated address reads
its page number through glossary.pagination, which answers such a page before it
reaches a statement.
"""

from __future__ import annotations

import json

import pytest

from glossary.pagination import MAX_PAGE, page_in_range

# Past the database's integers, past MAX_PAGE, and not page numbers at all.
HUGE = "10757799679699192410800128"
NOT_PAGES = [HUGE, str(MAX_PAGE + 1), "9" * 5000, "0", "-1", "+2", " 2", "2.0", "x"]

HTML_PAGES = [
    "/?page={}",
    "/search/?q=memory&page={}",
    "/tags/ai-infrastructure/?page={}",
    "/people/jeetu-patel/?page={}",
    "/episodes/?page={}",
    "/sitemap-entries.xml?p={}",
    "/sitemap-people.xml?p={}",
]
API_PAGES = [
    "/api/v1/entries/?page={}",
    "/api/v1/search/?q=memory&page_size=10&page={}",
    "/api/v1/people/?page={}",
]


@pytest.mark.parametrize("raw", NOT_PAGES)
def test_only_whole_numbers_from_1_to_max_page_are_page_numbers(raw):
    assert page_in_range(raw) == 0


def test_the_page_numbers_in_range_are_read():
    assert page_in_range("1") == 1
    assert page_in_range("02") == 2
    assert page_in_range(str(MAX_PAGE)) == MAX_PAGE


@pytest.mark.django_db
@pytest.mark.parametrize("path", HTML_PAGES)
def test_a_page_number_past_any_list_is_a_missing_page(client, demo, path):
    # The address is valid with page 1.
    assert client.get(path.format(1)).status_code == 200
    for raw in (HUGE, str(MAX_PAGE + 1)):
        assert client.get(path.format(raw)).status_code == 404, (path, raw)


@pytest.mark.django_db
@pytest.mark.parametrize("path", API_PAGES)
def test_the_api_refuses_a_page_number_past_any_list_and_names_the_limit(client, demo, path):
    assert client.get(path.format(1)).status_code == 200
    for raw in (HUGE, str(MAX_PAGE + 1)):
        response = client.get(path.format(raw))
        assert response.status_code == 400, (path, raw)
        body = json.loads(response.content)
        assert "page" in json.dumps(body)
        assert f"{MAX_PAGE}" in json.dumps(body) or f"{MAX_PAGE:,}" in json.dumps(body)
    # The last page number allowed is a page past the end (404), not an error.
    assert client.get(path.format(MAX_PAGE)).status_code == 404
