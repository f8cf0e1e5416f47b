"""schema.org structured data for entry pages, built from a published document once.

The page is a `WebPage` whose `mainEntity` is a `DefinedTerm` in the glossary's
`DefinedTermSet`. Sources go in `citation`, live see-also targets in
`relatedLink`, the latest editorial check in `lastReviewed`, the dates in
`datePublished`/`dateModified`. Every timestamp is a `Clip` of a
`PodcastEpisode`; every quote a `Quotation` based on its clip. Only what the
page shows is marked up. It is rendered with the page at publish
(glossary.entry_page), never patched per request.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe

from glossary.document import EntryDocument, Facts, Organisation, Person, Source
from glossary.paths import absolute, path_for

# Inside <script> only "</script>" and "<!--" can end or confuse the element; escaping
# <, > and & as JSON \u escapes keeps the JSON identical for a parser.
_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}

# Entry id -> (term, slug) of the see-also targets that have a live version.
LiveLinks = dict[int, tuple[str, str]]


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


def _organisation(org: Organisation | None) -> dict[str, Any] | None:
    if org is None:
        return None
    node: dict[str, Any] = {"@type": "Organization", "name": org.name}
    if org.url:
        node["url"] = org.url
    return node


def _episode(facts: Facts, episode_id: int) -> dict[str, Any]:
    ep = facts.episodes[episode_id]
    show = facts.shows[ep.show]
    node: dict[str, Any] = {
        "@type": "PodcastEpisode",
        "@id": absolute(path_for("glossary:episode", show.slug, ep.season, ep.number)),
        "name": ep.title,
        "episodeNumber": ep.number,
        "partOfSeason": {"@type": "PodcastSeason", "seasonNumber": ep.season},
        "partOfSeries": {"@type": "PodcastSeries", "name": show.name},
    }
    if ep.listen_url:
        node["url"] = ep.listen_url
    if ep.air_date:
        node["datePublished"] = ep.air_date.isoformat()
    sponsors = [_organisation(facts.organisations.get(s.organisation)) for s in ep.sponsors]
    if sponsors:
        node["sponsor"] = [s for s in sponsors if s]
    return node


def _clip(facts: Facts, episode_id: int, start: int, end: int | None = None) -> dict[str, Any]:
    node: dict[str, Any] = {
        "@type": "Clip",
        "partOfEpisode": _episode(facts, episode_id),
        "startOffset": start,
    }
    if end is not None:
        node["endOffset"] = end
    return node


def _person(person: Person, affiliation: Organisation | None) -> dict[str, Any]:
    node: dict[str, Any] = {
        "@type": "Person",
        "name": person.name,
        "url": absolute(path_for("glossary:person", person.slug)),
    }
    org = _organisation(affiliation)
    if org:
        node["worksFor"] = org
    return node


def entry_jsonld(
    doc: EntryDocument,
    *,
    facts: Facts,
    live_links: LiveLinks,
    date_published: datetime.datetime | None = None,
    date_modified: datetime.datetime | None = None,
) -> dict[str, Any]:
    """The entry page's JSON-LD; `live_links` are the see-also targets readers can open."""
    url = absolute(path_for("glossary:entry", doc.slug))
    term: dict[str, Any] = {
        "@type": "DefinedTerm",
        "@id": url + "#term",
        "name": doc.term,
        "description": doc.summary,
        "termCode": doc.slug,
        "url": url,
        "inDefinedTermSet": term_set(),
    }
    if doc.aliases:
        term["alternateName"] = list(doc.aliases)
    page: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "WebPage",
        "@id": url,
        "url": url,
        "name": doc.term,
        "description": doc.summary,
        "inLanguage": "en",
        "mainEntity": term,
    }
    if date_published:
        page["datePublished"] = date_published.isoformat()
    if date_modified:
        page["dateModified"] = date_modified.isoformat()
    checked = [c.checked_on for c in doc.citations if c.checked_on]
    if checked:
        page["lastReviewed"] = max(checked).isoformat()
    if doc.citations:
        page["citation"] = [_cited(facts.sources[c.source]) for c in doc.citations]
    related = [
        absolute(path_for("glossary:entry", live_links[s.entry][1]))
        for s in doc.see_also
        if s.entry in live_links
    ]
    if related:
        page["relatedLink"] = related
    if doc.tags:
        page["keywords"] = [t.name for t in doc.tags]
    parts = _parts(doc, facts)
    if parts:
        page["hasPart"] = parts
    return page


def _cited(source: Source) -> dict[str, Any]:
    """A cited source as a CreativeWork, with its archived copy when it has one."""
    node: dict[str, Any] = {"@type": "CreativeWork", "name": source.title, "url": source.url}
    if source.publisher:
        node["publisher"] = {"@type": "Organization", "name": source.publisher}
    if source.archive_url:
        node["archivedAt"] = source.archive_url
    return node


def _parts(doc: EntryDocument, facts: Facts) -> list[dict[str, Any]]:
    """The episode moments the entry draws on: each reference a clip (with who spoke),
    each quote a Quotation based on its clip."""
    parts: list[dict[str, Any]] = []
    for ref in doc.references:
        clip = _clip(facts, ref.episode, ref.at)
        if ref.speaker is not None:
            clip["actor"] = _person(
                facts.people[ref.speaker], facts.affiliation(ref.episode, ref.speaker)
            )
        parts.append(clip)
    for quote in doc.quotes:
        parts.append(
            {
                "@type": "Quotation",
                "text": quote.text,
                "creator": _person(
                    facts.people[quote.speaker], facts.affiliation(quote.episode, quote.speaker)
                ),
                "isBasedOn": _clip(facts, quote.episode, quote.start, quote.end),
            }
        )
    return parts
