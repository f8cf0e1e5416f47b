"""Atom feed of new and updated entries: the 50 most recently changed, newest first.

`updated` is the entry's last significant change: a typo fix published as
not material does not put an entry back at the top of readers' feeds. The feed's
`author` is the glossary itself (RFC 4287 wants one on the feed or on every entry;
entries are the desk's work, never one writer's byline). Each
entry's `<entry>` is written at publish by Django's own Atom1Feed
(glossary.listing_rows); a request reads the fifty newest from the top of an index
and writes them inside the feed's head, without building the items again.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.feedgenerator import Atom1Feed
from django.utils.http import http_date
from django.utils.translation import get_language
from django.utils.xmlutils import SimplerXMLGenerator

from glossary import listing_reads
from glossary.paths import absolute, localise, path_for, site_name

FEED_SIZE = 50


class _WrittenFeed(Atom1Feed):
    """Django's Atom feed around entries it wrote when they were published."""

    def __init__(self, entries: list[str], latest: datetime.datetime | None, **kwargs: Any):
        super().__init__(**kwargs)
        self._entries, self._latest = entries, latest

    def latest_post_date(self) -> datetime.datetime:
        return self._latest or super().latest_post_date()

    def write_items(self, handler: SimplerXMLGenerator) -> None:
        for entry in self._entries:
            handler.ignorableWhitespace(entry)  # written by Atom1Feed's own write_items


def entry_feed(request: HttpRequest) -> HttpResponse:
    # Only the newest entry's time is the feed's: the others' are not read.
    rows = listing_reads.newest_listings("l.feed_entry", limit=FEED_SIZE, times="first")
    feed_url = absolute(path_for("glossary:feed"))
    feed = _WrittenFeed(
        [localise(entry) for entry, _ in rows],
        rows[0][1] if rows else None,
        title=site_name(),
        subtitle="New and updated glossary entries.",
        # Absolute from SITE_URL, like canonical URLs, whatever host the request came to.
        link=absolute(path_for("glossary:home")),
        description=None,
        language=get_language(),
        feed_url=feed_url,
        feed_guid=feed_url,
        author_name=site_name(),
        author_link=absolute(path_for("glossary:home")),
    )
    # Written into a string and handed over whole: written into the response, each of
    # the writer's hundred small writes was a copy of its own.
    response = HttpResponse(feed.writeString("utf-8"), content_type=feed.content_type)
    # As Django's syndication view says it, for conditional GETs.
    response.headers["Last-Modified"] = http_date(feed.latest_post_date().timestamp())
    return response
