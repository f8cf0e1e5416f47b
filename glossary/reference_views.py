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
import html
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import dateformat
from django.views.decorators.http import require_safe

from glossary import document, listing_reads, page_fingerprints, selectors
from glossary.cache import public_page
from glossary.entry_page import Moment
from glossary.listing_reads import Record
from glossary.models import PublicRecord
from glossary.page_fingerprints import Stored
from glossary.pagination import PAGE_PARAM, num_pages, page_number, pager, pager_html, paginate
from glossary.paths import absolute, current_show, localise, path_for, paths_for, site_name
from glossary.shells import Shell
from glossary.timestamps import format_timestamp, iso_duration

Kind = PublicRecord.Kind
logger = logging.getLogger(__name__)
# The standard library's escape, as Django's does it, without its lazy-string wrapper: the
# same five characters, a fifth of the time (a page escapes a few hundred names).
_escape = html.escape

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
        site_name=site_name(),
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
    """A page of the live entries carrying a tag: their rows, read from the listing's index."""
    found = listing_reads.public_record_at(Kind.TAG, slug)
    if found is None:
        raise Http404("No published entries carry this tag.")
    record, count = found
    listed, pager = _listed(request, Kind.TAG, record.object_id, count, "l.row_html")
    name = _escape(record.name)
    html = _TAG.fill(
        page_title=f"Tagged “{name}”",
        page_description=f"Glossary entries about {name}.",
        canonical_url=_escape(absolute(request.path)),
        name=name,
        rows=localise("".join(row for row, _ in listed)),
        pager=pager,
    )
    return HttpResponse(html)


# --- The pages of one object, filled without the template engine ---------------------------
#
# An episode, person, organisation or tag page reads its record, how many live entries
# name it (kept at publish: glossary.listing_index) and one page of them from the listing's
# index, each with what this page shows of it, rendered at publish (glossary.listing_rows):
# no document is read and no row goes through the template engine. Records are read as
# the JSON they store (glossary.records writes them from validated documents).

_TAG = Shell(
    "glossary/tag.html",
    ("page_title", "page_description", "canonical_url", "name", "rows", "pager"),
)
_PERSON = Shell(
    "glossary/person.html",
    ("page_title", "page_description", "canonical_url", "name", "quotes", "appearances")
    + ("entries",),
)
_ORGANISATION = Shell(
    "glossary/organisation.html",
    ("page_title", "page_description", "canonical_url", "name", "website", "sponsorships")
    + ("appearances", "disclosures", "entries"),
)
_EPISODE = Shell(
    "glossary/episode.html",
    ("page_title", "page_description", "canonical_url", "chapters", "soundbites", "show_name")
    + ("season", "number", "title", "facts", "sponsors", "appearances", "moments")
    + ("entries", "pager"),
)


def _first_read(request: HttpRequest) -> int:
    """How many entries to read with the object's record: the first page's, on the first page
    (a later page reads its own once the count says it exists)."""
    return ENTRIES_PAGE_SIZE if request.GET.get(PAGE_PARAM, "1") == "1" else 0


def _listed(
    request: HttpRequest,
    kind: str,
    object_id: int,
    count: int,
    columns: str,
    first: list[tuple[Any, ...]] | None = None,
) -> tuple[list[tuple[Any, ...]], str]:
    """One page of the `count` live entries naming an object, A–Z, and the page's pager
    (`first`: the first page's, when it was read with the object's record)."""
    pages = num_pages(count, ENTRIES_PAGE_SIZE)
    number = page_number(request, pages)
    if number == 1 and first is not None and _first_read(request):
        return first, pager_html(request, number, pages)
    listed = listing_reads.listed_naming(
        kind,
        object_id,
        columns,
        offset=(number - 1) * ENTRIES_PAGE_SIZE,
        limit=ENTRIES_PAGE_SIZE,
        known=count,
    )
    return listed, pager_html(request, number, pages)


def _entry_links(listed: list[tuple[Any, ...]]) -> str:
    """The page's entries, each as its name row lists it (rendered at publish)."""
    return "".join(link for link, _ in listed)


def _entries_section(heading: str, listed: list[tuple[Any, ...]], pager: str) -> str:
    if not listed:
        return ""
    return (
        '<section aria-labelledby="entries-heading">\n'
        f'  <h2 id="entries-heading">{heading}</h2>\n'
        f'  <ul class="plain-list">{_entry_links(listed)}</ul>\n  {pager}\n</section>'
    )


def _link(route: str, record: Record | None) -> str:
    if record is None:
        return ""
    return f'<a href="{_escape(path_for(route, record.slug))}">{_escape(record.name)}</a>'


