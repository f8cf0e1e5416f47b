"""The sitemap: an index at /sitemap.xml of sections a page at a time, however large the site.

`/sitemap.xml` is a sitemap index (Django's `sitemap_index.xml`) naming every
page of every section: `/sitemap-<section>.xml`, then `?p=2`, `?p=3`... with
`SITEMAP_PAGE_SIZE` addresses each, from Django's `Sitemap` classes below but
written without the template engine (`sitemap_section`: 500 addresses through
Django's template cost 25 times the page's query). Entries carry `lastmod` =
their last significant change; each entry's `<url>` is written at publish
(glossary.listing_rows) and a page of them is read from the live listing's A–Z
index (glossary.listing_index), counted from the kept total. Absolute addresses come
from settings.SITE_URL, whatever host the request came to.
"""

from __future__ import annotations

import datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps.views import SitemapIndexItem
from django.core.paginator import EmptyPage, PageNotAnInteger
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from glossary.listing_reads import joined_a_to_z, listing_count
from glossary.models import ListingCount, PublicRecord
from glossary.pagination import num_pages, page_in_range
from glossary.paths import absolute, current_show, localise, path_for
from glossary.selectors import public_records, published_entries

# Addresses per sitemap page: small enough that a page costs no more than a public list
# page to serve (bench/web), far under the protocol's 50,000.
SITEMAP_PAGE_SIZE = 500


class _Base(Sitemap[Any]):
    limit = SITEMAP_PAGE_SIZE

    # Absolute URLs come from settings.SITE_URL, not the Sites framework.
    def get_domain(self, site: Any = None) -> str:
        return urlsplit(settings.SITE_URL).netloc

    def get_protocol(self, protocol: str | None = None) -> str:
        return urlsplit(settings.SITE_URL).scheme


class StaticSitemap(_Base):
    def items(self) -> list[str]:
        return [
            "glossary:home",
            "glossary:tags",
            "glossary:episodes",
            "glossary:people",
            "glossary:organisations",
        ]

    def location(self, item: str) -> str:
        return reverse(item)


class EntrySitemap(_Base):
    def items(self) -> Any:
        return (
            published_entries()
            .order_by("live_version__term")
            .values("live_version__slug", "significant_change_at")
        )

    def location(self, item: dict[str, Any]) -> str:
        return path_for("glossary:entry", item["live_version__slug"])

    def lastmod(self, item: dict[str, Any]) -> datetime.datetime | None:
        changed: datetime.datetime | None = item["significant_change_at"]
        return changed

    def get_latest_lastmod(self) -> datetime.datetime | None:
        # One aggregate, not every item (Django's default reads them all).
        entries = published_entries()
        site = current_show()
        if site is not None:
            # The show's entries as published (their live version's show).
            entries = entries.filter(live_version__show_id=site.show_id)
        latest: datetime.datetime | None = entries.aggregate(latest=Max("significant_change_at"))[
            "latest"
        ]
        return latest


class _RecordSitemap(_Base):
    """Every public page of one kind of record (glossary.records)."""

    kind: str = ""
    route: str = ""

    def items(self) -> Any:
        return public_records(self.kind).only("slug").order_by("slug")

    def location(self, item: PublicRecord) -> str:
        return path_for(self.route, *item.slug.split("/"))


class EpisodeSitemap(_RecordSitemap):
    kind, route = PublicRecord.Kind.EPISODE, "glossary:episode"


class PersonSitemap(_RecordSitemap):
    kind, route = PublicRecord.Kind.PERSON, "glossary:person"


class OrganisationSitemap(_RecordSitemap):
    kind, route = PublicRecord.Kind.ORGANISATION, "glossary:organisation"


class TagSitemap(_RecordSitemap):
    kind, route = PublicRecord.Kind.TAG, "glossary:tag"


