"""Public, read-only pages of entries: the A–Z index, the entry page, search, robots.txt.

Every query starts from the visibility rule in glossary.selectors: entries are
read only through their live version. Episodes, people, organisations and tags
have their own pages (glossary.reference_views). Every page issues a fixed
number of queries, whatever the size of the glossary.
"""

from __future__ import annotations

import functools
import re
import string
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.db.models import Case, Count, When
from django.db.models.functions import Lower, Substr, Upper
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from glossary import selectors
from glossary.api import openapi_document
from glossary.cache import public_page
from glossary.context_processors import site as site_context
from glossary.models import EntryRedirect
from glossary.pagination import PAGE_PARAM, page_link, pager, paginate
from glossary.paths import absolute, path_for
from glossary.search import normalise_query, results
from glossary.throttle import limited

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


INDEX_PAGE_SIZE = 200
_LETTERS = list(string.ascii_uppercase)
# "#" (digits and symbols) first, then A to Z, as the index lists them.
_GROUP_ORDER = ["#", *_LETTERS]


def _letter(term: str) -> str:
    first = term[:1].upper()
    return first if first in _LETTERS else "#"


@require_safe
@public_page(reads=(PAGE_PARAM,))
def home(request: HttpRequest) -> HttpResponse:
    """The A–Z index, a page at a time: letters with counts, then the entries in order."""
    initial = Upper(Substr("term", 1, 1))
    in_letters = Case(When(initial__in=_LETTERS, then=1), default=0)
    ordered = (
        selectors.live_versions()
        .annotate(initial=initial, lettered=in_letters)
        .order_by("lettered", Lower("term"), "term")
        .values_list("term", "slug", "summary")
    )
    counts: dict[str, int] = dict.fromkeys(_GROUP_ORDER, 0)
    rows = selectors.live_versions().annotate(initial=initial).values("initial")
    for row in rows.annotate(n=Count("pk")):
        counts[_letter(row["initial"] or "")] += row["n"]
    # The letters' counts add up to the total: no second pass over every live entry.
    page = paginate(request, ordered, INDEX_PAGE_SIZE, count=sum(counts.values()))
    letters, seen = [], 0
    for letter in _GROUP_ORDER:
        start_page = seen // INDEX_PAGE_SIZE + 1
        anchor = f"#letter-{'other' if letter == '#' else letter.lower()}"
        href = anchor if start_page == page.number else page_link(request, start_page) + anchor
        if letter != "#" or counts[letter]:
            letters.append({"letter": letter, "count": counts[letter], "href": href})
        seen += counts[letter]
    groups: dict[str, list[dict[str, Any]]] = {}
    for term, slug, summary in page.object_list:
        item = {"term": term, "url": path_for("glossary:entry", slug), "summary": summary}
        groups.setdefault(_letter(term), []).append(item)
    recent = (
        selectors.live_versions()
        .order_by("-live_for__significant_change_at", "term")
        .values("term", "slug", "live_for__significant_change_at")[:RECENT_COUNT]
    )
    return _page(
        request,
        "glossary/home.html",
        {
            "groups": groups,
            "letters": letters,
            "recent": [
                {
                    "term": r["term"],
                    "url": path_for("glossary:entry", r["slug"]),
                    "updated": r["live_for__significant_change_at"],
                }
                for r in recent
            ],
            "total": page.paginator.count,
            "pager": pager(request, page),
        },
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
    """An old slug answers 301; an alias redirects, or lists the entries that share it.

    Addresses are lowercase, so another case of a live address redirects to it.
    """
    if slug != slug.lower():
        return redirect("glossary:entry", slug.lower(), permanent=True)
    same_but_case = (
        selectors.live_versions().filter(slug__iexact=slug).values_list("slug", flat=True).first()
    )
    if same_but_case is not None and same_but_case != slug:
        # Published before slugs were stored in lowercase.
        return redirect("glossary:entry", same_but_case, permanent=True)
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


SEARCH_PAGE_SIZE = 50


@require_safe
@limited("search", "PUBLIC_SEARCH_RATE_LIMIT")
@public_page(reads=("q", PAGE_PARAM))
def search_page(request: HttpRequest) -> HttpResponse:
    """Every live entry the query finds, 50 a page (`?q=...&page=N`)."""
    query = normalise_query(request.GET.get("q", ""))
    found = results(query)
    page = paginate(request, found, SEARCH_PAGE_SIZE)
    hits = list(page.object_list)
    return _page(
        request,
        "glossary/search.html",
        {
            "query": query,
            "hits": [
                {"term": h.term, "url": path_for("glossary:entry", h.slug), "summary": h.summary}
                for h in hits
            ],
            "total": page.paginator.count,
            "fuzzy": found.fuzzy,
            "pager": pager(request, page, keep=("q",)),
        },
        title=f"Search: {query}" if query else "Search",
        description="Search the glossary.",
        path=reverse("glossary:search"),
    )


@require_safe
@public_page
@require_safe
@public_page()
def api_page(request: HttpRequest) -> HttpResponse:
    """/api/: the JSON API described for people, from the same OpenAPI document it serves."""
    doc = openapi_document()
    endpoints = []
    for route, operations in doc.get("paths", {}).items():
        for method, op in operations.items():
            endpoints.append(
                {
                    "method": method.upper(),
                    "path": route,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "parameters": [
                        {
                            "name": p.get("name", ""),
                            "where": p.get("in", ""),
                            "required": p.get("required", False),
                            "description": p.get("description", ""),
                        }
                        for p in op.get("parameters", [])
                    ],
                }
            )
    return _page(
        request,
        "glossary/api.html",
        {"endpoints": endpoints, "api_title": doc["info"]["title"]},
        title="JSON API",
        description=f"How to read {settings.PUBLIC_SITE_NAME} as JSON: every endpoint.",
        path=reverse("glossary:api"),
    )


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


# Issue 12's yardstick is "a trivial 20 KB view": about the size of a public page, so a
# page's ratio to it measures the work of rendering, not of sending bytes. Built once.
BENCH_TRIVIAL_BYTES = 20 * 1024
_TRIVIAL_LINE = b"<p>The benchmark's yardstick: a fixed page, no query, no template.</p>\n"
BENCH_TRIVIAL_BODY = (_TRIVIAL_LINE * (BENCH_TRIVIAL_BYTES // len(_TRIVIAL_LINE) + 1))[
    :BENCH_TRIVIAL_BYTES
]


def bench_trivial(request: HttpRequest) -> HttpResponse:
    """The benchmark's yardstick: 20 KB, no query, no template. Routed only when
    BENCH_TRIVIAL_VIEW."""
    return HttpResponse(BENCH_TRIVIAL_BODY, content_type="text/html; charset=utf-8")
