"""schema.org structured data for entry pages, built from the live version's snapshot.

The page is a `WebPage` whose `mainEntity` is a `DefinedTerm` in the glossary's
`DefinedTermSet`. Sources go in `citation`, live see-also targets in
`relatedLink`, the latest editorial check in `lastReviewed`. Every timestamp is
a `Clip` of a `PodcastEpisode`; every quote a `Quotation` based on its clip.
Only what the page shows is marked up.
"""

from __future__ import annotations

import datetime
import functools
import json
from typing import Any

from django.conf import settings
from django.urls import get_script_prefix, reverse
from django.utils.safestring import SafeString, mark_safe

# Inside <script> only "</script>" and "<!--" can end or confuse the element; escaping
# <, > and & as JSON \u escapes keeps the JSON identical for a parser.
# The page's dates are added per request right after this text (glossary.views.entry).
WEB_PAGE_ANCHOR = '"@type":"WebPage"'
_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


@functools.lru_cache(maxsize=8192)
def _reverse(prefix: str, name: str, args: tuple[Any, ...]) -> str:
    return reverse(name, args=args)


def forget_paths() -> None:
    _reverse.cache_clear()


def path_for(name: str, *args: Any) -> str:
    """`reverse`, remembered: a page with fifty quotes asks for the same few paths often."""
    return _reverse(get_script_prefix(), name, args)


def script_tag(data: dict[str, Any]) -> SafeString:
    """`<script type="application/ld+json">` holding `data`, safe against HTML injection."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_ESCAPES)
    return mark_safe(f'<script type="application/ld+json">{text}</script>')  # noqa: S308


def term_set() -> dict[str, Any]:
    return {
        "@type": "DefinedTermSet",
        "@id": absolute(path_for("glossary:home")) + "#glossary",
        "name": settings.PUBLIC_SITE_NAME,
        "url": absolute(path_for("glossary:home")),
    }


def _organisation(org: dict[str, Any] | None) -> dict[str, Any] | None:
    if not org:
        return None
    node: dict[str, Any] = {"@type": "Organization", "name": org["name"]}
    if org.get("url"):
        node["url"] = org["url"]
    return node


def _episode(ep: dict[str, Any]) -> dict[str, Any]:
    node: dict[str, Any] = {
        "@type": "PodcastEpisode",
        "@id": absolute(
            path_for("glossary:episode", ep["show"]["slug"], ep["season"], ep["number"])
        ),
        "name": ep["title"],
        "episodeNumber": ep["number"],
        "partOfSeason": {"@type": "PodcastSeason", "seasonNumber": ep["season"]},
        "partOfSeries": {"@type": "PodcastSeries", "name": ep["show"]["name"]},
    }
    if ep.get("url"):
        node["url"] = ep["url"]
    if ep.get("air_date"):
        node["datePublished"] = ep["air_date"]
    sponsors = [_organisation(s["organisation"]) for s in ep.get("sponsors", [])]
    if sponsors:
        node["sponsor"] = [s for s in sponsors if s]
    return node


def _clip(ep: dict[str, Any], start: int, end: int | None = None) -> dict[str, Any]:
    node: dict[str, Any] = {
        "@type": "Clip",
        "partOfEpisode": _episode(ep),
        "startOffset": start,
    }
    if end is not None:
        node["endOffset"] = end
    return node


def _person(person: dict[str, Any], affiliation: dict[str, Any] | None) -> dict[str, Any]:
    node: dict[str, Any] = {
        "@type": "Person",
        "name": person["name"],
        "url": absolute(path_for("glossary:person", person["slug"])),
    }
    org = _organisation(affiliation)
    if org:
        node["worksFor"] = org
    return node


def entry_jsonld(
    data: dict[str, Any],
    *,
    date_published: datetime.datetime | None,
    date_modified: datetime.datetime | None,
    live_see_also: set[int],
) -> dict[str, Any]:
    """The entry page's JSON-LD; `live_see_also` are the see-also targets readers can open."""
    url = absolute(path_for("glossary:entry", data["slug"]))
    term: dict[str, Any] = {
        "@type": "DefinedTerm",
        "@id": url + "#term",
        "name": data["term"],
        "description": data["summary"],
        "termCode": data["slug"],
        "url": url,
        "inDefinedTermSet": term_set(),
    }
    if data["aliases"]:
        term["alternateName"] = data["aliases"]
    page: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "WebPage",
        "@id": url,
        "url": url,
        "name": data["term"],
        "description": data["summary"],
        "inLanguage": "en",
        "mainEntity": term,
    }
    if date_published:
        page["datePublished"] = date_published.isoformat()
    if date_modified:
        page["dateModified"] = date_modified.isoformat()
    checked = [c["checked_on"] for c in data["citations"] if c["checked_on"]]
    if checked:
        page["lastReviewed"] = max(checked)
    if data["citations"]:
        citations = []
        for c in data["citations"]:
            source = c["source"]
            node: dict[str, Any] = {
                "@type": "CreativeWork",
                "name": source["title"],
                "url": source["url"],
            }
            if source["publisher"]:
                node["publisher"] = {"@type": "Organization", "name": source["publisher"]}
            if source.get("archive_url"):
                node["archivedAt"] = source["archive_url"]
            citations.append(node)
        page["citation"] = citations
    related = [
        absolute(path_for("glossary:entry", s["slug"]))
        for s in data["see_also"]
        if s["entry_id"] in live_see_also
    ]
    if related:
        page["relatedLink"] = related
    if data["tags"]:
        page["keywords"] = data["tags"]
    parts: list[dict[str, Any]] = []
    for ref in data["references"]:
        clip = _clip(ref["episode"], ref["at"])
        if ref.get("speaker"):
            clip["actor"] = _person(ref["speaker"], ref.get("affiliation"))
        parts.append(clip)
    for quote in data["quotes"]:
        parts.append(
            {
                "@type": "Quotation",
                "text": quote["text"],
                "creator": _person(quote["speaker"], quote.get("affiliation")),
                "isBasedOn": _clip(quote["episode"], quote["start"], quote.get("end")),
            }
        )
    if parts:
        page["hasPart"] = parts
    return page
