"""Public, read-only pages. Every query starts from the one visibility rule.

Entries are read only through their live version (`Entry.objects.published()` /
`EntryVersion.live_for`). Episodes, people, organisations and tags have a public
page only while published content reaches them:

- an episode is public when a live version cites it;
- a person is public when a live version names them, or they appear on a public episode;
- an organisation is public when a live version names it, or it sponsors a public
  episode, or it is the affiliation of someone appearing on one;
- a tag is public when a live version carries it.

Anything else answers 404, so reference data typed in for a draft stays private.
Every page issues a fixed number of queries, whatever the size of the entries it shows.
"""

from __future__ import annotations

import datetime
import functools
import re
import string
from collections import OrderedDict
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe
from taggit.models import Tag

from glossary import jsonld
from glossary.cache import public_page
from glossary.context_processors import site as site_context
from glossary.models import (
    Appearance,
    Entry,
    EntryRedirect,
    EntryVersion,
    Episode,
    Organisation,
    Person,
    Sponsorship,
)
from glossary.publishing import all_disclosures
from glossary.search import normalise_query, search
from glossary.timestamps import format_timestamp, iso_duration

RECENT_COUNT = 5


# --- The visibility rule, seen from each kind of page ---------------------------------


def live_versions() -> QuerySet[EntryVersion]:
    return EntryVersion.objects.filter(live_for__isnull=False)


def _live_link(model_field: str) -> Exists:
    """`Exists` a live version pointing at the outer row through the m2m `model_field`."""
    through = getattr(EntryVersion, model_field).through
    column = {"episodes": "episode", "people": "person", "organisations": "organisation"}[
        model_field
    ]
    return Exists(
        through.objects.filter(
            **{f"{column}_id": OuterRef("pk"), "entryversion__live_for__isnull": False}
        )
    )


def public_episodes() -> QuerySet[Episode]:
    return Episode.objects.filter(_live_link("episodes"))


def _public_episode_ids() -> QuerySet[Any]:
    through = EntryVersion.episodes.through
    return through.objects.filter(entryversion__live_for__isnull=False).values("episode_id")


def public_people() -> QuerySet[Person]:
    on_public_episode = Appearance.objects.filter(
        person=OuterRef("pk"), episode_id__in=_public_episode_ids()
    )
    return Person.objects.filter(_live_link("people") | Exists(on_public_episode))


def public_organisations() -> QuerySet[Organisation]:
    episodes = _public_episode_ids()
    sponsors = Sponsorship.objects.filter(organisation=OuterRef("pk"), episode_id__in=episodes)
    employs = Appearance.objects.filter(affiliation=OuterRef("pk"), episode_id__in=episodes)
    return Organisation.objects.filter(
        _live_link("organisations") | Exists(sponsors) | Exists(employs)
    )


def public_tags() -> QuerySet[Tag]:
    return Tag.objects.filter(entry_versions__live_for__isnull=False).annotate(
        entry_count=Count("entry_versions", filter=Q(entry_versions__live_for__isnull=False))
    )


# --- Helpers ---------------------------------------------------------------------------


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
        canonical_url=f"{settings.SITE_URL}{path}",
        site_name=settings.PUBLIC_SITE_NAME,
    )
    return render(request, template, context, status=status)


def _episode_path(ep: dict[str, Any]) -> str:
    return reverse("glossary:episode", args=[ep["show"]["slug"], ep["season"], ep["number"]])


def _letter(term: str) -> str:
    first = term[:1].upper()
    return first if first in string.ascii_uppercase else "#"


# --- Pages -------------------------------------------------------------------------------


@require_safe
@public_page
def home(request: HttpRequest) -> HttpResponse:
    """The A–Z index: letter navigation with counts, and the recently updated entries."""
    rows = list(
        Entry.objects.published()
        .order_by("live_version__term")
        .values_list(
            "live_version__term",
            "live_version__slug",
            "live_version__summary",
            "significant_change_at",
        )
    )
    entries = [
        {
            "term": t,
            "slug": s,
            "url": jsonld.path_for("glossary:entry", s),
            "summary": m,
            "updated": u,
            "letter": _letter(t),
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
# The article, its tags and its JSON-LD are rendered once per publish
# (EntryVersion.rendered_html, from templates/glossary/_article.html). What is left
# per request is done without the ORM's query compiler or the template engine, which
# on their own cost several times a trivial view: one indexed SQL statement, and the
# page shell (base.html around entry.html) rendered once per process with placeholders
# filled with escaped values. bench/web measures it; see bench/README.md.

_SLOTS = ("title", "description", "canonical", "head", "article", "after")
_MONTHS = (
    "January February March April May June July August September October November December"
).split()


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
            "article_html": mark_safe(marks["article"]),  # noqa: S308 - a placeholder
            "after_article": mark_safe(marks["after"]),  # noqa: S308 - a placeholder
            **site_context(None),  # render_to_string has no request to run processors for
        },
    )
    return tuple(re.split("\x00(" + "|".join(_SLOTS) + ")\x00", html))