def _links(route: str, records: dict[tuple[str, int], Record]) -> dict[int, str]:
    """Each record as a link, by id: a page naming one employer on fifty lines renders it once."""
    path = paths_for(route)
    return {
        object_id: f'<a href="{_escape(path(record.slug))}">{_escape(record.name)}</a>'
        for (_, object_id), record in records.items()
    }


def _listen_url(data: dict[str, Any]) -> str:
    """The address a timestamp link opens: the episode page, else its audio (Episode.listen_url)."""
    return str(data.get("url") or data.get("audio_url") or "")


def _read_link(data: dict[str, Any], style: str, seconds: int, hidden: str) -> str:
    """A sponsor read's timestamp, as a link that plays the episode from there."""
    moment = Moment(data["number"], _listen_url(data), style, seconds, data.get("audio_url", ""))
    time = f'<time datetime="{moment.iso}">{moment.label}</time>'
    if not moment.href:
        return time
    return (
        f'<a href="{_escape(moment.href)}"{moment.listen_attrs}>'
        f'<span class="visually-hidden">{hidden}</span>{time}</a>'
    )


def _first_episodes_note(shown: list[dict[str, Any]], total: int) -> str:
    """What a page says when it shows the first EPISODES_SHOWN episodes naming an object
    and they are not all."""
    if total <= len(shown):
        return ""
    return (
        f'<p class="meta">From the first {len(shown)} of {total} episodes; all are in the '
        f'<a href="{_escape(path_for("glossary:episodes"))}">episode list</a>.</p>'
    )


# --- An episode ---------------------------------------------------------------------------


@require_safe
@public_page(reads=(PAGE_PARAM,))
def episode(request: HttpRequest, show: str, season: int, number: int) -> HttpResponse:
    return _object_page(
        request, Kind.EPISODE, f"{show}/{season}/{number}", "No public episode at this address."
    )


def _episode_values(request: HttpRequest, found: listing_reads.RecordListing) -> dict[str, str]:
    """An episode's page as its shell's values, but its address."""
    # With the records of its show, sponsors, guests and their employers.
    record, count, first, named = found.record, found.entries, found.first, found.named
    show, season, number = record.slug.split("/")
    data = record.data
    sponsors = sorted(
        data.get("sponsors", []), key=lambda s: (s["read_at"] is None, s["read_at"] or 0)
    )
    appearances = data.get("appearances", [])
    show_record = named.get((Kind.SHOW, data["show"]))
    show_name = _escape(show_record.name) if show_record else ""
    style = show_record.data.get("deep_link_style", "") if show_record else ""
    listed, pager = _listed(request, Kind.EPISODE, record.object_id, count, "n.link", first)
    # The page's entries' moments from this episode, in timestamp order (then A–Z).
    moments = [
        (at, position, item)
        for position, (_, parts) in enumerate(listed)
        for at, item in parts or []
    ]
    moments.sort(key=lambda m: (m[0], m[1]))
    num = int(data["number"])
    title = _escape(data["title"])
    return {
        "page_title": f"Episode {num}: {title} — {show_name}",
        "page_description": f"{show_name}, season {data['season']}, episode {num}: the "
        "glossary entries, quotes and references drawn from it.",
        "chapters": _escape(path_for("glossary:episode-chapters", show, season, number)),
        "soundbites": _escape(path_for("glossary:episode-soundbites", show, season, number)),
        "show_name": show_name,
        "season": str(data["season"]),
        "number": str(num),
        "title": title,
        "facts": _episode_facts(data),
        "sponsors": _episode_sponsors(data, sponsors, named, style),
        "appearances": _episode_people(appearances, named),
        "moments": "\n    ".join(item for _, _, item in moments),
        "entries": _entry_links(listed),
        "pager": pager,
    }


def _episode_facts(data: dict[str, Any]) -> str:
    parts = []
    if data.get("air_date"):
        aired = datetime.date.fromisoformat(data["air_date"])
        parts.append(
            f'Aired <time datetime="{aired.isoformat()}">{dateformat.format(aired, "F j, Y")}'
            "</time>."
        )
    if data.get("duration"):
        duration = int(data["duration"])
        parts.append(
            f'Runs <time datetime="{iso_duration(duration)}">{format_timestamp(duration)}</time>.'
        )
    audio = data.get("audio_url", "")
    if audio:
        parts.append(
            f'<a href="{_escape(audio)}" class="listen" data-listen-audio="{_escape(audio)}" '
            f'data-listen-start="0" data-listen-label="episode {data["number"]} from the start">'
            "Listen to the episode</a>."
        )
    elif _listen_url(data):
        parts.append(f'<a href="{_escape(_listen_url(data))}">Listen to the episode</a>.')
    return "\n  ".join(parts)


