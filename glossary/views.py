"""Public, read-only pages. Every query starts from the visibility rule in glossary.selectors.

Entries are read only through their live version; episodes, people,
organisations and tags have a page only while a live version names them
(glossary.selectors says exactly when). Anything else answers 404, so
reference data typed in for a draft stays private. Every page issues a fixed
number of queries, whatever the size of the entries it shows.
"""

from __future__ import annotations

import datetime
import functools
import re
import string
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from glossary import document, selectors
from glossary.cache import public_page
from glossary.context_processors import site as site_context
from glossary.entry_page import Moment, disclosure_text
from glossary.models import EntryRedirect, Episode, Organisation, Sponsorship
from glossary.paths import absolute, path_for
from glossary.search import normalise_query, search
from glossary.timestamps import format_timestamp, iso_duration

RECENT_COUNT = 5


def _page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    title: str,
    description: str,
    path: str,
    status: int = 200,
) -> HttpResponse:
    context.update(
        page_title=title,
        page_description=description,
        canonical_url=absolute(path),
        site_name=settings.PUBLIC_SITE_NAME,
    )
    return render(request, template, context, status=status)


@dataclass(frozen=True)
class SponsorRead:
    """A sponsorship as episode and organisation pages list it, its read a link to that second."""

    organisation: Organisation
    episode: Episode
    read: Moment | None

    @classmethod
    def of(cls, sponsorship: Sponsorship, episode: Episode) -> SponsorRead:
        read = None
        if sponsorship.read_at is not None:
            style = episode.show.deep_link_style
            url = episode.url or episode.audio_url
            read = Moment(episode.number, url, style, sponsorship.read_at)
        return cls(sponsorship.organisation, episode, read)


def _letter(term: str) -> str:
    first = term[:1].upper()
    return first if first in string.ascii_uppercase else "#"


# --- Pages -------------------------------------------------------------------------------


@require_safe
@public_page
def home(request: HttpRequest) -> HttpResponse:
    """The A–Z index: letter navigation with counts, and the recently updated entries."""
    rows = list(
        selectors.published_entries()
        .order_by("live_version__term")
        .values_list(
            "live_version__term",
            "live_version__slug",
            "live_version__summary",
            "significant_change_at",
        )
    )
    entries: list[dict[str, Any]] = [
        {
            "term": t,
            "slug": s,
            "url": path_for("glossary:entry", s),
            "summary": m,
            "updated": u,
            "letter": _letter(str(t)),
        }
        for t, s, m, u in rows
    ]
    groups: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
    for item in sorted(entries, key=lambda e: (e["letter"] == "#", e["term"].lower())):
        groups.setdefault(item["letter"], []).append(item)
    letters = [
        {"letter": letter, "count": len(groups.get(letter, []))}
        for letter in [*string.ascii_uppercase, *(["#"] if "#" in groups else [])]
    ]
    epoch = datetime.datetime.min.replace(tzinfo=datetime.UTC)
    recent = sorted(entries, key=lambda e: e["updated"] or epoch, reverse=True)[:RECENT_COUNT]
    return _page(
        request,
        "glossary/home.html",
        {"groups": groups, "letters": letters, "recent": recent, "total": len(entries)},
        title=settings.PUBLIC_SITE_NAME,
        description="Plain explanations of the terms that come up on the show, each tied to "
        "the moment a guest said it and to the sources we checked.",
        path=reverse("glossary:home"),
    )


# --- The entry page: the hot path -----------------------------------------------------
#
# Everything the page shows is rendered once per publish into EntryVersion.rendered_html
# (glossary.entry_page.render_page): the article, its JSON-LD with the page's dates, the
# corrections and the "last updated" line. What is left per request is done without the
# ORM's query compiler or the template engine, which on their own cost several times a
# trivial view: one indexed lookup, and the page shell (base.html around entry.html)
# rendered once per process with placeholders filled with escaped values. bench/web
# measures it; see bench/README.md.

_SLOTS = ("title", "description", "canonical", "head", "content")


