"""Import or refresh a show's episodes from its podcast feed.

    import_feed SHOW URL_OR_FILE [--user USERNAME]

SHOW is the show's slug; URL_OR_FILE a file path or an http(s) URL, fetched through
the link checker's SSRF-safe client. Idempotent by guid; a field an editor corrected
is never overwritten (the difference waits in the episode admin). A bad feed stops
with the line it found the problem on, and nothing is saved; a value an episode can do
without (a bad season, number or duration, a chapter without a start) is left out and
printed as a warning naming the item and its line. Changes that entries
show are recorded as new versions credited to USERNAME (default: the system user
`feed-refresh`) and reach readers only when another editor publishes them.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import CommandError, CommandParser

from editorial import podcast_feed_import
from glossary.management.database import DatabaseCommand
from glossary.models import Episode, Show
from glossary.transcripts.podcast_feed import FeedError


class Command(DatabaseCommand):
    help = "Import or refresh a show's episodes from its RSS feed (a file or an http(s) URL)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("show", help="The show's slug, e.g. demo-show.")
        parser.add_argument("url_or_file", help="A feed file's path or an http(s) URL.")
        parser.add_argument(
            "--user",
            help="The desk user credited with the changes (default: the system user "
            f"{podcast_feed_import.SYSTEM_USERNAME!r}).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            show = Show.objects.get(slug=options["show"])
        except Show.DoesNotExist:
            known = ", ".join(Show.objects.values_list("slug", flat=True)[:20]) or "none yet"
            raise CommandError(
                f"No show with the slug {options['show']!r} (shows: {known})."
            ) from None
        if options["user"]:
            try:
                user = User.objects.get(username=options["user"])
            except User.DoesNotExist:
                raise CommandError(f"No desk user named {options['user']!r}.") from None
        else:
            user = podcast_feed_import.system_user()
        try:
            result = podcast_feed_import.import_feed(show, options["url_or_file"], user=user)
        except (podcast_feed_import.FeedImportError, FeedError) as exc:
            raise CommandError(f"{options['url_or_file']}: {exc}. Nothing was saved.") from None
        self.stdout.write(result.summary())
        for warning in result.warnings:
            self.stdout.write(f"  warning: {warning}")
        episodes = Episode.objects.in_bulk(list(result.differences))
        for episode_id, found in result.differences.items():
            name = str(episodes.get(episode_id, f"episode id {episode_id}"))
            for diff in found:
                self.stdout.write(
                    f"  {name}: {diff.label}: the feed says {diff.feed_display!r}, "
                    f"the desk has {diff.current_display!r} (take or keep it in the episode admin)"
                )
