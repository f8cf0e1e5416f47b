"""Episodes from a podcast's feed, transcripts, and quotes checked against what was said.

Pure functions over bytes and frozen dataclasses: no models, no database, no network.
The callers (import commands, the admin, publish checks) fetch, store and show.

- `podcast_feed.parse_feed(bytes) -> Feed`: RSS 2.0 with the iTunes and Podcasting 2.0 namespaces.
- `parse.parse_transcript(bytes | str) -> Transcript`: WebVTT, SRT or Podcasting 2.0 JSON.
- `quote_verification.verify(quote, stored_at, transcript, speaker=..., tolerance=10)
  -> Verdict`, `quote_verification.suggest`, `quote_verification.passage_around`,
  `quote_verification.quoted_phrases`, `quote_verification.find`.
- `chapters.chapters_json`, `chapters.soundbites`: Podcasting 2.0 output.

Import from the modules (`from glossary.transcripts.quote_verification import verify`);
the package re-exports nothing, so `glossary.transcripts.quote_verification` always names
the module.
"""
