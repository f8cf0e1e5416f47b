"""Junk from anonymous clients gets a clean, cheap answer (issue 10, findings 7, 12, 14)."""

from __future__ import annotations

import pytest

from glossary.models import Entry
from tests.live import make_live_unchecked

pytestmark = pytest.mark.django_db


@pytest.fixture
def widget(make_entry) -> Entry:
    entry = make_entry("Widget", slug="widget", body="First body.")
    make_live_unchecked(entry)
    return entry


def test_junk_query_strings_do_not_grow_the_cache(client, widget, redis_cache):
    for n in range(120):
        assert client.get(f"/glossary/widget/?junk={n}&utm_source=x{n}").status_code == 200
    keys = redis_cache._cache.get_client().keys("test-public:*public:page:*")
    assert len(keys) == 1


def test_a_page_cached_with_junk_in_its_address_hands_nobody_the_junk(client, demo, redis_cache):
    client.get("/tags/?page=1&evil=%3Cb%3E")
    html = client.get("/tags/").content.decode()
    assert "evil" not in html


def test_parameters_a_page_reads_still_make_different_pages(client, demo):
    assert "Interconnect" in client.get("/search/?q=interconnect").content.decode()
    assert "Interconnect" not in client.get("/search/?q=zzzz-nothing").content.decode()


def test_search_past_the_rate_limit_answers_429_with_retry_after(client, demo, settings):
    settings.PUBLIC_SEARCH_RATE_LIMIT = "3/m"
    answers = [client.get(f"/search/?q=chip{n}") for n in range(4)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert 1 <= int(answers[-1]["Retry-After"]) <= 60
    assert "Too many requests" in answers[-1].content.decode()


def test_the_api_past_the_rate_limit_answers_429_in_json(client, demo, settings):
    settings.PUBLIC_API_RATE_LIMIT = "2/m"
    answers = [client.get("/api/v1/entries/") for _ in range(3)]
    assert [r.status_code for r in answers] == [200, 200, 429]
    assert answers[-1]["Content-Type"] == "application/json"
    assert "Too many requests" in answers[-1].json()["error"]
    assert int(answers[-1]["Retry-After"]) >= 1


def test_the_limit_counts_each_client_apart(client, demo, settings):
    settings.PUBLIC_SEARCH_RATE_LIMIT = "1/m"
    assert client.get("/search/?q=a", REMOTE_ADDR="192.0.2.1").status_code == 200
    assert client.get("/search/?q=a", REMOTE_ADDR="192.0.2.1").status_code == 429
    assert client.get("/search/?q=a", REMOTE_ADDR="192.0.2.2").status_code == 200


def test_clients_with_no_address_share_one_limit_instead_of_failing(client, demo, settings):
    # A WSGI server on a Unix socket passes an empty REMOTE_ADDR (found by schemathesis).
    settings.PUBLIC_API_RATE_LIMIT = "2/m"
    answers = [client.get("/api/v1/entries/", REMOTE_ADDR=addr) for addr in ["", "", ""]]
    assert [r.status_code for r in answers] == [200, 200, 429]


def test_an_ipv6_client_counts_by_its_64(client, demo, settings):
    settings.PUBLIC_SEARCH_RATE_LIMIT = "1/m"
    assert client.get("/search/?q=a", REMOTE_ADDR="2001:db8:1:2::1").status_code == 200
    assert client.get("/search/?q=a", REMOTE_ADDR="2001:db8:1:2::ffff").status_code == 429
    assert client.get("/search/?q=a", REMOTE_ADDR="2001:db8:1:3::1").status_code == 200


@pytest.mark.parametrize("slug", ["no-such-entry", "widget-draft"])
def test_if_none_match_star_on_an_address_that_does_not_exist_is_404(
    client, widget, make_entry, slug
):
    make_entry("Draft", slug="widget-draft")
    response = client.get(f"/glossary/{slug}/", HTTP_IF_NONE_MATCH="*")
    assert response.status_code == 404
    assert client.get("/api/v1/entries/nothing/", HTTP_IF_NONE_MATCH="*").status_code == 404


def test_if_none_match_star_on_a_published_page_is_304(client, widget):
    assert client.get("/glossary/widget/", HTTP_IF_NONE_MATCH="*").status_code == 304


@pytest.mark.parametrize(
    "url", ["/feed/", "/sitemap.xml", "/", "/glossary/widget/", "/api/openapi.json"]
)
@pytest.mark.parametrize("method", ["OPTIONS", "TRACE", "POST", "PUT", "DELETE"])
def test_public_pages_answer_only_get_and_head(client, widget, url, method):
    response = client.generic(method, url)
    assert response.status_code == 405, (method, url)
    assert b"First body" not in response.content and b"<feed" not in response.content
    assert "GET" in response["Allow"]