@functools.cache
def _entry_shell() -> tuple[str, ...]:
    """entry.html rendered with placeholders, split around them: static parts and slot names."""
    marks = {name: f"\x00{name}\x00" for name in _SLOTS}
    html = render_to_string(
        "glossary/entry.html",
        {
            "page_title": marks["title"],
            "page_description": marks["description"],
            "canonical_url": marks["canonical"],
            "head_extra": mark_safe(marks["head"]),  # noqa: S308 - a placeholder
            "page_html": mark_safe(marks["content"]),  # noqa: S308 - a placeholder
            **site_context(None),  # render_to_string has no request to run processors for
        },
    )
    return tuple(re.split("\x00(" + "|".join(_SLOTS) + ")\x00", html))


@receiver(setting_changed)
def _forget_rendered_shell(**_: Any) -> None:
    # Tests that override settings (site name, URLconf) must not get a shell rendered
    # under the old ones.
    _entry_shell.cache_clear()


@require_safe
@public_page
def entry(request: HttpRequest, slug: str) -> HttpResponse:
    row = selectors.live_page(slug)
    if row is None:
        return _redirect_or_404(request, slug)
    term, summary, page_html, changed = row
    values = {
        "title": escape(term),
        "description": escape(summary),
        "canonical": escape(absolute(path_for("glossary:entry", slug))),
        "head": (
            f'<meta property="article:modified_time" content="{changed.isoformat()}">'
            if changed
            else ""
        ),
        "content": page_html,
    }
    # Even positions are the template's static text, odd ones the slot names.
    shell = _entry_shell()
    return HttpResponse(
        "".join(part if i % 2 == 0 else values[part] for i, part in enumerate(shell))
    )


def _redirect_or_404(request: HttpRequest, slug: str) -> HttpResponse:
    """An old slug answers 301; an alias redirects, or lists the entries that share it."""
    targets = list(
        EntryRedirect.objects.filter(slug=slug, entry__live_version__isnull=False)
        .select_related("entry__live_version")
        .order_by("entry__live_version__term")
    )
    if len({t.entry_id for t in targets}) == 1:
        live = targets[0].entry.live_version
        assert live is not None  # noqa: S101 - filtered on a live version above
        return redirect("glossary:entry", live.slug, permanent=True)
    if targets:
        name = next((t.name for t in targets if t.name), slug)
        return _page(
            request,
            "glossary/alias_list.html",
            {"slug": slug, "name": name, "targets": targets},
            title=f"“{name}” may mean",
            description=f"Glossary entries that “{name}” may refer to.",
            path=reverse("glossary:entry", args=[slug]),
        )
    raise Http404("No published entry at this address.")


@require_safe
@public_page
def episode_list(request: HttpRequest) -> HttpResponse:
    episodes = list(
        selectors.public_episodes()
        .select_related("show")
        .order_by("show__name", "-season", "-number")
    )
    return _page(
        request,
        "glossary/episode_list.html",
        {"episodes": episodes},
        title="Episodes",
        description="Episodes of the show that glossary entries draw on.",
        path=reverse("glossary:episodes"),
    )


def _moments_from(
    versions: Sequence[Mapping[str, Any]], *, episode_id: int
) -> list[dict[str, Any]]:
    """Every quote, reference and timed disclosure from `episode_id`, in timestamp order."""
    moments: list[dict[str, Any]] = []
    for v in versions:
        doc = document.load(v["data"])
        facts = doc.facts
        link = {"term": v["term"], "slug": v["slug"]}
        for ref in doc.references:
            if ref.episode == episode_id:
                speaker = facts.people[ref.speaker] if ref.speaker is not None else None
                moments.append(
                    {"kind": "reference", "at": ref.at, "text": ref.text, "speaker": speaker}
                    | {"entry": link}
                )
        for d in doc.all_disclosures():
            if d.episode == episode_id and d.at is not None:
                speaker = facts.people[d.person] if d.person is not None else None
                text = disclosure_text(facts, d)
                moments.append(
                    {"kind": "disclosure", "at": d.at, "text": text, "speaker": speaker}
                    | {"entry": link}
                )
        for q in doc.quotes:
            if q.episode == episode_id:
                moments.append(
                    {
                        "kind": "quote",
                        "at": q.start,
                        "text": q.text,
                        "speaker": facts.people[q.speaker],
                        "affiliation": facts.affiliation(q.episode, q.speaker),
                        "entry": link,
                    }
                )
    moments.sort(key=lambda m: (m["at"], m["entry"]["term"]))
    for m in moments:
        m["label"] = format_timestamp(m["at"])
        m["iso"] = iso_duration(m["at"])
    return moments


