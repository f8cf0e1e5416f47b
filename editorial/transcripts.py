"""Transcripts on the desk: fetching the one a feed names.

`fetch_transcript(episode, url)` downloads through the link checker's guarded door
(editorial.linkcheck.download: SSRF guard, timeouts, byte cap) and imports what it
gets with glossary.episode_transcripts.import_transcript, so a broken file, like a
failed download, changes nothing.
"""

from __future__ import annotations

from django.conf import settings

from editorial.linkcheck.download import DownloadError, download
from glossary.episode_transcripts import Actor
from glossary.models import Episode, Transcript
from glossary.transcript_imports import import_transcript
from glossary.transcripts.parse import TranscriptError


class TranscriptFetchError(Exception):
    """The transcript could not be fetched or read; the message names the URL and why."""


def fetch_transcript(episode: Episode, url: str, *, user: Actor = None) -> Transcript:
    """Fetch the transcript at `url` and make it `episode`'s. Raises TranscriptFetchError;
    on any error the episode keeps the transcript it had."""
    try:
        content = download(url, max_bytes=settings.TRANSCRIPT_MAX_BYTES).body
    except DownloadError as exc:
        raise TranscriptFetchError(str(exc)) from None
    try:
        return import_transcript(episode, content, origin=url, user=user)
    except TranscriptError as exc:
        raise TranscriptFetchError(f"{url}: {exc}") from None
