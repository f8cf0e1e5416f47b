"""Importing an episode's transcript: the one way a transcript gets into the database.

`import_transcript` reads the whole file before it touches the database, and replaces
the episode's transcript in one transaction, so a broken file changes nothing and the
old transcript is never half replaced. Every door uses it: `manage.py
import_transcript`, the episode admin's upload, `editorial.transcripts.fetch_transcript`
and the demo.

What the reading skipped or guessed (glossary.transcripts.parse), and cues that run past
the episode's end when its duration is known, are kept on the transcript as warnings,
each naming its line, for every door to show.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from glossary import publishing
from glossary.episode_transcripts import Actor
from glossary.models import Episode, PublicRecord, Transcript, TranscriptSegment
from glossary.timestamps import format_timestamp
from glossary.transcripts.parse import Transcript as ParsedTranscript
from glossary.transcripts.parse import TranscriptError, parse_transcript

# Segments are written in batches of this many rows.
_BATCH = 1000
_SPEAKER_CHARS = TranscriptSegment._meta.get_field("speaker").max_length or 200


def import_transcript(
    episode: Episode, content: bytes | str, *, origin: str, user: Actor = None
) -> Transcript:
    """Read `content` and make it `episode`'s transcript, replacing any before it.

    Raises `TranscriptError` (naming the line) before anything is written; a file
    larger than `TRANSCRIPT_MAX_BYTES` is refused unread.
    """
    size = len(content.encode() if isinstance(content, str) else content)
    limit = settings.TRANSCRIPT_MAX_BYTES
    if size > limit:
        raise TranscriptError(f"the file is {size:,} bytes; transcripts are limited to {limit:,}")
    parsed = parse_transcript(content)
    if not parsed:
        raise TranscriptError("the transcript has no spoken text")
    warnings = [*parsed.warnings, *_past_the_end(parsed, episode)]
    who = user if isinstance(user, User) and user.is_authenticated else None
    with transaction.atomic():
        # Lock the episode so two imports of the same episode cannot interleave.
        Episode.objects.select_for_update().filter(pk=episode.pk).first()
        Transcript.objects.filter(episode=episode).delete()
        stored = Transcript.objects.create(
            episode=episode,
            format=str(parsed.format),
            origin=origin[:2000],
            imported_at=timezone.now(),
            imported_by=who,
            segment_count=len(parsed.segments),
            warnings=warnings,
        )
        rows = (
            TranscriptSegment(
                transcript=stored,
                order=number,
                start=segment.start,
                end=segment.end,
                speaker=segment.speaker[:_SPEAKER_CHARS],
                text=segment.text,
            )
            for number, segment in enumerate(parsed.segments)
        )
        TranscriptSegment.objects.bulk_create(rows, batch_size=_BATCH)
        # Entries quoting the episode check their quotes against it: each whose check
        # changes gets a version credited to the importer, published by someone else.
        publishing.record_reference_change(
            PublicRecord.Kind.EPISODE,
            [episode.pk],
            user=who,
            what=f"Transcript of episode {episode.number} imported from {origin[:200]}.",
        )
    return stored


def _past_the_end(parsed: ParsedTranscript, episode: Episode) -> list[str]:
    """A warning naming the first cue that runs past the episode's end, when its duration is
    known: the transcript of another episode, or a duration typed wrong. A second is allowed
    for the duration's rounding."""
    if episode.duration is None:
        return []
    end = episode.duration + 1
    past = [segment for segment in parsed.segments if segment.end > end]
    if not past:
        return []
    first = past[0]
    what = f"line {first.line}: the cue there" if first.line else "a segment"
    others = f" (and {len(past) - 1:,} more after it)" if len(past) > 1 else ""
    return [
        f"{what} ends at {format_timestamp(int(first.end))}, past the episode's end "
        f"({format_timestamp(episode.duration)}){others}; is this the episode's transcript, "
        "and is its duration right?"
    ]