def _episode_sponsors(
    data: dict[str, Any],
    sponsors: list[dict[str, Any]],
    named: dict[tuple[str, int], Record],
    style: str,
) -> str:
    if not sponsors:
        return ""
    items = []
    for s in sponsors:
        org = _link("glossary:organisation", named.get((Kind.ORGANISATION, s["organisation"])))
        read = ""
        if s["read_at"] is not None:
            hidden = f"Listen to the sponsor read of episode {data['number']} at "
            read = f", read at {_read_link(data, style, int(s['read_at']), hidden)}"
        items.append(f"<li>{org}{read}</li>")
    plural = "" if len(sponsors) == 1 else "s"
    return (
        '<section aria-labelledby="sponsors-heading">\n'
        f'  <h2 id="sponsors-heading">Sponsor{plural}</h2>\n'
        f'  <ul class="plain-list">\n    {"".join(items)}\n  </ul>\n</section>'
    )


def _episode_people(appearances: list[dict[str, Any]], named: dict[tuple[str, int], Record]) -> str:
    if not appearances:
        return ""
    items = []
    for a in appearances:
        person = _link("glossary:person", named.get((Kind.PERSON, a["person"])))
        affiliation = (
            _link("glossary:organisation", named.get((Kind.ORGANISATION, a["affiliation"])))
            if a.get("affiliation")
            else ""
        )
        title = _escape(a.get("title", ""))
        detail = ", ".join(part for part in (title, affiliation) if part)
        items.append(f"<li>{person} ({_escape(a['role'])}){', ' + detail if detail else ''}</li>")
    return (
        '<section aria-labelledby="people-heading">\n'
        '  <h2 id="people-heading">On the episode</h2>\n'
        f'  <ul class="plain-list">\n    {"".join(items)}\n  </ul>\n</section>'
    )


# --- A person ------------------------------------------------------------------------------


@require_safe
@public_page(reads=(PAGE_PARAM,))
def person(request: HttpRequest, slug: str) -> HttpResponse:
    return _object_page(request, Kind.PERSON, slug, "No public page for this person.")


def _person_values(request: HttpRequest, found: listing_reads.ObjectPage) -> dict[str, str]:
    """A person's page as its shell's values, but its address."""
    record, appeared = found.record, found.episodes
    listed, pager = _listed(
        request, Kind.PERSON, record.object_id, found.entries, "n.link", found.first
    )
    # Their quotes in the page's entries, newest episode first (then A–Z by entry).
    quoted = [(key, figure) for _, parts in listed for key, figure in parts or []]
    quoted.sort(key=lambda q: q[0], reverse=True)
    note = _first_episodes_note(appeared, found.total)
    # Where they worked on those episodes, read with them.
    employers = _links("glossary:organisation", found.named)
    items = [
        f"<li>{line['anchor']} ({_escape(role)}"
        f"{', then at ' + employers[at] if at in employers else ''})</li>"
        for line in appeared
        for role, at in line["roles"]
    ]
    name = _escape(record.name)
    quotes = ""
    if quoted:
        figures = "\n  ".join(figure for _, figure in quoted)
        quotes = (
            '<section aria-labelledby="quotes-heading">\n'
            f'  <h2 id="quotes-heading">Quotes</h2>\n  {figures}\n</section>'
        )
    appearances = ""
    if items:
        appearances = (
            '<section aria-labelledby="appearances-heading">\n'
            '  <h2 id="appearances-heading">Appearances</h2>\n'
            f'  <ul class="plain-list">\n    {"".join(items)}\n  </ul>\n  {note}\n</section>'
        )
    return {
        "page_title": name,
        "page_description": f"{name}: quotes and episode appearances cited in the glossary.",
        "name": name,
        "quotes": quotes,
        "appearances": appearances,
        "entries": _entries_section(f"Entries citing {name}", listed, pager),
    }


# --- An organisation -----------------------------------------------------------------------


@require_safe
@public_page(reads=(PAGE_PARAM,))
def organisation(request: HttpRequest, slug: str) -> HttpResponse:
    """Where it sponsors and where its people speak: where a conflict-of-interest check starts."""
    return _object_page(request, Kind.ORGANISATION, slug, "No public page for this organisation.")


