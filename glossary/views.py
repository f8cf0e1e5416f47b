"""Public, read-only pages of entries: the A–Z index, the entry page, search, robots.txt.

Every query starts from the visibility rule in glossary.selectors: entries are
read only through their live version. Episodes, people, organisations and tags
have their own pages (glossary.reference_views). Every page issues a fixed
number of queries, whatever the size of the glossary, and reads only the rows it
shows: the index, a letter and search read their rows, rendered at publish
(glossary.listing_rows), from the live listing's indexes (glossary.listing_index), and
fill a page shell rendered once per process (glossary.shells) instead of running
the template engine.
"""

from __future__ import annotations

import functools
import html
import itertools
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import get_script_prefix, reverse
from django.utils import dateformat, timezone
from django.views.decorators.http import require_safe

from glossary import listing_reads, selectors
from glossary.api import openapi_document
from glossary.cache import public_page
from glossary.listing_index import GROUPS
from glossary.models import EntryRedirect
from glossary.pagination import (
    PAGE_PARAM,
    num_pages,
    page_in_range,
    page_link,
    page_number,
    pager_html,
)
from glossary.paths import absolute, current_show, localise, path_for, site_name
from glossary.search import COUNT_LIMIT, marked_rows, normalise_query, results
from glossary.shells import Shell
from glossary.show_site import SHOWS_PREFIX, host_origin
from glossary.throttle import limited

RECENT_COUNT = 5
# Django's escape without its lazy-string wrapper (the same characters): pages escape a lot.
escape = html.escape


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
        site_name=site_name(),
    )
    return render(request, template, context, status=status)


INDEX_PAGE_SIZE = 200
_INDEX_DESCRIPTION = (
    "Plain explanations of the terms that come up on the show, each tied to the moment a "
    "guest said it and to the sources we checked."
)


_HOME = Shell(
    "glossary/home.html",
    ("total", "letters", "recent", "groups", "pager"),
    page_title=site_name,
    page_description=_INDEX_DESCRIPTION,
    canonical_url=lambda: absolute(path_for("glossary:home")),
)


def _plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


def _letter_anchor(initial: int) -> str:
    return "letter-other" if initial == 0 else f"letter-{GROUPS[initial].lower()}"


@require_safe
@public_page(reads=(PAGE_PARAM,))
def home(request: HttpRequest) -> HttpResponse:
    """The A–Z index, a page at a time: letters with counts, then the entries in order.

    One statement whatever the glossary's size: the letters' counts (kept at publish),
    the recently updated entries and the page's rows from the A–Z index
    (glossary.listing_index, `listing_reads.a_to_z_page`).
    """
    # The page's rows are read with the counts; whether it is a page at all is answered
    # once the counts are in, with a 404 that says which pages there are.
    asked = page_in_range(request.GET.get(PAGE_PARAM, "1")) or 1
    counts, recent, rows = listing_reads.a_to_z_page(
        recent=RECENT_COUNT, offset=(asked - 1) * INDEX_PAGE_SIZE, limit=INDEX_PAGE_SIZE
    )
    per_letter = [counts.get(i, 0) for i in range(len(GROUPS))]
    total = sum(per_letter)
    number = page_number(request, num_pages(total, INDEX_PAGE_SIZE))
    letters, seen = [], 0
    for i, letter in enumerate(GROUPS):
        count = per_letter[i]
        start_page = seen // INDEX_PAGE_SIZE + 1
        anchor = f"#{_letter_anchor(i)}"
        href = anchor if start_page == number else page_link(request, start_page) + anchor
        if count:
            label = _plural(count, "entry", "entries")
            letters.append(
                f'<li><a href="{escape(href)}"><span class="visually-hidden">Letter </span>'
                f'{letter}<small><span class="visually-hidden">, </span>{count}'
                f'<span class="visually-hidden"> {label}</span></small></a></li>'
            )
        elif letter != "#":
            letters.append(f'<li><span aria-hidden="true">{letter}<small>0</small></span></li>')
        seen += count
    groups: list[str] = []
    for group_initial, group in itertools.groupby(rows, key=lambda row: row[0]):
        anchor = _letter_anchor(group_initial)
        items = localise("".join(html for _, html in group))
        groups.append(
            f'<section class="index-group" aria-labelledby="{anchor}">\n'
            f'  <h2 id="{anchor}">{GROUPS[group_initial]}</h2>\n'
            f'  <ul class="index-list">\n    {items}\n  </ul>\n'
            "</section>"
        )
    html = _HOME.fill(
        total=f"{total} {_plural(total, 'entry', 'entries')}",
        letters="\n    ".join(letters),
        recent=_recent_html(
            tuple(recent), timezone.get_current_timezone_name(), get_script_prefix()
        ),
        groups="\n".join(groups) or "<p>No entries have been published yet.</p>",
        pager=pager_html(request, number, num_pages(total, INDEX_PAGE_SIZE)),
    )
    return HttpResponse(html)