@require_safe
@public_page
def episode(request: HttpRequest, show: str, season: int, number: int) -> HttpResponse:
    found = (
        selectors.public_episodes()
        .select_related("show")
        .filter(show__slug=show, season=season, number=number)
        .first()
    )
    if found is None:
        raise Http404("No public episode at this address.")
    sponsors = list(found.sponsorships.select_related("organisation").order_by("read_at"))
    appearances = list(
        found.appearances.select_related("person", "affiliation").order_by("role", "person__name")
    )
    versions = list(
        selectors.live_versions()
        .filter(episodes=found)
        .order_by("term")
        .values("term", "slug", "data")
    )
    moments = _moments_from(versions, episode_id=found.pk)
    for m in moments:
        m["href"] = found.link_at(m["at"])
    title = f"Episode {found.number}: {found.title}"
    return _page(
        request,
        "glossary/episode.html",
        {
            "episode": found,
            "sponsors": [SponsorRead.of(s, found) for s in sponsors],
            "appearances": appearances,
            "entries": versions,
            "moments": moments,
            "duration": format_timestamp(found.duration) if found.duration else "",
            "duration_iso": iso_duration(found.duration) if found.duration else "",
        },
        title=f"{title} — {found.show.name}",
        description=f"{found.show.name}, season {found.season}, episode {found.number}: "
        f"the glossary entries, quotes and references drawn from it.",
        path=found.get_absolute_url(),
    )


@require_safe
@public_page
def person_list(request: HttpRequest) -> HttpResponse:
    people = list(selectors.public_people().order_by("name"))
    return _page(
        request,
        "glossary/person_list.html",
        {"people": people},
        title="People",
        description="Hosts and guests quoted or referenced in the glossary.",
        path=reverse("glossary:people"),
    )


def _quotes_by(versions: Sequence[Mapping[str, Any]], person_id: int) -> list[dict[str, Any]]:
    quotes: list[dict[str, Any]] = []
    for v in versions:
        doc = document.load(v["data"])
        facts = doc.facts
        for q in doc.quotes:
            if q.speaker == person_id:
                ep = facts.episodes[q.episode]
                show = facts.shows[ep.show]
                quotes.append(
                    {
                        "text": q.text,
                        "affiliation": facts.affiliation(q.episode, q.speaker),
                        "episode": ep,
                        "episode_path": path_for(
                            "glossary:episode", show.slug, ep.season, ep.number
                        ),
                        "label": format_timestamp(q.start),
                        "iso": iso_duration(q.start),
                        "entry": {"term": v["term"], "slug": v["slug"]},
                        "sort": (ep.air_date or datetime.date.min, ep.number, q.start),
                    }
                )
    quotes.sort(key=lambda q: q["sort"], reverse=True)
    return quotes


@require_safe
@public_page
def person(request: HttpRequest, slug: str) -> HttpResponse:
    found = selectors.public_people().filter(slug=slug).first()
    if found is None:
        raise Http404("No public page for this person.")
    versions = list(
        selectors.live_versions()
        .filter(people=found)
        .order_by("term")
        .values("term", "slug", "data")
    )
    appearances = list(
        found.appearances.filter(episode_id__in=selectors.public_episode_ids())
        .select_related("episode__show", "affiliation")
        .order_by("-episode__air_date", "-episode__season", "-episode__number")
    )
    return _page(
        request,
        "glossary/person.html",
        {
            "person": found,
            "quotes": _quotes_by(versions, found.pk),
            "appearances": appearances,
            "entries": versions,
        },
        title=found.name,
        description=f"{found.name}: quotes and episode appearances cited in the glossary.",
        path=found.get_absolute_url(),
    )