SITEMAPS: dict[str, type[Sitemap[Any]]] = {
    "pages": StaticSitemap,
    "entries": EntrySitemap,
    "episodes": EpisodeSitemap,
    "people": PersonSitemap,
    "organisations": OrganisationSitemap,
    "tags": TagSitemap,
}


def _num_pages(section: str, site: Sitemap[Any]) -> int:
    if section == "entries":
        total = listing_count(ListingCount.TOTAL, 0)
        return num_pages(total, SITEMAP_PAGE_SIZE)
    return site.paginator.num_pages


def _sections() -> dict[str, type[Sitemap[Any]]]:
    """The sections of this site's sitemap: on a show's site (docs/show-sites.md) its
    entries alone, the pages that are its own; episodes, people and organisations are the
    network's, which lists them."""
    if current_show() is not None:
        return {"entries": SITEMAPS["entries"]}
    return SITEMAPS


def sitemap_index(request: HttpRequest) -> TemplateResponse:
    """Every page of every section, as Django's sitemap index view lists them, from SITE_URL.

    (Django's own view takes the host from the request or the Sites framework.)
    """
    items = []
    for section, cls in _sections().items():
        site = cls()
        url = absolute(reverse("glossary:sitemap-section", kwargs={"section": section}))
        lastmod = site.get_latest_lastmod()
        # (django-stubs types SitemapIndexItem.last_mod as a bool; Django passes the date.)
        items.append(SitemapIndexItem(url, lastmod))  # type: ignore[arg-type]
        items += [
            SitemapIndexItem(f"{url}?p={page}", lastmod)  # type: ignore[arg-type]
            for page in range(2, _num_pages(section, site) + 1)
        ]
    return TemplateResponse(
        request, "sitemap_index.xml", {"sitemaps": items}, content_type="application/xml"
    )


_URLSET = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)


def sitemap_section(request: HttpRequest, section: str) -> HttpResponse:
    """One page (`?p=N`) of one section's addresses, as Django's sitemap.xml lists them."""
    if section not in _sections():
        raise Http404(f"There is no sitemap section {section!r}.")
    if section == "entries":
        return _entries_page(request)
    site = SITEMAPS[section]()
    raw = request.GET.get("p", "1")
    try:
        page = site.paginator.page(raw)
    except (EmptyPage, PageNotAnInteger):
        raise Http404(
            f"There is no page {raw!r} here; pages run from 1 to {site.paginator.num_pages}."
        ) from None
    lastmod = getattr(site, "lastmod", None)
    parts = [_URLSET]
    for item in page.object_list:
        parts.append(f"  <url><loc>{escape(absolute(site.location(item)))}</loc>")
        changed = lastmod(item) if lastmod is not None else None
        if changed is not None:
            day = timezone.localtime(changed, timezone.get_default_timezone()).date()
            parts.append(f"<lastmod>{day.isoformat()}</lastmod>")
        parts.append("</url>\n")
    parts.append("</urlset>\n")
    return HttpResponse("".join(parts), content_type="application/xml")


def _entries_page(request: HttpRequest) -> HttpResponse:
    """One page of entries, their `<url>`s written at publish, in A–Z order: one statement,
    read from the page's first entry on (a page past the end finds none, and only then is
    the kept total read, to say which pages there are)."""
    raw = request.GET.get("p", "1")
    number = page_in_range(raw)
    urls: str | None = None
    if number >= 1:
        urls = joined_a_to_z(
            "l.sitemap_url", offset=(number - 1) * SITEMAP_PAGE_SIZE, limit=SITEMAP_PAGE_SIZE
        )
    if urls is None and number != 1:
        pages = num_pages(listing_count(ListingCount.TOTAL, 0), SITEMAP_PAGE_SIZE)
        raise Http404(f"There is no page {raw!r} here; pages run from 1 to {pages}.")
    body = f"{_URLSET}{localise(urls or '')}</urlset>\n"
    return HttpResponse(body, content_type="application/xml")