@functools.lru_cache(maxsize=8)
def _recent_html(recent: tuple[tuple[Any, ...], ...], zone: str, prefix: str) -> str:
    """The "Recently updated" list, its days in `zone` (the current time zone's name), its
    links under the script `prefix`. Kept per process for what it was made from (the rows,
    read on every request, change only with a publish): formatting its dates cost as much
    as one of the page's statements."""
    if not recent:
        return ""
    items = []
    for term, slug, changed in recent:
        when = ""
        if changed is not None:
            day = timezone.localtime(changed)
            when = (
                f' <span class="meta">— <time datetime="{day:%Y-%m-%d}">'
                f"{dateformat.format(day, 'F j, Y')}</time></span>"
            )
        url = escape(path_for("glossary:entry", slug))
        items.append(f'<li><a href="{url}">{escape(term)}</a>{when}</li>')
    return (
        '<section class="recent" aria-labelledby="recent-heading">\n'
        '  <h2 id="recent-heading">Recently updated</h2>\n'
        f'  <ul class="plain-list">\n    {"".join(items)}\n  </ul>\n</section>'
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

_ENTRY = Shell(
    "glossary/entry.html",
    ("page_title", "page_description", "canonical_url", "head_extra", "page_html"),
)


@require_safe
@public_page
def entry(request: HttpRequest, slug: str) -> HttpResponse:
    site = current_show()
    if site is None:
        row = selectors.live_page(slug)
        if row is None:
            return _redirect_or_404(request, slug)
        term, summary, page_html, changed = row
    else:
        shown = selectors.live_page_shown(slug)
        if shown is None:
            return _redirect_or_404(request, slug)
        if shown.show_id != site.show_id:
            return _elsewhere(shown, slug)
        term, summary, page_html, changed = shown[:4]
        page_html = localise(page_html)
    modified = (
        f'<meta property="article:modified_time" content="{changed.isoformat()}">'
        if changed
        else ""
    )
    html = _ENTRY.fill(
        page_title=escape(term),
        page_description=escape(summary),
        canonical_url=escape(absolute(path_for("glossary:entry", slug))),
        head_extra=modified,
        page_html=page_html,
    )
    return HttpResponse(html)


def _elsewhere(shown: selectors.ShownPage, slug: str) -> HttpResponse:
    """An entry published on another show (or on none) answers with a temporary redirect to
    its page where it is published: links between entries of different shows, and every
    link from a person's or an episode's page, keep working. Temporary, because a later
    publish may move it."""
    entry_path = f"glossary/{slug}/"
    if shown.show_id is None:
        target = f"{settings.SITE_URL}/{entry_path}"
    elif shown.show_host:
        target = f"{host_origin(shown.show_host)}/{entry_path}"
    else:
        target = f"{settings.SITE_URL}{SHOWS_PREFIX}{shown.show_slug}/{entry_path}"
    return HttpResponseRedirect(target)


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
_SEARCH = Shell(
    "glossary/search.html",
    ("page_title", "query", "results"),
    page_description="Search the glossary.",
    canonical_url=lambda: absolute(path_for("glossary:search")),
)


@require_safe
@limited("search", "PUBLIC_SEARCH_RATE_LIMIT")
@public_page(reads=("q", PAGE_PARAM))
def search_page(request: HttpRequest) -> HttpResponse:
    """Every live entry the query finds, 50 a page (`?q=...&page=N`).

    A page reads only the rows it shows (glossary.search); the total is counted up to
    COUNT_LIMIT, and every page past it can still be reached.
    """
    query = normalise_query(request.GET.get("q", ""))
    section = ""
    if query:
        found = results(query, shows="row_html")
        number = page_number(request)
        start = (number - 1) * SEARCH_PAGE_SIZE
        hits = found[start : start + SEARCH_PAGE_SIZE + 1]  # one more: is there a next page?
        if number > 1 and not hits:
            raise Http404(f"There is no page {number} of results for this search.")
        has_next = len(hits) > SEARCH_PAGE_SIZE
        hits = hits[:SEARCH_PAGE_SIZE]
        if number == 1 and not has_next:
            total, exact = len(hits), True
        else:
            total, exact = found.count(), found.count_exact
        pages = num_pages(total, SEARCH_PAGE_SIZE) if exact else None
        if hits:
            counted = (
                f"{total} result{'' if total == 1 else 's'}"
                if exact
                else (f"More than {COUNT_LIMIT:,} results")
            )
            heading = f"{counted} for “{escape(query)}”"
        else:
            heading = f"Nothing found for “{escape(query)}”"
        fuzzy = "<p>No exact matches; these terms are spelt similarly.</p>" if found.fuzzy else ""
        pager = pager_html(request, number, pages, keep=("q",), has_next=has_next)
        rows = localise("".join(marked_rows(hits, query)))
        home = escape(path_for("glossary:home"))
        hint = (
            ""
            if hits
            else f'<p>Try a shorter word, or browse the <a href="{home}">A–Z index</a>.</p>'
        )
        section = (
            '<section aria-labelledby="results-heading">\n'
            f'  <h2 id="results-heading">{heading}</h2>\n  {fuzzy}\n'
            f'  <ol class="index-list search-results">\n    {rows}\n  </ol>\n'
            f"  {pager}\n  {hint}\n</section>"
        )
    html = _SEARCH.fill(
        page_title=escape(f"Search: {query}" if query else "Search"),
        query=escape(query),
        results=section,
    )
    return HttpResponse(html)


@require_safe
@public_page
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
        description=f"How to read {site_name()} as JSON: every endpoint.",
        path=reverse("glossary:api"),
    )


def robots_txt(request: HttpRequest) -> HttpResponse:
    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /search/",
        "Disallow: /api/",
        "",
        f"Sitemap: {absolute(reverse('glossary:sitemap'))}",
        "",
    ]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")
