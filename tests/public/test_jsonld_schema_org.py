"""Every entry page's JSON-LD is schema.org as the vocabulary defines it, in the shapes
PRODUCT.md names, and marks up only what the page shows.

`vocabulary_violations` walks every node of the structured data: each `@type` must be a
schema.org type, each property one schema.org gives that type (its own or a supertype's:
the domain), each value of a type the property takes (the range), each URL and `@id`
absolute, each date ISO 8601. The table below is schema.org's definition of the types and
properties the pages use (https://schema.org/docs/full.html); a property outside it fails
until it is added from the vocabulary, so nothing invented reaches search engines.
"""

from __future__ import annotations

import datetime
import html
import json
import re
from typing import Any
from urllib.parse import urlsplit

import pytest

from glossary.models import Entry, Source
from tests.live import make_live_unchecked

# Each type and its direct supertype (schema.org's hierarchy, as far as the pages reach).
SUPERTYPE = {
    "Thing": None,
    "CreativeWork": "Thing",
    "WebPage": "CreativeWork",
    "DefinedTermSet": "CreativeWork",
    "Clip": "CreativeWork",
    "Episode": "CreativeWork",
    "PodcastEpisode": "Episode",
    "CreativeWorkSeason": "CreativeWork",
    "PodcastSeason": "CreativeWorkSeason",
    "CreativeWorkSeries": "CreativeWork",
    "PodcastSeries": "CreativeWorkSeries",
    "Quotation": "CreativeWork",
    "Intangible": "Thing",
    "DefinedTerm": "Intangible",
    "Person": "Thing",
    "Organization": "Thing",
}
# Ranges: a schema.org type (the node's type must be it or a subtype), or a data type.
TEXT, URL, NUMBER, INTEGER, DATE = "Text", "URL", "Number", "Integer", "Date"
# property: (the types it is defined on, the types its values may have)
PROPERTIES: dict[str, tuple[set[str], set[str]]] = {
    "name": ({"Thing"}, {TEXT}),
    "description": ({"Thing"}, {TEXT}),
    "url": ({"Thing"}, {URL}),
    "alternateName": ({"Thing"}, {TEXT}),
    "mainEntity": ({"CreativeWork"}, {"Thing"}),
    "inLanguage": ({"CreativeWork"}, {TEXT}),
    "datePublished": ({"CreativeWork"}, {DATE}),
    "dateModified": ({"CreativeWork"}, {DATE}),
    "lastReviewed": ({"WebPage"}, {DATE}),
    "relatedLink": ({"WebPage"}, {URL}),
    "citation": ({"CreativeWork"}, {"CreativeWork", TEXT}),
    "keywords": ({"CreativeWork"}, {TEXT, "DefinedTerm", URL}),
    "hasPart": ({"CreativeWork"}, {"CreativeWork"}),
    "termCode": ({"DefinedTerm"}, {TEXT}),
    "inDefinedTermSet": ({"DefinedTerm"}, {"DefinedTermSet", URL}),
    "publisher": ({"CreativeWork"}, {"Organization", "Person"}),
    "archivedAt": ({"CreativeWork"}, {URL, "WebPage"}),
    "partOfEpisode": ({"Clip"}, {"Episode"}),
    "startOffset": ({"Clip"}, {NUMBER}),
    "endOffset": ({"Clip"}, {NUMBER}),
    "actor": ({"Clip", "Episode", "CreativeWorkSeason", "CreativeWorkSeries"}, {"Person"}),
    "episodeNumber": ({"Episode"}, {INTEGER, TEXT}),
    "partOfSeason": ({"Clip", "Episode"}, {"CreativeWorkSeason"}),
    "partOfSeries": ({"Clip", "Episode", "CreativeWorkSeason"}, {"CreativeWorkSeries"}),
    "seasonNumber": ({"CreativeWorkSeason"}, {INTEGER, TEXT}),
    "sponsor": ({"CreativeWork", "Organization", "Person"}, {"Organization", "Person"}),
    "text": ({"CreativeWork"}, {TEXT}),
    "creator": ({"CreativeWork"}, {"Organization", "Person"}),
    "isBasedOn": ({"CreativeWork"}, {"CreativeWork", URL}),
    "worksFor": ({"Person"}, {"Organization"}),
}
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?\Z")


def _is_a(kind: str, wanted: set[str]) -> bool:
    current: str | None = kind
    while current is not None:
        if current in wanted:
            return True
        current = SUPERTYPE[current]
    return False


def _absolute(value: Any) -> bool:
    parts = urlsplit(value) if isinstance(value, str) else None
    return bool(parts and parts.scheme in {"http", "https"} and parts.netloc)


def _value_violations(where: str, name: str, value: Any, ranges: set[str]) -> list[str]:
    if isinstance(value, dict):
        kind = value.get("@type", "")
        if kind in SUPERTYPE and not any(r in SUPERTYPE and _is_a(kind, {r}) for r in ranges):
            return [f"{where}.{name}: a {kind} is not one of {ranges}"]
        return node_violations(f"{where}.{name}", value)
    if isinstance(value, bool):
        return [f"{where}.{name}: {value!r} is not one of {ranges}"]
    if isinstance(value, int) and ranges & {INTEGER, NUMBER}:
        return []
    if isinstance(value, float) and NUMBER in ranges:
        return []
    if isinstance(value, str):
        if DATE in ranges:
            ok = bool(ISO_DATE.match(value))
            return [] if ok else [f"{where}.{name}: {value!r} is not an ISO 8601 date"]
        if URL in ranges and TEXT not in ranges:
            return [] if _absolute(value) else [f"{where}.{name}: {value!r} is not a full URL"]
        if TEXT in ranges or INTEGER in ranges:
            return [] if value.strip() else [f"{where}.{name}: empty text"]
    return [f"{where}.{name}: {value!r} is not one of {ranges}"]


