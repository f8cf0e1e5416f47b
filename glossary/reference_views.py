"""Public pages of episodes, people, organisations and tags, from their public records.

Readers see these objects as the most recent publish approved them
(glossary.records), never as the desk's tables say now: a writer renaming a
person or retitling an episode changes nothing here until an editor publishes an
entry that shows the change. A page exists while a live version names the
object, and lists come a page at a time (glossary.pagination), so every page
reads a fixed number of rows whatever the size of the glossary.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from glossary import document, records, selectors
from glossary.cache import public_page
from glossary.document import EntryDocument, Facts
from glossary.entry_page import Moment, disclosure_text
from glossary.models import EntryVersion, PublicRecord
from glossary.pagination import PAGE_PARAM, pager, paginate
from glossary.paths import absolute, path_for
from glossary.timestamps import format_timestamp, iso_duration

Kind = PublicRecord.Kind

# Rows per page of the lists, and entries per page of an episode, person,
# organisation or tag.
LIST_PAGE_SIZE = 200
ENTRIES_PAGE_SIZE = 50
# A person's or organisation's episodes: the first this many in list order (shows A to Z,
# newest first), with the total; a host on every episode does not make a page grow.
EPISODES_SHOWN = 50


def _render(
    request: HttpRequest, template: str, context: dict[str, Any], *, title: str, description: str
) -> HttpResponse:
    context.update(
        page_title=title,
        page_description=description,
        canonical_url=absolute(request.path),
        site_name=settings.PUBLIC_SITE_NAME,
    )
    return render(request, template, context)


@dataclass(frozen=True)
class EpisodeLink:
    """An episode as a list or another page names it."""

    number: int
    season: int
    title: str
    show: str
    air_date: datetime.date | None
    url: str
    deep_link_style: str = ""

    @classmethod
    def of(cls, record: PublicRecord, shows: dict[int, PublicRecord]) -> EpisodeLink:
        episode = document.Episode.model_validate(record.data)
        show = shows.get(episode.show)
        return cls(
            number=episode.number,
            season=episode.season,
            title=episode.title,
            show=show.name if show else "",
            air_date=episode.air_date,
            url=path_for("glossary:episode", *record.slug.split("/")),
            deep_link_style=show.data["deep_link_style"] if show else "",
        )


def _episode_links(rows: list[PublicRecord]) -> list[EpisodeLink]:
    shows = selectors.records_by_id(
        Kind.SHOW, (document.Episode.model_validate(r.data).show for r in rows)
    )
    return [EpisodeLink.of(r, shows) for r in rows]


@dataclass(frozen=True)
class Named:
    """A person, organisation or tag as a link."""

    name: str
    url: str


def _person(record: PublicRecord | None) -> Named | None:
    return Named(record.name, path_for("glossary:person", record.slug)) if record else None


def _organisation(record: PublicRecord | None) -> Named | None:
    return Named(record.name, path_for("glossary:organisation", record.slug)) if record else None


@dataclass
class EntryPage:
    """The live versions a page lists (a page of them), their documents and approved facts."""

    versions: list[EntryVersion]
    docs: list[EntryDocument]
    facts: Facts
    pager: dict[str, Any] = field(default_factory=dict)


def _entries(request: HttpRequest, kind: str, object_id: int) -> EntryPage:
    versions = selectors.live_versions_naming(kind, object_id).order_by("term")
    page = paginate(request, versions.only("term", "slug", "summary", "data"), ENTRIES_PAGE_SIZE)
    listed = list(page.object_list)
    docs = [document.load(v.data) for v in listed]
    return EntryPage(listed, docs, records.approved_facts_of(docs), pager(request, page))


# --- Episodes -----------------------------------------------------------------------------


@require_safe
@public_page(reads=(PAGE_PARAM,))
def episode_list(request: HttpRequest) -> HttpResponse:
    page = paginate(request, selectors.public_episodes(), LIST_PAGE_SIZE)
    return _render(
        request,
        "glossary/episode_list.html",
        {"episodes": _episode_links(list(page.object_list)), "pager": pager(request, page)},
        title="Episodes",
        description="Episodes of the show that glossary entries draw on.",
    )


@dataclass(frozen=True)
class Appearance:
    person: Named | None
    role: str
    title: str
    affiliation: Named | None


def _moments(listed: EntryPage, episode_id: int) -> list[dict[str, Any]]:
    """Every quote, reference and timed disclosure from the episode, in timestamp order."""
    facts = listed.facts
    moments: list[dict[str, Any]] = []
    for version, doc in zip(listed.versions, listed.docs, strict=True):
        link = {"term": version.term, "slug": version.slug}

        def person(pk: int | None) -> document.Person | None:
            return facts.people.get(pk) if pk is not None else None

        for ref in doc.references:
            if ref.episode == episode_id:
                moments.append(
                    {"kind": "reference", "at": ref.at, "text": ref.text}
                    | {"speaker": person(ref.speaker), "entry": link}
                )
        for d in doc.all_disclosures():
            if d.episode == episode_id and d.at is not None:
                moments.append(
                    {"kind": "disclosure", "at": d.at, "text": disclosure_text(facts, d)}
                    | {"speaker": person(d.person), "entry": link}
                )
        for q in doc.quotes:
            if q.episode == episode_id:
                moments.append(
                    {"kind": "quote", "at": q.start, "text": q.text, "speaker": person(q.speaker)}
                    | {"affiliation": facts.affiliation(q.episode, q.speaker), "entry": link}
                )
    moments.sort(key=lambda m: (m["at"], m["entry"]["term"]))
    episode = facts.episodes[episode_id]
    style = facts.shows[episode.show].deep_link_style if episode.show in facts.shows else ""
    for m in moments:
        m["label"] = format_timestamp(m["at"])
        m["iso"] = iso_duration(m["at"])
        m["moment"] = Moment(episode.number, episode.listen_url, style, m["at"], episode.audio_url)
        m["href"] = m["moment"].href
    return moments


@require_safe
@public_page(reads=(PAGE_PARAM,))
def episode(request: HttpRequest, show: str, season: int, number: int) -> HttpResponse:
    record = selectors.public_record(Kind.EPISODE, f"{show}/{season}/{number}")
    if record is None:
        raise Http404("No public episode at this address.")
    episode = document.Episode.model_validate(record.data)
    show_record = selectors.records_by_id(Kind.SHOW, [episode.show]).get(episode.show)
    show_name = show_record.name if show_record else ""
    style = show_record.data["deep_link_style"] if show_record else ""
    orgs = selectors.records_by_id(
        Kind.ORGANISATION,
        [s.organisation for s in episode.sponsors]
        + [a.affiliation for a in episode.appearances if a.affiliation],
    )
    people = selectors.records_by_id(Kind.PERSON, [a.person for a in episode.appearances])
    sponsors = [
        {
            "organisation": _organisation(orgs.get(s.organisation)),
            "read": Moment(episode.number, episode.listen_url, style, s.read_at, episode.audio_url)
            if s.read_at is not None
            else None,
        }
        for s in sorted(episode.sponsors, key=lambda s: (s.read_at is None, s.read_at or 0))
    ]
    appearances = [
        Appearance(
            person=_person(people.get(a.person)),
            role=a.role,
            title=a.title,
            affiliation=_organisation(orgs.get(a.affiliation)) if a.affiliation else None,
        )
        for a in episode.appearances
    ]
    listed = _entries(request, Kind.EPISODE, record.object_id)
    title = f"Episode {episode.number}: {episode.title}"
    return _render(
        request,
        "glossary/episode.html",
        {
            "episode": episode,
            "show_name": show_name,
            "show_slug": show,
            "sponsors": sponsors,
            "appearances": appearances,
            "entries": listed.versions,
            "moments": _moments(listed, record.object_id),
            "pager": listed.pager,
            "duration": format_timestamp(episode.duration) if episode.duration else "",
            "duration_iso": iso_duration(episode.duration) if episode.duration else "",
        },
        title=f"{title} — {show_name}",
        description=f"{show_name}, season {episode.season}, episode {episode.number}: "
        "the glossary entries, quotes and references drawn from it.",
    )


# --- People ------------------------------------------------------------------------------


@require_safe
@public_page(reads=(PAGE_PARAM,))
def person_list(request: HttpRequest) -> HttpResponse:
    page = paginate(request, selectors.public_people(), LIST_PAGE_SIZE)
    people = [_person(r) for r in page.object_list]
    return _render(
        request,
        "glossary/person_list.html",
        {"people": people, "pager": pager(request, page)},
        title="People",
        description="Hosts and guests quoted or referenced in the glossary.",
    )


def _episodes_naming(
    kind: str, object_id: int
) -> tuple[list[tuple[PublicRecord, document.Episode]], int]:
    """The first EPISODES_SHOWN public episodes naming the object, in list order, and how many."""
    naming = selectors.public_episodes_naming(kind, object_id)
    shown = [
        (record, document.Episode.model_validate(record.data)) for record in naming[:EPISODES_SHOWN]
    ]
    total = len(shown) if len(shown) < EPISODES_SHOWN else naming.count()
    return shown, total


@require_safe
@public_page(reads=(PAGE_PARAM,))
def person(request: HttpRequest, slug: str) -> HttpResponse:
    record = selectors.public_record(Kind.PERSON, slug)
    if record is None:
        raise Http404("No public page for this person.")
    listed = _entries(request, Kind.PERSON, record.object_id)
    facts = listed.facts
    quotes: list[dict[str, Any]] = []
    for version, doc in zip(listed.versions, listed.docs, strict=True):
        for q in doc.quotes:
            if q.speaker != record.object_id:
                continue
            episode = facts.episodes[q.episode]
            show = facts.shows.get(episode.show)
            quotes.append(
                {
                    "text": q.text,
                    "affiliation": facts.affiliation(q.episode, q.speaker),
                    "number": episode.number,
                    "episode_path": path_for(
                        "glossary:episode",
                        show.slug if show else "",
                        episode.season,
                        episode.number,
                    ),
                    "label": format_timestamp(q.start),
                    "iso": iso_duration(q.start),
                    "entry": {"term": version.term, "slug": version.slug},
                    "sort": (episode.air_date or datetime.date.min, episode.number, q.start),
                }
            )
    quotes.sort(key=lambda q: q["sort"], reverse=True)
    appeared, episode_count = _episodes_naming(Kind.PERSON, record.object_id)
    orgs = selectors.records_by_id(
        Kind.ORGANISATION,
        [a.affiliation for _, e in appeared for a in e.appearances if a.affiliation],
    )
    links = _episode_links([r for r, _ in appeared])
    appearances = [
        {
            "episode": link,
            "role": a.role,
            "affiliation": _organisation(orgs.get(a.affiliation)) if a.affiliation else None,
        }
        for link, (_, e) in zip(links, appeared, strict=True)
        for a in e.appearances
        if a.person == record.object_id
    ]
    return _render(
        request,
        "glossary/person.html",
        {
            "person": record,
            "quotes": quotes,
            "appearances": appearances,
            "episode_count": episode_count,
            "episodes_shown": len(appeared),
            "entries": listed.versions,
            "pager": listed.pager,
        },
        title=record.name,
        description=f"{record.name}: quotes and episode appearances cited in the glossary.",
    )


# --- Organisations ---------------------------------------------------------------------------


@require_safe
@public_page(reads=(PAGE_PARAM,))
def organisation_list(request: HttpRequest) -> HttpResponse:
    page = paginate(request, selectors.public_organisations(), LIST_PAGE_SIZE)
    organisations = [_organisation(r) for r in page.object_list]
    return _render(
        request,
        "glossary/organisation_list.html",
        {"organisations": organisations, "pager": pager(request, page)},
        title="Organisations",
        description="Sponsors of the show and the companies its guests work for.",
    )


@require_safe
@public_page(reads=(PAGE_PARAM,))
def organisation(request: HttpRequest, slug: str) -> HttpResponse:
    """Where it sponsors and where its people speak: where a conflict-of-interest check starts."""
    record = selectors.public_record(Kind.ORGANISATION, slug)
    if record is None:
        raise Http404("No public page for this organisation.")
    org_id = record.object_id
    related, episode_count = _episodes_naming(Kind.ORGANISATION, org_id)
    links = _episode_links([r for r, _ in related])
    people = selectors.records_by_id(
        Kind.PERSON, [a.person for _, e in related for a in e.appearances]
    )
    sponsorships, appearances = [], []
    for (_, episode), link in zip(related, links, strict=True):
        for s in episode.sponsors:
            if s.organisation == org_id:
                read = (
                    Moment(
                        episode.number,
                        episode.listen_url,
                        link.deep_link_style,
                        s.read_at,
                        episode.audio_url,
                    )
                    if s.read_at is not None
                    else None
                )
                sponsorships.append({"episode": link, "read": read})
        for a in episode.appearances:
            if a.affiliation == org_id:
                person = _person(people.get(a.person))
                appearances.append({"person": person, "title": a.title, "episode": link})
    listed = _entries(request, Kind.ORGANISATION, org_id)
    disclosures = [
        {"text": disclosure_text(listed.facts, d), "kind": d.kind, "entry": version}
        for version, doc in zip(listed.versions, listed.docs, strict=True)
        for d in doc.all_disclosures()
        if d.organisation == org_id
    ]
    return _render(
        request,
        "glossary/organisation.html",
        {
            "organisation": record,
            "website": record.data.get("url", ""),
            "sponsorships": sponsorships,
            "appearances": appearances,
            "disclosures": disclosures,
            "episode_count": episode_count,
            "episodes_shown": len(related),
            "entries": listed.versions,
            "pager": listed.pager,
        },
        title=record.name,
        description=f"{record.name}: episodes it sponsored, its people on the show, and the "
        "glossary entries that disclose it.",
    )


# --- Tags ----------------------------------------------------------------------------------


@require_safe
@public_page(reads=(PAGE_PARAM,))
def tag_list(request: HttpRequest) -> HttpResponse:
    page = paginate(request, selectors.public_tags(), LIST_PAGE_SIZE)
    return _render(
        request,
        "glossary/tag_list.html",
        {"tags": list(page.object_list), "pager": pager(request, page)},
        title="Tags",
        description="Glossary entries by topic.",
    )


@require_safe
@public_page(reads=(PAGE_PARAM,))
def tag(request: HttpRequest, slug: str) -> HttpResponse:
    record = selectors.public_record(Kind.TAG, slug)
    if record is None:
        raise Http404("No published entries carry this tag.")
    versions = selectors.live_versions_naming(Kind.TAG, record.object_id).order_by("term")
    page = paginate(request, versions.only("term", "slug", "summary"), ENTRIES_PAGE_SIZE)
    return _render(
        request,
        "glossary/tag.html",
        {"tag": record, "entries": list(page.object_list), "pager": pager(request, page)},
        title=f"Tagged “{record.name}”",
        description=f"Glossary entries about {record.name}.",
    )
