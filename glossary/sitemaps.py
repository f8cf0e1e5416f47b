"""sitemap.xml: every public page, entries with `lastmod` = their last significant change."""

from __future__ import annotations

import datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from glossary.models import PublicRecord
from glossary.paths import path_for
from glossary.selectors import public_records, published_entries


class _Base(Sitemap[Any]):
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
        return reverse("glossary:entry", args=[item["live_version__slug"]])

    def lastmod(self, item: dict[str, Any]) -> datetime.datetime | None:
        changed: datetime.datetime | None = item["significant_change_at"]
        return changed


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


SITEMAPS = {
    "pages": StaticSitemap,
    "entries": EntrySitemap,
    "episodes": EpisodeSitemap,
    "people": PersonSitemap,
    "organisations": OrganisationSitemap,
    "tags": TagSitemap,
}
