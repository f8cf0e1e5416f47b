"""Episode transcripts in the database, and quotes checked against them.

The pure work (reading a file, finding a quote) is glossary.transcripts; this module
loads what is stored and checks quotes against it (glossary.document freezes the
checks into each version). Importing is glossary.transcript_imports.

`check_entries` verifies every quote, and every phrase an episode reference quotes,
of some entries at a fixed number of queries: parts, speakers and the segments of
every transcript involved, each read once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet

from glossary.models import (
    Entry,
    Episode,
    EpisodeReference,
    Quote,
    Transcript,
    TranscriptSegment,
)
from glossary.transcripts.parse import Segment, TranscriptFormat
from glossary.transcripts.parse import Transcript as ParsedTranscript
from glossary.transcripts.quote_verification import (
    Outcome,
    Verdict,
    passage_around,
    quoted_phrases,
    verify,
)

# How much of the transcript a reader can open around a quote: from the segment being
# spoken at the quote's time to this many seconds past its matched passage.
PASSAGE_SECONDS = 30


# Who imports: a signed-in person, or nobody (the demo loader, a script).
Actor = User | AnonymousUser | None


class UnknownEpisode(LookupError):
    """No episode has that path or id; the message says what was looked for."""


_PATH = re.compile(r"^/?(?:episodes/)?([\w-]+)/(\d+)/(\d+)/?$")


def find_episode(identifier: str) -> Episode:
    """The episode a person names: its public path without `/episodes/` (`demo-show/3/44`)
    or its numeric id."""
    text = identifier.strip()
    if text.isascii() and text.isdigit():
        episode = Episode.objects.filter(pk=int(text)).select_related("show").first()
        if episode is None:
            raise UnknownEpisode(f"No episode has the id {text}.")
        return episode
    match = _PATH.match(text)
    if match is None:
        raise UnknownEpisode(
            f"“{identifier}” names no episode: give its path as show/season/number "
            "(e.g. demo-show/3/44) or its id."
        )
    show, season, number = match.group(1), int(match.group(2)), int(match.group(3))
    episode = (
        Episode.objects.filter(show__slug=show, season=season, number=number)
        .select_related("show")
        .first()
    )
    if episode is None:
        raise UnknownEpisode(f"No episode at {show}/{season}/{number}.")
    return episode


def episode_path(episode: Episode) -> str:
    """The path form people and `verify_quotes --json` name an episode by: `demo-show/3/44`."""
    return f"{episode.show.slug}/{episode.season}/{episode.number}"


def load_transcripts(episode_ids: Iterable[int]) -> dict[int, ParsedTranscript]:
    """The stored transcripts of these episodes, by episode id, in two queries."""
    ids = set(episode_ids)
    if not ids:
        return {}
    return _load(Transcript.objects.filter(episode_id__in=ids))


def _load(transcripts: QuerySet[Transcript]) -> dict[int, ParsedTranscript]:
    """`transcripts` read with their segments: two queries, however many there are (a
    sub-select, so an empty selection costs the same)."""
    stored = {
        pk: (episode_id, format)
        for pk, episode_id, format in transcripts.values_list("pk", "episode_id", "format")
    }
    segments: dict[int, list[Segment]] = {pk: [] for pk in stored}
    for transcript_id, start, end, speaker, text in (
        TranscriptSegment.objects.filter(transcript__in=transcripts.values("pk"))
        .order_by("transcript_id", "order")
        .values_list("transcript_id", "start", "end", "speaker", "text")
        .iterator(chunk_size=5000)
    ):
        if transcript_id in segments:
            segments[transcript_id].append(Segment(start, end, speaker, text))
    return {
        episode_id: ParsedTranscript(TranscriptFormat(format), tuple(segments[pk]))
        for pk, (episode_id, format) in stored.items()
    }


def tolerance() -> int:
    """How far from its stored time a quote may be found and still `match`, in seconds."""
    return int(settings.TRANSCRIPT_TOLERANCE_SECONDS)


@dataclass(frozen=True)
class QuoteCheck:
    """One quote, or one phrase an episode reference quotes, checked against its transcript.

    `quote` / `reference` is the row it came from; `index` is the quote's or
    reference's position among its entry's (0-based); `phrase` is which quoted phrase
    of the reference.
    """

    entry: Entry
    episode: Episode
    kind: str  # "quote" or "reference"
    text: str
    speaker: str | None
    verdict: Verdict
    quote: Quote | None = None
    reference: EpisodeReference | None = None

    def as_json(self) -> dict[str, object]:
        """The object `verify_quotes --json` prints: its fields are a contract."""
        return {
            "entry": self.entry.slug,
            "episode": episode_path(self.episode),
            "kind": self.kind,
            "text": self.text,
            "stored_at": self.verdict.stored_at,
            "found_at": self.verdict.found_at,
            "verdict": str(self.verdict.verdict),
            "speaker_agrees": self.verdict.speaker_agrees,
            "score": round(self.verdict.score, 1),
        }


def check_quote(
    text: str, stored_at: int, speaker: str | None, transcript: ParsedTranscript | None
) -> Verdict:
    return verify(text, stored_at, transcript, speaker=speaker, tolerance=tolerance())


def check_parts(
    quotes: Iterable[Quote],
    references: Iterable[EpisodeReference],
    transcripts: dict[int, ParsedTranscript],
) -> list[QuoteCheck]:
    """Check quotes and references already read (with `entry`, `episode__show`, `speaker`)
    against transcripts already loaded. No queries."""
    out: list[QuoteCheck] = []
    for quote in quotes:
        name = quote.speaker.name if quote.speaker_id else None
        verdict = check_quote(quote.text, quote.start, name, transcripts.get(quote.episode_id))
        out.append(
            QuoteCheck(quote.entry, quote.episode, "quote", quote.text, name, verdict, quote=quote)
        )
    for reference in references:
        name = reference.speaker.name if reference.speaker is not None else None
        for phrase in quoted_phrases(reference.text):
            verdict = check_quote(phrase, reference.at, name, transcripts.get(reference.episode_id))
            out.append(
                QuoteCheck(
                    reference.entry,
                    reference.episode,
                    "reference",
                    phrase,
                    name,
                    verdict,
                    reference=reference,
                )
            )
    return out


def check_entries(entries: QuerySet[Entry]) -> list[QuoteCheck]:
    """Every quote and quoting reference of `entries`' working copies, checked, in entry
    order. Four queries whatever the number of entries, quotes or transcripts."""
    ids = entries.values("pk")
    quotes = list(
        Quote.objects.filter(entry__in=ids)
        .select_related("entry", "episode__show", "speaker")
        .order_by("entry__slug", "order", "pk")
    )
    quoting = EpisodeReference.objects.filter(entry__in=ids, text__regex=r"[“\"]")
    references = list(
        quoting.select_related("entry", "episode__show", "speaker").order_by(
            "entry__slug", "order", "pk"
        )
    )
    transcripts = _load(
        Transcript.objects.filter(
            Q(episode__in=Quote.objects.filter(entry__in=ids).values("episode_id"))
            | Q(episode__in=quoting.values("episode_id"))
        )
    )
    checks = check_parts(quotes, references, transcripts)
    checks.sort(key=lambda c: (c.entry.slug, c.kind != "quote"))
    return checks


def reader_passage(transcript: ParsedTranscript, verdict: Verdict) -> str:
    """The verbatim transcript a reader opens beside a verified quote: from where it was
    found, `PASSAGE_SECONDS` on, each segment with its speaker."""
    if verdict.found_at is None or verdict.verdict not in (Outcome.MATCH, Outcome.ELSEWHERE):
        return ""
    passage = passage_around(transcript, verdict.found_at, PASSAGE_SECONDS)
    return "\n".join(
        f"{segment.speaker}: {segment.text}" if segment.speaker else segment.text
        for segment in passage.segments
    )
