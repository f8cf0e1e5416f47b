"""Importing a show's feed on the desk: from a file or an http(s) URL, by a person or by beat.

`import_feed(show, url_or_file, user=...)` reads the feed (a URL through the link
checker's SSRF-safe client, editorial.linkcheck.download, with its timeouts and a
`FEED_MAX_BYTES` cap), parses it (glossary.transcripts.podcast_feed: RSS 2.0, iTunes and
Podcasting 2.0) and applies it to the show's episodes in one transaction
(glossary.episode_feed.apply_feed): a bad feed raises and saves nothing.

What a show's feed brings (the admin's import, "Take the feed's", a transcript the feed
names, the scheduled refresh `refresh_show` run by `editorial.tasks.refresh_feeds`) is
credited to whoever set the show's feed URL (`Show.feed_url_set_by`, `credited_for`):
choosing the feed is choosing its words, so the person who chose it is an author of
what it brings and another editor approves it. When nobody on the desk set the URL (a
fixture, a shell), whoever asked is credited, and the scheduled refresh the inactive
system user `feed-refresh` ("Feed refresh (automatic)"), who can never sign in. The
`import_feed` command reads the file or URL it is given and credits `--user`. See
docs/feeds.md.
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from editorial.linkcheck.download import DownloadError, download
from glossary.document import Actor
from glossary.episode_feed import FeedImport, apply_feed
from glossary.models import Show
from glossary.transcripts.podcast_feed import FeedError, parse_feed

logger = logging.getLogger(__name__)

SYSTEM_USERNAME = "feed-refresh"
ACCEPT = "application/rss+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"


class FeedImportError(Exception):
    """The feed could not be read (a missing file, a refused or failing URL); nothing saved."""


def is_url(text: str) -> bool:
    return text.strip().lower().startswith(("http://", "https://"))


def read_feed(url_or_file: str) -> tuple[bytes, str]:
    """The feed's bytes and where they came from. A path is a local file; `http(s)://` a URL
    fetched through the SSRF guard. Raises FeedImportError saying why not."""
    cap = settings.FEED_MAX_BYTES
    text = url_or_file.strip()
    if is_url(text):
        try:
            fetched = download(text, max_bytes=cap, accept=ACCEPT)
        except DownloadError as exc:
            raise FeedImportError(str(exc)) from None
        return fetched.body, fetched.url
    if "://" in text:
        raise FeedImportError(
            f"{text!r}: give a file path or an http:// or https:// address; "
            "other schemes are never fetched"
        )
    path = Path(text)
    try:
        size = path.stat().st_size
        if size > cap:
            raise FeedImportError(f"{path} is {size:,} bytes; feeds are read up to {cap:,}")
        return path.read_bytes(), str(path)
    except OSError as exc:
        raise FeedImportError(f"{path}: {exc.strerror or exc}") from None


def import_feed(show: Show, url_or_file: str, *, user: Actor) -> FeedImport:
    """Read and apply a feed; raises FeedImportError or FeedError (with the line) and then
    saves nothing."""
    data, where = read_feed(url_or_file)
    feed = parse_feed(data)
    with transaction.atomic():
        result = apply_feed(show, feed, user=user, source=where)
        Show.objects.filter(pk=show.pk).update(
            feed_refreshed_at=timezone.now(),
            feed_error="",
            feed_warnings="\n".join(result.warnings),
        )
    return result


def system_user() -> User:
    """The user a refresh nobody on the desk asked for is credited to: inactive, no password,
    clearly named."""
    user, created = User.objects.get_or_create(
        username=SYSTEM_USERNAME,
        defaults={"first_name": "Feed refresh", "last_name": "(automatic)", "is_active": False},
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def credited_for(show: Show, user: Actor) -> Actor:
    """Who a change brought from `show`'s feed (an import, "Take the feed's", a transcript
    the feed names) is credited to: whoever set the feed URL, since choosing the feed
    chose its words; `user`, who asked for it, when nobody on the desk set it."""
    return show.feed_url_set_by or user


def refresh_user(show: Show) -> Actor:
    """Who the scheduled refresh of `show` is credited to: `credited_for` with nobody
    asking, so the system user when nobody on the desk set the feed URL."""
    return credited_for(show, None) or system_user()


def failure_message(exc: Exception) -> str:
    """What a failed import says: the reason, for a feed that is bad or cannot be read;
    for anything else (a fault of ours, logged with its traceback) its kind, plainly."""
    if isinstance(exc, FeedImportError | FeedError):
        return str(exc)
    return (
        f"the import stopped on an unexpected error ({type(exc).__name__}: {exc}); the "
        "server's log has the details"
    )


def record_failure(show: Show, exc: Exception) -> str:
    """Keep why `show`'s import failed on the show (`feed_error`, shown on its page) and in
    the log; return the message. Nothing else was saved: the import is one transaction."""
    message = failure_message(exc)
    Show.objects.filter(pk=show.pk).update(feed_error=message[:2000])
    if isinstance(exc, FeedImportError | FeedError):
        logger.warning("feed import of %s failed: %s", show.slug, exc)
    else:
        logger.error("feed import of %s failed", show.slug, exc_info=exc)
    return message


def refresh_show(show_id: int) -> str:
    """Import one show's feed from its `feed_url`, credited to `refresh_user`. Never raises
    for the feed's sake: whatever stops the import, a bad or unreachable feed or a fault of
    ours, is kept on the show (`feed_error`) and logged, since nobody watches this run."""
    show = Show.objects.select_related("feed_url_set_by").get(pk=show_id)
    if not show.feed_url:
        return f"{show.name}: no feed URL; not refreshed."
    try:
        result = import_feed(show, show.feed_url, user=refresh_user(show))
    except Exception as exc:  # noqa: BLE001  (every failure lands in feed_error)
        return f"{show.name}: {record_failure(show, exc)}"
    logger.info("feed refresh: %s", result.summary())
    for warning in result.warnings:
        logger.warning("feed refresh of %s: %s", show.slug, warning)
    return result.summary()


def shows_to_refresh() -> list[int]:
    """The shows the scheduled refresh reads: those with a feed URL."""
    return list(Show.objects.exclude(feed_url="").order_by("pk").values_list("pk", flat=True))
