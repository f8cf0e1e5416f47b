"""Atom feed of new and updated entries.

`updated` is the entry's last significant change: a typo fix published as
not material does not put an entry back at the top of readers' feeds.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.db.models import F, QuerySet
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from glossary.models import Entry, EntryVersion
from glossary.selectors import published_entries

FEED_SIZE = 50


def _live(entry: Entry) -> EntryVersion:
    version = entry.live_version
    assert version is not None  # noqa: S101 - the feed lists published entries only
    return version


class EntryFeed(Feed[Entry, None]):
    feed_type = Atom1Feed
    description_template = None

    def title(self) -> str:
        return settings.PUBLIC_SITE_NAME

    def subtitle(self) -> str:
        return "New and updated glossary entries."

    # Absolute from SITE_URL, like canonical URLs, whatever host the request came to.
    def link(self) -> str:
        return f"{settings.SITE_URL}{reverse('glossary:home')}"

    def feed_url(self) -> str:
        return f"{settings.SITE_URL}{reverse('glossary:feed')}"

    def feed_guid(self) -> str:
        return f"{settings.SITE_URL}{reverse('glossary:feed')}"

    def items(self) -> QuerySet[Entry]:
        # Only what the feed shows: not the rendered page, the API answer or the
        # whole document of each version (the tags alone come out of it).
        return (
            published_entries()
            .select_related("live_version")
            .only(
                "first_published_at",
                "significant_change_at",
                "live_version__term",
                "live_version__slug",
                "live_version__summary",
            )
            .annotate(live_tags=F("live_version__data__tags"))
            .order_by("-significant_change_at", "term")[:FEED_SIZE]
        )

    def item_title(self, item: Entry) -> str:
        return _live(item).term

    def item_description(self, item: Entry) -> str:
        return _live(item).summary

    def item_link(self, item: Entry) -> str:
        return f"{settings.SITE_URL}{reverse('glossary:entry', args=[_live(item).slug])}"

    def item_guid(self, item: Entry) -> str:
        # Stable across slug changes: the entry's id, not its address.
        return f"{settings.SITE_URL}/entries/{item.pk}"

    item_guid_is_permalink = False

    def item_pubdate(self, item: Entry) -> datetime.datetime | None:
        return item.first_published_at

    def item_updateddate(self, item: Entry) -> datetime.datetime | None:
        return item.significant_change_at

    def item_categories(self, item: Entry) -> list[str]:
        tags: list[dict[str, Any]] = getattr(item, "live_tags", None) or []
        return [tag["name"] for tag in tags]