@receiver(setting_changed)
def _forget_rendered_shells(**_: Any) -> None:
    # Tests that override settings (site name, URLconf) must not get a shell or a path
    # remembered under the old ones.
    _entry_shell.cache_clear()
    jsonld.forget_paths()


def _aware(value: Any) -> datetime.datetime | None:
    """A datetime column read by a raw cursor, as an aware datetime on every database."""
    if value is None:
        return None
    parsed = (
        value if isinstance(value, datetime.datetime) else datetime.datetime.fromisoformat(value)
    )
    # Stored in UTC (USE_TZ); SQLite hands it back without the zone.
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.UTC)


# The visibility rule as SQL: a version is public only while an entry's live_version
# points at it (Entry.objects.published()). The LEFT JOIN brings the correction notes
# of every version of the entry that was ever published, newest first, in the same
# statement; an entry without corrections gives one row with NULLs there.
_ENTRY_SQL = (
    'SELECT v."term", v."slug", v."summary", v."rendered_html", '
    'e."first_published_at", e."significant_change_at", c."published_at", c."correction_note" '
    'FROM "glossary_entryversion" v '
    'INNER JOIN "glossary_entry" e ON e."live_version_id" = v."id" '
    'LEFT JOIN "glossary_entryversion" c ON c."entry_id" = e."id" '
    'AND c."published_at" IS NOT NULL AND c."correction_note" <> %s '
    'WHERE v."slug" = %s ORDER BY c."published_at" DESC'
)


def _entry_rows(slug: str) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(_ENTRY_SQL, ["", slug])
        return cursor.fetchall()


def _time(value: datetime.datetime) -> str:
    # Written out by hand: the site is in English, and date_format's locale machinery
    # costs more than the rest of the page.
    return (
        f'<time datetime="{value:%Y-%m-%d}">'
        f"{_MONTHS[value.month - 1]} {value.day}, {value.year}</time>"
    )


def _after_article(
    updated: datetime.datetime | None, corrections: list[tuple[datetime.datetime, str]]
) -> str:
    parts: list[str] = []
    if corrections:
        parts += [
            '<section class="corrections" aria-labelledby="corrections-heading">',
            f'<h2 id="corrections-heading">Correction{"s" if len(corrections) > 1 else ""}</h2>',
            *(f"<p>{_time(d)}: {escape(note)}</p>" for d, note in corrections),
            "</section>",
        ]
    if updated:
        parts.append(f'<p class="meta updated">Last updated {_time(updated)}.</p>')
    return "\n".join(parts)


def _with_dates(
    html: str, published: datetime.datetime | None, modified: datetime.datetime | None
) -> str:
    """Add the entry's dates to the JSON-LD rendered with the article (dates are ISO text)."""
    dates = "".join(
        f',"{name}":"{value.isoformat()}"'
        for name, value in (("datePublished", published), ("dateModified", modified))
        if value
    )
    return html.replace(jsonld.WEB_PAGE_ANCHOR, jsonld.WEB_PAGE_ANCHOR + dates, 1)


@require_safe
@public_page
def entry(request: HttpRequest, slug: str) -> HttpResponse:
    rows = _entry_rows(slug)
    if not rows:
        return _redirect_or_404(request, slug)
    term, slug, summary, rendered_html, first_published, changed = rows[0][:6]
    first_published, changed = _aware(first_published), _aware(changed)
    corrections = [(_aware(r[6]), r[7]) for r in rows if r[6] is not None]
    values = {
        "title": escape(term),
        "description": escape(summary),
        "canonical": escape(jsonld.absolute(jsonld.path_for("glossary:entry", slug))),
        "head": (
            f'<meta property="article:modified_time" content="{changed.isoformat()}">'
            if changed
            else ""
        ),
        "article": _with_dates(rendered_html, first_published, changed),
        "after": _after_article(changed, corrections),  # type: ignore[arg-type]
    }
    shell = _entry_shell()
    # Even positions are the template's static text, odd ones the slot names.
    page = "".join(part if i % 2 == 0 else values[part] for i, part in enumerate(shell))
    return HttpResponse(page)


def _redirect_or_404(request: HttpRequest, slug: str) -> HttpResponse:
    """An old slug answers 301; an alias redirects, or lists the entries that share it."""
    targets = list(
        EntryRedirect.objects.filter(slug=slug, entry__live_version__isnull=False)
        .select_related("entry__live_version")
        .order_by("entry__live_version__term")
    )
    if len({t.entry_id for t in targets}) == 1:
        return redirect("glossary:entry", targets[0].entry.live_version.slug, permanent=True)
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
        public_episodes().select_related("show").order_by("show__name", "-season", "-number")
    )
    return _page(
        request,
        "glossary/episode_list.html",
        {"episodes": episodes},
        title="Episodes",
        description="Episodes of the show that glossary entries draw on.",
        path=reverse("glossary:episodes"),
    )


