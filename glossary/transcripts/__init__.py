"""Episodes from a podcast's feed, transcripts, and quotes checked against what was said.

Pure functions over bytes and frozen dataclasses: no models, no database, no network.
The callers (import commands, the admin, publish checks) fetch, store and show.

- `feed.parse_feed(bytes) -> Feed`: RSS 2.0 with the iTunes and Podcasting 2.0 namespaces.
- `parse.parse_transcript(bytes | str) -> Transcript`: WebVTT, SRT or Podcasting 2.0 JSON.
- `verify.verify(quote, stored_at, transcript, speaker=..., tolerance=10) -> Verdict`,
  `verify.suggest`, `verify.passage_around`, `verify.quoted_phrases`.
- `chapters.chapters_json`, `chapters.soundbites`: Podcasting 2.0 output.
"""

from glossary.transcripts.chapters import Chapter, chapters_json, soundbites
from glossary.transcripts.feed import Feed, FeedError, FeedItem, parse_feed
from glossary.transcripts.parse import Segment, Transcript, TranscriptError, parse_transcript
from glossary.transcripts.verify import (
    Match,
    Outcome,
    Passage,
    Suggestion,
    Verdict,
    find,
    passage_around,
    quoted_phrases,
    speaker_agrees,
    suggest,
    verify,
)

__all__ = [
    "Chapter",
    "Feed",
    "FeedError",
    "FeedItem",
    "Match",
    "Outcome",
    "Passage",
    "Segment",
    "Suggestion",
    "Transcript",
    "TranscriptError",
    "Verdict",
    "chapters_json",
    "find",
    "parse_feed",
    "parse_transcript",
    "passage_around",
    "quoted_phrases",
    "soundbites",
    "speaker_agrees",
    "suggest",
    "verify",
]