def _organisation_values(request: HttpRequest, found: listing_reads.ObjectPage) -> dict[str, str]:
    """An organisation's page as its shell's values, but its address."""
    record, related, named = found.record, found.episodes, found.named
    org_id = record.object_id
    note = _first_episodes_note(related, found.total)
    # The episodes' shows and the people who spoke for it there, read with them.
    people = _links("glossary:person", {k: r for k, r in named.items() if k[0] == Kind.PERSON})
    sponsorships, appearances = [], []
    for facts in related:
        number = facts["number"]
        show = named.get((Kind.SHOW, facts["show"]))
        style = show.data.get("deep_link_style", "") if show else ""
        for read_at in facts["reads"]:
            read = ""
            if read_at is not None:
                hidden = f"Listen to the sponsor read of episode {number} at "
                read = f", sponsor read at {_read_link(facts, style, int(read_at), hidden)}"
            sponsorships.append(f"<li>{facts['anchor']}{read}</li>")
        for person_id, job in facts["people"]:
            title = f", {_escape(job)}" if job else ""
            appearances.append(
                f"<li>{people.get(person_id, '')}{title}, on "
                f'<a href="{_escape(facts["path"])}">episode {number}</a></li>'
            )
    listed, pager = _listed(
        request, Kind.ORGANISATION, org_id, found.entries, "n.link", found.first
    )
    disclosed = [item for _, parts in listed for item in parts or []]
    name = _escape(record.name)
    website = record.data.get("url", "")
    return {
        "page_title": name,
        "page_description": f"{name}: episodes it sponsored, its people on the show, and the "
        "glossary entries that disclose it.",
        "name": name,
        "website": (
            f'<p class="meta"><a href="{_escape(website)}" rel="noopener">Web site</a></p>'
            if website
            else ""
        ),
        "sponsorships": (
            f'<ul class="plain-list">\n    {"".join(sponsorships)}\n  </ul>'
            if sponsorships
            else "<p>None of the episodes the glossary cites.</p>"
        ),
        "appearances": (
            f'<ul class="plain-list">\n    {"".join(appearances)}\n  </ul>'
            if appearances
            else f"<p>No one from {name} appears on the episodes the glossary cites.</p>"
        )
        + (f"\n  {note}" if note else ""),
        "disclosures": (
            '<section aria-labelledby="disclosures-heading">\n'
            '  <h2 id="disclosures-heading">Disclosures</h2>\n'
            f'  <ul class="plain-list">\n    {"".join(disclosed)}\n  </ul>\n</section>'
            if disclosed
            else ""
        ),
        "entries": _entries_section(f"Entries that mention {name}", listed, pager),
    }


# --- An episode's, person's or organisation's first page, stored ----------------------------
#
# Their pages are the heaviest of the site to build in Python: fifty entries' links and
# moments, fifty episodes' appearances, every quote. After each publish, the first page
# of each episode, person and organisation the change touched is rendered once and
# stored (glossary.stored_pages), and a reader is served it only while the page's
# statement, reading every row the page shows, fingerprints those rows as the stored
# page's (glossary.page_fingerprints). The database reads the rows for every
# request still; only the rendering is saved. So nothing a reader sees through a stored
# page differs from what the rows say now: a withdrawal changes the rows, and the page
# is rendered from them until it is stored again.


def first_page_stamp(request: HttpRequest) -> str | None:
    """What else the first page is rendered from, besides its rows; None for a later page,
    never stored (nor `?page=1`). The page reads no other parameter.

    None on a show's site too (glossary.show_site): stored pages are the network's, rendered
    for its addresses; a show's site renders its pages from their rows, so no page stored
    for one site is ever served on another."""
    if PAGE_PARAM in request.GET or current_show() is not None:
        return None
    return f"{page_fingerprints.rendered_by()}\n{request.path}\n"


def _read_named(kind: str, slug: str, first: int, stamp: str | None, fresh: bool) -> Any:
    return listing_reads.public_record_and_episodes(
        kind, slug, EPISODES_SHOWN, first, stamp, fresh=fresh
    )


def _read_episode(kind: str, slug: str, first: int, stamp: str | None, fresh: bool) -> Any:
    return listing_reads.public_record_listing(kind, slug, first, stamp, fresh=fresh)


@dataclass(frozen=True)
class _Kept:
    """How a kind's first page is read, built and addressed."""

    route: str
    shell: Shell
    # (kind, slug, entries to read, stamp, rows even if stored) -> the page's rows, its
    # stored page, or None.
    read: Callable[[str, str, int, str | None, bool], Any]
    # (request, rows) -> the shell's values, but canonical_url.
    values: Callable[[HttpRequest, Any], dict[str, str]]


STORED_KINDS: dict[str, _Kept] = {
    Kind.PERSON: _Kept("glossary:person", _PERSON, _read_named, _person_values),
    Kind.ORGANISATION: _Kept(
        "glossary:organisation", _ORGANISATION, _read_named, _organisation_values
    ),
    Kind.EPISODE: _Kept("glossary:episode", _EPISODE, _read_episode, _episode_values),
}


def _object_page(request: HttpRequest, kind: str, slug: str, missing: str) -> HttpResponse:
    """An episode's, person's or organisation's page: stored, while its rows are unchanged,
    or built from them."""
    kept = STORED_KINDS[kind]
    found = kept.read(kind, slug, _first_read(request), first_page_stamp(request), False)
    if found is None:
        raise Http404(missing)
    values = json.loads(found.parts) if isinstance(found, Stored) else kept.values(request, found)
    return HttpResponse(kept.shell.fill(canonical_url=_escape(absolute(request.path)), **values))