def _moments_from(versions: list[dict[str, Any]], *, episode_id: int) -> list[dict[str, Any]]:
    """Every quote, reference and timed disclosure from `episode_id`, in timestamp order."""
    moments: list[dict[str, Any]] = []
    for v in versions:
        data = v["data"]
        link = {"term": v["term"], "slug": v["slug"]}
        for ref in data["references"]:
            if ref["episode"]["id"] == episode_id:
                moments.append(
                    {
                        "kind": "reference",
                        "at": ref["at"],
                        "text": ref["text"],
                        "speaker": ref["speaker"],
                        "entry": link,
                    }
                )
            for d in ref["disclosures"]:
                if d["episode"] and d["episode"]["id"] == episode_id and d["at"] is not None:
                    moments.append(
                        {
                            "kind": "disclosure",
                            "at": d["at"],
                            "text": d["text"],
                            "speaker": d["person"],
                            "entry": link,
                        }
                    )
        for d in data["disclosures"]:
            if d["episode"] and d["episode"]["id"] == episode_id and d["at"] is not None:
                moments.append(
                    {
                        "kind": "disclosure",
                        "at": d["at"],
                        "text": d["text"],
                        "speaker": d["person"],
                        "entry": link,
                    }
                )
        for q in data["quotes"]:
            if q["episode"]["id"] == episode_id:
                moments.append(
                    {
                        "kind": "quote",
                        "at": q["start"],
                        "text": q["text"],
                        "speaker": q["speaker"],
                        "affiliation": q["affiliation"],
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
        public_episodes()
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
        live_versions().filter(episodes=found).order_by("term").values("term", "slug", "data")
    )
    moments = _moments_from(versions, episode_id=found.pk)
    for m in moments:
        m["href"] = found.link_at(m["at"])
    for s in sponsors:
        s.href = found.link_at(s.read_at) if s.read_at is not None else ""
        s.label = format_timestamp(s.read_at) if s.read_at is not None else ""
        s.iso = iso_duration(s.read_at) if s.read_at is not None else ""
    title = f"Episode {found.number}: {found.title}"
    return _page(
        request,
        "glossary/episode.html",
        {
            "episode": found,
            "sponsors": sponsors,
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
    people = list(public_people().order_by("name"))
    return _page(
        request,
        "glossary/person_list.html",
        {"people": people},
        title="People",
        description="Hosts and guests quoted or referenced in the glossary.",
        path=reverse("glossary:people"),
    )


def _quotes_by(versions: list[dict[str, Any]], person_id: int) -> list[dict[str, Any]]:
    quotes = []
    for v in versions:
        for q in v["data"]["quotes"]:
            if q["speaker"] and q["speaker"]["id"] == person_id:
                ep = q["episode"]
                quotes.append(
                    {
                        "text": q["text"],
                        "affiliation": q["affiliation"],
                        "episode": ep,
                        "episode_path": _episode_path(ep),
                        "label": format_timestamp(q["start"]),
                        "iso": iso_duration(q["start"]),
                        "entry": {"term": v["term"], "slug": v["slug"]},
                        "sort": (ep.get("air_date") or "", ep["number"], q["start"]),
                    }
                )
    quotes.sort(key=lambda q: q["sort"], reverse=True)
    return quotes


@require_safe
@public_page
def person(request: HttpRequest, slug: str) -> HttpResponse:
    found = public_people().filter(slug=slug).first()
    if found is None:
        raise Http404("No public page for this person.")
    versions = list(
        live_versions().filter(people=found).order_by("term").values("term", "slug", "data")
    )
    appearances = list(
        found.appearances.filter(episode_id__in=_public_episode_ids())
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
    organisations = list(public_organisations().order_by("name"))
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
    found = public_organisations().filter(slug=slug).first()
    if found is None:
        raise Http404("No public page for this organisation.")
    episodes = _public_episode_ids()
    sponsorships = list(
        found.sponsorships.filter(episode_id__in=episodes)
        .select_related("episode__show")
        .order_by("-episode__air_date", "-episode__season", "-episode__number")
    )
    for s in sponsorships:
        s.href = s.episode.link_at(s.read_at) if s.read_at is not None else ""
        s.label = format_timestamp(s.read_at) if s.read_at is not None else ""
        s.iso = iso_duration(s.read_at) if s.read_at is not None else ""
    appearances = list(
        found.appearances.filter(episode_id__in=episodes)
        .select_related("episode__show", "person")
        .order_by("person__name", "-episode__number")
    )
    versions = list(
        live_versions().filter(organisations=found).order_by("term").values("term", "slug", "data")
    )
    disclosures = []
    for v in versions:
        data = v["data"]
        for d in all_disclosures(data):
            if d["organisation"] and d["organisation"]["id"] == found.pk:
                disclosures.append({"text": d["text"], "kind": d["kind"], "entry": v})
    return _page(
        request,
        "glossary/organisation.html",
        {
            "organisation": found,
            "sponsorships": sponsorships,
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
    tags = list(public_tags().order_by("name"))
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
    found = Tag.objects.filter(slug=slug, entry_versions__live_for__isnull=False).first()
    if found is None:
        raise Http404("No published entries carry this tag.")
    versions = list(
        live_versions().filter(tags=found).order_by("term").values("term", "slug", "summary")
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
