"""The read-only JSON API and its OpenAPI description."""

import re

from jsonschema import Draft202012Validator, FormatChecker

from glossary import api, publishing
from glossary.models import Entry, Episode
from tests.live import make_live_unchecked


def test_entries_are_paginated(client, make_entry):
    for n in range(5):
        make_live_unchecked(make_entry(f"Term {n}", slug=f"term-{n}"))
    make_entry("Draft", slug="draft")
    first = client.get("/api/v1/entries/", {"page_size": 2}).json()
    assert first["count"] == 5
    assert [e["slug"] for e in first["results"]] == ["term-0", "term-1"]
    assert first["previous"] is None
    assert first["next"] == "http://127.0.0.1:8000/api/v1/entries/?page_size=2&page=2"
    last = client.get("/api/v1/entries/", {"page_size": 2, "page": 3}).json()
    assert [e["slug"] for e in last["results"]] == ["term-4"] and last["next"] is None


def test_bad_pagination_is_a_clear_400_or_404(client, make_entry):
    make_live_unchecked(make_entry("Term", slug="term"))
    bad = client.get("/api/v1/entries/", {"page_size": "lots"})
    assert bad.status_code == 400
    assert bad.json() == {"error": "page_size must be a whole number, not 'lots'."}
    assert client.get("/api/v1/entries/", {"page_size": 500}).status_code == 400
    missing = client.get("/api/v1/entries/", {"page": 9})
    assert missing.status_code == 404 and "last page is 1" in missing.json()["error"]


def test_an_entry_has_everything_its_page_shows(client, demo):
    data = client.get("/api/v1/entries/interconnect/").json()
    assert data["term"] == "Interconnect"
    assert data["aliases"] == ["NVLink", "Scale across"]
    assert data["quotes"][0]["speaker"]["name"] == "Jeetu Patel"
    assert data["quotes"][0]["start"] == 1538
    assert data["sources"][0]["checked_on"] == "2026-10-24"
    assert data["references"][0]["disclosures"][0]["kind"] == "commercial_interest"
    assert [s["entry"]["slug"] for s in data["see_also"]] == ["ai-factory", "high-bandwidth-memory"]


def test_a_see_also_target_that_is_not_published_has_no_address(client, demo):
    publishing.unpublish(Entry.objects.get(slug="ai-factory"))
    data = client.get("/api/v1/entries/interconnect/").json()
    assert data["see_also"][0] == {"text": "AI factory", "note": "", "entry": None}


def test_unpublished_entries_are_404(client, make_entry):
    make_entry("Draft", slug="draft")
    response = client.get("/api/v1/entries/draft/")
    assert response.status_code == 404
    assert response.json() == {"error": "No published entry has this slug."}


def test_episodes_people_tags_and_search(client, demo):
    episodes = client.get("/api/v1/episodes/").json()["results"]
    ep28 = next(e for e in episodes if e["number"] == 28)
    detail = client.get(f"/api/v1/episodes/{ep28['id']}/").json()
    assert detail["sponsors"] == [{"organisation": "Galileo", "slug": "galileo", "read_at": 5}]
    assert [e["slug"] for e in detail["entries"]] == ["interconnect"]
    person = client.get("/api/v1/people/jeetu-patel/").json()
    assert [e["slug"] for e in person["entries"]] == ["interconnect"]
    tag = client.get("/api/v1/tags/networking/").json()
    assert tag["entry_count"] == len(tag["entries"]) > 1
    hits = client.get("/api/v1/search/", {"q": "HBM"}).json()["results"]
    assert hits[0]["slug"] == "high-bandwidth-memory"
    assert client.get("/api/v1/search/").status_code == 400


def test_the_api_answers_304_to_a_repeat(client, demo):
    first = client.get("/api/v1/entries/")
    assert client.get("/api/v1/entries/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def _response_schema(doc: dict, path: str, status: str) -> dict:
    """The served schema for `path`'s `status` answer, resolvable against the document."""
    content = doc["paths"][path]["get"]["responses"][status]["content"]["application/json"]
    return {**content["schema"], "components": doc["components"]}


def _validate(doc: dict, path: str, response) -> None:
    schema = _response_schema(doc, path, str(response.status_code))
    Draft202012Validator(schema, format_checker=FormatChecker()).validate(response.json())


def test_every_endpoint_answers_as_the_served_openapi_document_says(client, demo):
    """Real answers, 200s and errors, validated against /api/openapi.json."""
    doc = client.get("/api/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    routes = {
        "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(p.pattern)) for p in api.url_patterns()
    }
    assert {path.removeprefix("/api/v1") for path in doc["paths"]} == routes
    episode = Episode.objects.get(number=28)
    fills = {
        "{slug}": {
            "/api/v1/entries/{slug}/": "interconnect",
            "/api/v1/people/{slug}/": "jeetu-patel",
            "/api/v1/organisations/{slug}/": "galileo",
            "/api/v1/tags/{slug}/": "networking",
        },
        "{id}": {"/api/v1/episodes/{id}/": str(episode.pk)},
    }
    checked = 0
    for path in doc["paths"]:
        url = path
        for marker, values in fills.items():
            if marker in path:
                url = path.replace(marker, values[path])
        query = {"q": "network"} if path.endswith("/search/") else {}
        ok = client.get(url, query)
        assert ok.status_code == 200, url
        _validate(doc, path, ok)
        checked += 1
        if "{" in path:
            missing = client.get(path.replace("{slug}", "no-such-thing").replace("{id}", "999999"))
            assert missing.status_code == 404, path
            _validate(doc, path, missing)
        else:
            bad = client.get(url, {**query, "page_size": "lots"})
            assert bad.status_code == 400, path
            _validate(doc, path, bad)
    assert checked == len(doc["paths"]) == 11


def test_the_openapi_document_answers_304_to_its_etag_without_the_database(client):
    # No database access is allowed in this test: any query would raise.
    first = client.get("/api/openapi.json")
    again = client.get("/api/openapi.json", HTTP_IF_NONE_MATCH=first["ETag"])
    assert first.status_code == 200 and first.json()["openapi"].startswith("3.1")
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