@require_safe
@public_page
def organisation_list(request: HttpRequest) -> HttpResponse:
    organisations = list(selectors.public_organisations().order_by("name"))
    return _page(
        request,
        "glossary/organisation_list.html",
        {"organisations": organisations},
        title="Organisations",
        description="Sponsors of the show and the companies its guests work for.",
        path=reverse("glossary:organisations"),
    )


@require_safe
@public_page
def organisation(request: HttpRequest, slug: str) -> HttpResponse:
    """Where it sponsors and where its people speak: where a conflict-of-interest check starts."""
    found = selectors.public_organisations().filter(slug=slug).first()
    if found is None:
        raise Http404("No public page for this organisation.")
    episodes = selectors.public_episode_ids()
    sponsorships = list(
        found.sponsorships.filter(episode_id__in=episodes)
        .select_related("episode__show")
        .order_by("-episode__air_date", "-episode__season", "-episode__number")
    )
    appearances = list(
        found.appearances.filter(episode_id__in=episodes)
        .select_related("episode__show", "person")
        .order_by("person__name", "-episode__number")
    )
    versions = list(
        selectors.live_versions()
        .filter(organisations=found)
        .order_by("term")
        .values("term", "slug", "data")
    )
    disclosures = []
    for v in versions:
        doc = document.load(v["data"])
        for d in doc.all_disclosures():
            if d.organisation == found.pk:
                text = disclosure_text(doc.facts, d)
                disclosures.append({"text": text, "kind": d.kind, "entry": v})
    return _page(
        request,
        "glossary/organisation.html",
        {
            "organisation": found,
            "sponsorships": [SponsorRead.of(s, s.episode) for s in sponsorships],
            "appearances": appearances,
            "disclosures": disclosures,
            "entries": versions,
        },
        title=found.name,
        description=f"{found.name}: episodes it sponsored, its people on the show, and the "
        "glossary entries that disclose it.",
        path=found.get_absolute_url(),
    )


@require_safe
@public_page
def tag_list(request: HttpRequest) -> HttpResponse:
    tags = list(selectors.public_tags().order_by("name"))
    return _page(
        request,
        "glossary/tag_list.html",
        {"tags": tags},
        title="Tags",
        description="Glossary entries by topic.",
        path=reverse("glossary:tags"),
    )


@require_safe
@public_page
def tag(request: HttpRequest, slug: str) -> HttpResponse:
    found = selectors.public_tags().filter(slug=slug).first()
    if found is None:
        raise Http404("No published entries carry this tag.")
    versions = list(
        selectors.live_versions()
        .filter(tags=found)
        .order_by("term")
        .values("term", "slug", "summary")
    )
    return _page(
        request,
        "glossary/tag.html",
        {"tag": found, "entries": versions},
        title=f"Tagged “{found.name}”",
        description=f"Glossary entries about {found.name}.",
        path=reverse("glossary:tag", args=[found.slug]),
    )


@require_safe
@public_page
def search_page(request: HttpRequest) -> HttpResponse:
    query = normalise_query(request.GET.get("q", ""))
    hits = search(query) if query else []
    return _page(
        request,
        "glossary/search.html",
        {"query": query, "hits": hits, "fuzzy": bool(hits) and hits[0].fuzzy},
        title=f"Search: {query}" if query else "Search",
        description="Search the glossary.",
        path=reverse("glossary:search"),
    )


@require_safe
@public_page
def robots_txt(request: HttpRequest) -> HttpResponse:
    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /search/",
        "Disallow: /api/",
        "",
        f"Sitemap: {settings.SITE_URL}{reverse('glossary:sitemap')}",
        "",
    ]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")


def bench_trivial(request: HttpRequest) -> HttpResponse:
    """The benchmark's yardstick: no query, no template. Routed only when BENCH_TRIVIAL_VIEW."""
    return HttpResponse("ok", content_type="text/plain")