def node_violations(where: str, node: dict[str, Any]) -> list[str]:
    """Every way a node and the nodes inside it leave schema.org's definitions."""
    kind = node.get("@type")
    if kind not in SUPERTYPE:
        return [f"{where}: {kind!r} is not a schema.org type this table knows"]
    where = f"{where}<{kind}>"
    found = []
    for name, value in node.items():
        if name == "@id":
            if not _absolute(value):
                found.append(f"{where}: @id {value!r} is not a full URL")
            continue
        if name in {"@type", "@context"}:
            continue
        if name not in PROPERTIES:
            found.append(f"{where}: {name!r} is not a schema.org property this table knows")
            continue
        domain, ranges = PROPERTIES[name]
        if not _is_a(kind, domain):
            found.append(f"{where}: schema.org defines {name!r} on {domain}, not {kind}")
        for item in value if isinstance(value, list) else [value]:
            found += _value_violations(where, name, item, ranges)
    return found


def jsonld(page: str) -> dict[str, Any]:
    (script,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)
    data: dict[str, Any] = json.loads(script)
    return data


def _visible_text(page: str) -> str:
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def shape_violations(data: dict[str, Any], page: str) -> list[str]:
    """PRODUCT.md's shapes, and nothing marked up that the page does not show."""
    found = []
    if data.get("@context") != "https://schema.org":
        found.append("@context is not https://schema.org")
    if data.get("@type") != "WebPage":
        found.append("the page is not a WebPage")
    term = data.get("mainEntity", {})
    if term.get("@type") != "DefinedTerm":
        found.append("mainEntity is not a DefinedTerm")
    for key in ("name", "description", "termCode", "inDefinedTermSet"):
        if not term.get(key):
            found.append(f"the DefinedTerm has no {key}")
    visible = _visible_text(page)
    if term.get("name") not in [html.unescape(d) for d in re.findall(r"<dfn>(.*?)</dfn>", page)]:
        found.append(f"the term {term.get('name')!r} is not the page's <dfn>")
    for part in data.get("hasPart", []):
        clip = part["isBasedOn"] if part["@type"] == "Quotation" else part
        if part["@type"] == "Quotation":
            if " ".join(part["text"].split()) not in visible:
                found.append(f"the quotation {part['text'][:40]!r} is not on the page")
            if clip.get("@type") != "Clip":
                found.append("a quotation is not based on a Clip")
        if not isinstance(clip.get("startOffset"), int):
            found.append("a clip has no startOffset in seconds")
        episode = clip.get("partOfEpisode", {})
        if episode.get("@type") != "PodcastEpisode" or "episodeNumber" not in episode:
            found.append("a clip is not part of a numbered PodcastEpisode")
    for citation in data.get("citation", []):
        if " ".join(citation["name"].split()) not in visible:
            found.append(f"the citation {citation['name']!r} is not on the page")
    return found


def entry_pages(client) -> dict[str, str]:
    return {
        entry.slug: client.get(f"/glossary/{entry.slug}/").content.decode()
        for entry in Entry.objects.filter(live_version__isnull=False)
    }


def test_every_demo_entry_page_is_schema_org_in_the_product_shapes(client, demo):
    pages = entry_pages(client)
    assert len(pages) == 13
    found = {
        slug: node_violations("page", jsonld(page)) + shape_violations(jsonld(page), page)
        for slug, page in pages.items()
    }
    assert {slug: v for slug, v in found.items() if v} == {}


def test_an_archived_source_and_a_quote_with_an_end_stay_schema_org(client, demo):
    source = Source.objects.get(url="https://ultraethernet.org/")
    source.citation_status = Source.CitationStatus.DEAD
    source.archive_url = "https://web.archive.org/web/2026/https://ultraethernet.org/"
    source.archive_date = datetime.date(2026, 10, 1)
    source.save()
    entry = Entry.objects.get(slug="interconnect")
    entry.quotes.update(end=1553)
    make_live_unchecked(entry)
    page = client.get("/glossary/interconnect/").content.decode()
    data = jsonld(page)
    assert any("archivedAt" in c for c in data["citation"])
    assert any(p.get("isBasedOn", {}).get("endOffset") == 1553 for p in data["hasPart"])
    assert node_violations("page", data) + shape_violations(data, page) == []


@pytest.mark.parametrize(
    ("mutation", "expected"),
    [
        (lambda d: d["mainEntity"].update(termCode=None), "not one of"),
        (lambda d: d.update(lastReviewed="24 October 2026"), "ISO 8601"),
        (lambda d: d["mainEntity"].update(lastReviewed="2026-10-24"), "not DefinedTerm"),
        (lambda d: d.update(relatedLink=["/glossary/gpu/"]), "full URL"),
        (lambda d: d["hasPart"][0].update(startOffset="25:38"), "not one of"),
        (lambda d: d["hasPart"][0].update(partOfEpisode={"@type": "Person"}), "is not one of"),
        (lambda d: d.update(speaker="Jeetu Patel"), "not a schema.org property"),
        (lambda d: d["mainEntity"].update({"@type": "GlossaryTerm"}), "not a schema.org type"),
    ],
)
def test_the_check_reports_each_departure_from_schema_org(client, demo, mutation, expected):
    data = jsonld(client.get("/glossary/interconnect/").content.decode())
    mutation(data)
    problems = node_violations("page", data)
    assert any(expected in problem for problem in problems), (expected, problems)
