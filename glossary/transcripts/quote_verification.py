"""Check a quote against what was said: where in the transcript, by whom, how closely.

How a quote is found
--------------------
Both the quote and the transcript are reduced to *content words*: case folded,
accents, punctuation and apostrophes dropped (so “ ” ‘ ’ and " ' are all the same),
hyphenated words split, the filler words in `FILLERS` and `FILLER_PAIRS` removed and a
word or phrase of up to three words said twice in a row kept once ("in the, uh, in the
hardware" → "in the hardware"). Both sides lose the same words, so removing "so" or
"right" where they carry meaning costs nothing: the quote loses them too.

The transcript's content words are indexed once per `Transcript` (each pair of
consecutive words → where it was said) and scored with RapidFuzz's `partial_ratio`: the
best alignment of the quote inside a window of the transcript, 0-100, character by
character, so a mis-transcribed word costs a little rather than everything. A quote is
first aligned against the segments around its stored time; 95 or more there settles it
(nothing elsewhere could beat it by `NEAR_TIE`). Otherwise the quote's rarest word pairs
vote for where it would start and the best few windows are aligned. Only when no window
reaches the threshold is the whole transcript scored, so "not found" is always the result
of an exhaustive search, never of the shortcut. bench/transcripts/ measures it.

The threshold
-------------
A score says how sure we are *where* the quote was said; how faithful its wording is, the
verbatim passage beside it shows. Chance alignments score higher the shorter the text, so
the threshold depends on the number of content words (`THRESHOLDS`): 95 up to five words,
90 for six to nine, 80 from ten.

Measured with `bench/transcripts/calibrate.py`, 300 quotes a row: 12,749 words of prose
from the Vim user manual (chapters 1-29) read as one transcript, and chapters 30-45, on the
same subject but never "said" in it, as the text that must not be found:

===========  =========================  ======================  =========================
content      never said:                exact but two words     one word dropped / one
words        95th percentile / max      misspelt: minimum       replaced: median
===========  =========================  ======================  =========================
3-5          88.9 / 93.8                82.4 (61% reach 95)     83.3 / 67.9
6-9          75.7 / 95.0 (1 in 300)     84.4 (99% reach 90)     85.2 / 79.5
10-15        66.7 / 75.4                89.7                    91.7 / 87.0
16-25        60.5 / 73.3                96.0                    95.1 / 92.0
26-40        57.7 / 65.8                97.9                    97.1 / 94.9
===========  =========================  ======================  =========================

Exact quotes, fillers removed or not, score 100 (a filler pair cut in half at the
quote's edge, "if you | know", costs a point or two). On the demo transcripts
(tests/transcripts/test_verify_demo.py pins these): the seed's quotes 100; quote 1 with
"coherent" misheard as "inherent" 98.0; with its last clause cut and a word changed 87.7;
paraphrased ("Run like a single huge cluster ...") 72.1; sentences on the same subject
never said 42-54. Against the benchmark's generated transcript, a 150-word vocabulary
recombined for two hours (the worst case), never-said text of ten to sixteen words
reaches 79.8, just under 80.

Timing
------
`found_at` is the start, in whole seconds rounded down, of the segment where the match
begins: a transcript knows no finer than its segments, and a link that starts a second
early is better than one that starts mid-word. A stored timestamp agrees (`match`) when
it falls within `tolerance` seconds of that segment's span, so a quote in the middle of a
long segment is not reported as moved.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from rapidfuzz import fuzz

from glossary.timestamps import format_timestamp
from glossary.transcripts.parse import Segment, Transcript

FILLERS = frozenset(
    {"um", "umm", "uh", "uhh", "uhm", "erm", "er", "ah", "hmm", "mm"} | {"like", "so", "right"}
)
FILLER_PAIRS = frozenset({("you", "know"), ("i", "mean")})

# (at least this many content words, the score a match needs), longest first.
THRESHOLDS = ((10, 80.0), (6, 90.0), (0, 95.0))
# A quote found at the stored time wins over a better score elsewhere by less than this:
# a line said twice (a host repeating a guest) is a match where the editor placed it.
NEAR_TIE = 5.0

_NO_APOSTROPHES = str.maketrans("", "", "'’‘ʼ")


class Outcome(StrEnum):
    MATCH = "match"
    ELSEWHERE = "elsewhere"
    NOT_FOUND = "not_found"
    NO_TRANSCRIPT = "no_transcript"


@dataclass(frozen=True)
class Match:
    """Where a text best matches a transcript. Below the threshold nothing is claimed:
    `found_at`, `speaker`, the segments and `passage` are empty and only `score` says how
    close the nearest attempt came."""

    found_at: int | None
    score: float
    speaker: str | None = None
    start_segment: int | None = None
    end_segment: int | None = None
    passage: str = ""  # the transcript's own words for the matched span, fillers and all

    @property
    def found(self) -> bool:
        return self.found_at is not None


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one quote, in a form a command can print and a page can show.

    `verdict` is `match` (found within the tolerance of `stored_at`), `elsewhere` (found at
    `found_at`, which is the fix), `not_found` or `no_transcript`. `speaker_agrees` is None
    when it cannot be told (no speaker given, the transcript names none, or not found).
    """

    verdict: Outcome
    stored_at: int
    found_at: int | None
    score: float
    speaker: str | None
    speaker_agrees: bool | None
    passage: str
    threshold: float

    @property
    def message(self) -> str:
        stored = format_timestamp(self.stored_at)
        if self.verdict is Outcome.NO_TRANSCRIPT:
            return "No transcript for this episode, so the quote cannot be checked."
        if self.verdict is Outcome.NOT_FOUND or self.found_at is None:
            return (
                f"Not found in the transcript (closest score {self.score:.0f}, "
                f"needs {self.threshold:.0f})."
            )
        found = format_timestamp(self.found_at)
        said = f", said by {self.speaker}" if self.speaker else ""
        if self.verdict is Outcome.MATCH:
            text = f"Found at {found}{said} (score {self.score:.0f})."
        else:
            text = f"Found at {found}{said}, not at {stored} (score {self.score:.0f})."
        if self.speaker_agrees is False:
            text += " The transcript gives a different speaker."
        return text

    def as_dict(self) -> dict[str, object]:
        """Plain values for JSON output (`verify_quotes --json`)."""
        return {
            "verdict": str(self.verdict),
            "stored_at": self.stored_at,
            "found_at": self.found_at,
            "score": round(self.score, 1),
            "speaker": self.speaker,
            "speaker_agrees": self.speaker_agrees,
            "passage": self.passage,
            "message": self.message,
        }


@dataclass(frozen=True)
class Suggestion:
    """Where a quote pasted without a timestamp was said; `at` is None when it was not found."""

    at: int | None
    speaker: str | None
    score: float
    passage: str


@dataclass(frozen=True)
class Passage:
    """The transcript's segments over a stretch of time, for a reader to open beside a quote."""

    start: float
    end: float
    segments: tuple[Segment, ...]

    @property
    def text(self) -> str:
        return " ".join(segment.text for segment in self.segments)


def normalise(text: str) -> str:
    """The content words of `text`, as compared: "Operate as, um, one giant cluster" →
    "operate as one giant cluster"."""
    words, ends = _words(text)
    return " ".join(words[i] for i in _content(words, ends))


def threshold_for(text: str) -> float:
    """The score a match of `text` needs (see the module's docstring for the measurements)."""
    return _threshold(len(normalise(text).split()))


def _threshold(words: int) -> float:
    return next(score for least, score in THRESHOLDS if words >= least)


def find(
    text: str, transcript: Transcript, *, near: int | None = None, tolerance: int = 10
) -> Match:
    """The best place `text` matches in `transcript`. With `near`, a place within `tolerance`
    seconds of it is preferred unless another scores `NEAR_TIE` or more higher."""
    best, _, _ = _search(text, transcript, near, tolerance)
    return best


def verify(
    quote_text: str,
    stored_at: int,
    transcript: Transcript | None,
    *,
    speaker: str | None = None,
    tolerance: int = 10,
) -> Verdict:
    """Check a quote (or a short phrase from an episode reference) stored at `stored_at`
    seconds against the transcript, and its speaker against the transcript's label."""
    if not transcript:
        threshold = threshold_for(quote_text)
        return Verdict(Outcome.NO_TRANSCRIPT, stored_at, None, 0.0, None, None, "", threshold)
    match, at_stored_time, threshold = _search(quote_text, transcript, stored_at, tolerance)
    if not match.found:
        return Verdict(Outcome.NOT_FOUND, stored_at, None, match.score, None, None, "", threshold)
    return Verdict(
        Outcome.MATCH if at_stored_time else Outcome.ELSEWHERE,
        stored_at,
        match.found_at,
        match.score,
        match.speaker or None,
        speaker_agrees(match.speaker, speaker),
        match.passage,
        threshold,
    )


def suggest(quote_text: str, transcript: Transcript | None) -> Suggestion:
    """Where a quote pasted without a timestamp was said, and by whom."""
    if not transcript:
        return Suggestion(None, None, 0.0, "")
    match = find(quote_text, transcript)
    return Suggestion(match.found_at, match.speaker or None, match.score, match.passage)


def passage_around(transcript: Transcript, at: float, seconds: float = 30) -> Passage:
    """The segments from the one being spoken at `at` (or the next to start) to `at +
    seconds`: the verbatim passage a reader opens beside a quote placed at `at`."""
    segments = transcript.segments
    first = bisect.bisect_right(_index(transcript).starts, at) - 1
    if first < 0 or segments[first].end <= at:
        first += 1  # `at` falls before the first segment or in a gap: start at the next one
    chosen: list[Segment] = []
    for segment in segments[max(first, 0) :]:
        if segment.start >= at + seconds:
            break
        chosen.append(segment)
    if not chosen:
        return Passage(at, at, ())
    return Passage(chosen[0].start, chosen[-1].end, tuple(chosen))


_QUOTED = re.compile(r"“([^”]+)”|\"([^\"]+)\"")


def quoted_phrases(text: str) -> list[str]:
    """The phrases an episode reference quotes: `describes ... “hundreds of kilometers apart
    operate as one giant cluster,” which he calls “scale across.”` gives both phrases, their
    closing punctuation dropped."""
    phrases = [(a or b).strip().rstrip(",.;:!?") for a, b in _QUOTED.findall(text)]
    return [phrase for phrase in phrases if phrase]


_GENERIC_LABEL = re.compile(
    r"^(?:speaker|spk|voice|unknown|person|participant|host|guest|interviewer|s)\s*[_\-#]?\s*\w?\d*$"
)


def speaker_agrees(label: str | None, name: str | None) -> bool | None:
    """Whether a transcript's speaker label names the quoted person, leniently: "Jeetu",
    "Patel", "JEETU PATEL:" and "J. Patel" all agree with "Jeetu Patel". None when either
    is missing or the label is generic ("Speaker 1", "SPEAKER_00", "Guest")."""
    if not label or not name:
        return None
    said, quoted = _name_words(label), _name_words(name)
    if not said or not quoted or _GENERIC_LABEL.match(" ".join(said)):
        return None
    return _names_cover(said, quoted) or _names_cover(quoted, said)


def _name_words(name: str) -> list[str]:
    return _words(name)[0]


def _names_cover(few: list[str], many: list[str]) -> bool:
    """Every word of `few` is a word of `many`, or the initial of one."""
    return all(
        any(word == other or (len(word) == 1 and other.startswith(word)) for other in many)
        for word in few
    )


# The normalised, indexed transcript.


@dataclass(frozen=True)
class _TranscriptIndex:
    tokens: list[str]  # content words in order
    segment: list[int]  # the segment each content word is in
    ordinal: list[int]  # which word of its segment it is (for finding it in the text again)
    text: str  # " ".join(tokens)
    offsets: list[int]  # where each content word starts in `text`
    pairs: dict[str, list[int]]  # "word word" → the positions in `tokens` where it starts
    starts: list[float]  # each segment's start
    first_token: list[int]  # each segment's first content word (or the next one's)


# A word has at least one letter or digit; apostrophes inside it are dropped ("that's" →
# "thats"), everything else separates words ("scale-across" → "scale", "across").
_WORD = re.compile(r"[\w'’‘ʼ]*\w[\w'’‘ʼ]*")
# The same words, each with the punctuation after it, to see where sentences end.
_WORD_AND_TAIL = re.compile(r"([\w'’‘ʼ]*\w[\w'’‘ʼ]*)([^\w\s]*)")


@cache
def _strip_accents(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _fold(word: str) -> str:
    word = word.translate(_NO_APOSTROPHES).casefold()
    return word if word.isascii() else _strip_accents(word)


def _words(text: str) -> tuple[list[str], set[int]]:
    """The folded words of `text`, and the positions of those that end a sentence."""
    found = _WORD_AND_TAIL.findall(text)
    return [_fold(word) for word, _ in found], _sentence_ends(found, 0)


def _sentence_ends(found: list[tuple[str, str]], first: int) -> set[int]:
    return {
        first + i
        for i, (_, tail) in enumerate(found)
        if tail and ("." in tail or "?" in tail or "!" in tail or "…" in tail)
    }


def _content(words: list[str], ends: set[int]) -> list[int]:
    """Positions of the words kept for comparison: fillers out, immediate repeats of one to
    three words kept once, unless a sentence ends (or the speaker changes) between them:
    "waits for the slowest link. So the slowest link sets the pace" keeps both."""
    count = len(words)
    paired: set[int] = set()
    for i in [i for i, word in enumerate(words) if word in _PAIR_STARTS]:
        if i + 1 < count and (words[i], words[i + 1]) in FILLER_PAIRS and i not in paired:
            paired.update((i, i + 1))
    kept = [i for i, word in enumerate(words) if word not in FILLERS and i not in paired]
    kept_words = [words[i] for i in kept]
    # Most words repeat none of the three before them; only those that do need a closer look.
    suspects = {
        j
        for j, (w, a, b, c) in enumerate(
            zip(
                kept_words,
                ["", *kept_words],
                ["", "", *kept_words],
                ["", "", "", *kept_words],
                strict=False,  # the shifted lists are longer; stop with the words
            )
        )
        if w == a or w == b or w == c
    }
    if not suspects:
        return kept
    out: list[int] = []
    out_words: list[str] = []
    j = 0
    while j < len(kept):
        if j in suspects:
            for size in (3, 2, 1):
                if (
                    len(out_words) >= size
                    and kept_words[j : j + size] == out_words[-size:]
                    and out[-1] not in ends
                ):
                    j += size
                    break
            else:
                out.append(kept[j])
                out_words.append(kept_words[j])
                j += 1
        else:
            out.append(kept[j])
            out_words.append(kept_words[j])
            j += 1
    return out


_PAIR_STARTS = frozenset(first for first, _ in FILLER_PAIRS)


def _index(transcript: Transcript) -> _TranscriptIndex:
    # Kept on the transcript itself, so every quote checked against an episode shares one
    # index and it goes when the transcript does. (A dict keyed by transcript would hash
    # every segment on each lookup.)
    found = transcript.__dict__.get("_index")
    if found is None:
        found = _build_index(transcript)
        object.__setattr__(transcript, "_index", found)
    return found


def _build_index(transcript: Transcript) -> _TranscriptIndex:
    folded: dict[str, str] = {}  # speech repeats its words: fold each spelling once
    words: list[str] = []
    ends: set[int] = set()
    segment_of: list[int] = []
    ordinal: list[int] = []
    segments = transcript.segments
    for number, segment in enumerate(segments):
        found = _WORD_AND_TAIL.findall(segment.text)
        ends |= _sentence_ends(found, len(words))
        for word, _ in found:
            fold = folded.get(word)
            if fold is None:
                fold = folded[word] = _fold(word)
            words.append(fold)
        if found and number + 1 < len(segments) and segments[number + 1].speaker != segment.speaker:
            ends.add(len(words) - 1)
        segment_of.extend([number] * len(found))
        ordinal.extend(range(len(found)))
    keep = _content(words, ends)
    tokens = [words[i] for i in keep]
    offsets = list(itertools.accumulate((len(token) + 1 for token in tokens[:-1]), initial=0))
    pairs: dict[str, list[int]] = {}
    for position, pair in enumerate(map(" ".join, itertools.pairwise(tokens))):
        places = pairs.get(pair)
        if places is None:
            pairs[pair] = [position]
        else:
            places.append(position)
    kept_segments = [segment_of[i] for i in keep]
    return _TranscriptIndex(
        tokens=tokens,
        segment=kept_segments,
        ordinal=[ordinal[i] for i in keep],
        text=" ".join(tokens),
        offsets=offsets if tokens else [],
        pairs=pairs,
        starts=[segment.start for segment in transcript.segments],
        first_token=[
            bisect.bisect_left(kept_segments, number) for number in range(len(transcript.segments))
        ],
    )


# Searching.

_CANDIDATES = 4
_VOTE_BUDGET = 200  # places looked at per quote, rarest pairs first


def _search(
    text: str, transcript: Transcript, near: int | None, tolerance: int
) -> tuple[Match, bool, float]:
    """The best match, whether it is the one at `near`, and the threshold it was held to."""
    query = normalise(text)
    words = query.split()
    threshold = _threshold(len(words))
    index = _index(transcript)
    if not words or not index.tokens:
        return Match(None, 0.0), False, threshold
    scored: list[tuple[float, int, int]] = []
    local = _local_window(index, transcript, near, tolerance, len(words))
    if near is not None and local is not None:
        found = _score(index, query, *local)
        if found is not None:
            # Nothing elsewhere can beat a score this high by NEAR_TIE: the usual case, a
            # quote where it was placed, costs one alignment and no search.
            if found[0] >= max(threshold, 100 - NEAR_TIE) and _close(
                transcript, index.segment[found[1]], near, tolerance
            ):
                return _match(index, transcript, found, words), True, threshold
            scored.append(found)
    for start in _candidate_starts(index, words):
        found = _score(index, query, *_window(index, start, len(words)))
        if found is not None:
            scored.append(found)
            if found[0] >= 100:
                break
    if not scored or max(s[0] for s in scored) < threshold:
        # The shortcut found nothing good enough: make sure by scoring everything.
        whole = _score(index, query, 0, len(index.tokens))
        if whole is not None:
            scored.append(whole)
    best = max(scored, default=(0.0, 0, 0), key=lambda s: s[0])
    if best[0] < threshold:
        return Match(None, round(best[0], 1)), False, threshold
    if near is not None:
        placed = [
            s
            for s in scored
            if s[0] >= threshold
            and s[0] >= best[0] - NEAR_TIE
            and _close(transcript, index.segment[s[1]], near, tolerance)
        ]
        if placed:
            chosen = max(placed, key=lambda s: s[0])
            return _match(index, transcript, chosen, words), True, threshold
    return _match(index, transcript, best, words), False, threshold


def _close(transcript: Transcript, segment: int, at: int, tolerance: int) -> bool:
    spoken = transcript.segments[segment]
    return spoken.start - tolerance <= at <= spoken.end + tolerance


def _candidate_starts(index: _TranscriptIndex, words: list[str]) -> list[int]:
    """Where the quote most likely starts, most likely first. Each place a pair of the
    quote's consecutive words was said votes for the start it implies, in buckets wide
    enough to absorb a few edited words; the buckets with the most votes win. The rarest
    pairs vote first, within a budget, so a quote of common words costs no more."""
    bucket = max(8, len(words) // 4)
    voters = sorted(
        (
            (position, places)
            for position, pair in enumerate(map(" ".join, itertools.pairwise(words)))
            if (places := index.pairs.get(pair))
        ),
        key=lambda voter: len(voter[1]),
    )
    chosen: list[tuple[int, list[int]]] = []
    spent = 0
    for voter in voters:
        if spent >= _VOTE_BUDGET and chosen:
            break
        chosen.append(voter)
        spent += len(voter[1])
    votes = Counter((place - position) // bucket for position, places in chosen for place in places)
    return [key * bucket for key, _ in votes.most_common(_CANDIDATES)]


def _window(index: _TranscriptIndex, start: int, count: int) -> tuple[int, int]:
    slack = max(8, count // 4)
    first = max(0, start - count // 2 - slack)
    last = min(len(index.tokens), start + count + count // 2 + 2 * slack)
    return first, last


def _local_window(
    index: _TranscriptIndex, transcript: Transcript, near: int | None, tolerance: int, count: int
) -> tuple[int, int] | None:
    if near is None:
        return None
    starts = index.starts
    low = max(0, bisect.bisect_right(starts, near - tolerance) - 1)
    if transcript.segments[low].end < near - tolerance:
        low += 1  # that segment was over before the tolerance begins
    high = bisect.bisect_right(starts, near + tolerance)
    first = index.first_token[low] if low < len(starts) else len(index.tokens)
    last = index.first_token[high] if high < len(starts) else len(index.tokens)
    if first >= len(index.tokens):
        return None
    return max(0, first - count // 2), min(len(index.tokens), last + count + count // 2)


def _score(
    index: _TranscriptIndex, query: str, first: int, last: int
) -> tuple[float, int, int] | None:
    """Score the quote inside tokens [first, last); return (score, first, last token
    matched)."""
    if first >= last:
        return None
    base = index.offsets[first]
    end = index.offsets[last - 1] + len(index.tokens[last - 1])
    window = index.text[base:end]
    if len(window) < len(query):
        # partial_ratio aligns the shorter text inside the longer; keep the quote the shorter.
        alignment = fuzz.partial_ratio_alignment(window, query)
        if alignment is None:
            return None
        start, stop = base + alignment.src_start, base + alignment.src_end
    else:
        alignment = fuzz.partial_ratio_alignment(query, window)
        if alignment is None:
            return None
        start, stop = base + alignment.dest_start, base + alignment.dest_end
    # The words the aligned characters fall in, leaving out a word at either end of which
    # the alignment took less than half: a character alignment can clip or overrun a word.
    offsets, tokens = index.offsets, index.tokens
    head = bisect.bisect_right(offsets, start) - 1
    tail = bisect.bisect_right(offsets, max(stop - 1, start)) - 1
    if head < tail and (start - offsets[head]) * 2 > len(tokens[head]):
        head += 1
    if head < tail and (stop - offsets[tail]) * 2 < len(tokens[tail]):
        tail -= 1
    return alignment.score, head, tail


def _match(
    index: _TranscriptIndex,
    transcript: Transcript,
    scored: tuple[float, int, int],
    words: list[str],
) -> Match:
    score, head, tail = scored
    head, tail = _snap(index, head, tail, words)
    first_segment, last_segment = index.segment[head], index.segment[tail]
    return Match(
        found_at=math.floor(transcript.segments[first_segment].start),
        score=round(score, 1),
        speaker=_speaker(index, transcript, head, tail),
        start_segment=first_segment,
        end_segment=last_segment,
        passage=_passage(index, transcript, head, tail),
    )


def _snap(index: _TranscriptIndex, head: int, tail: int, words: list[str]) -> tuple[int, int]:
    """Move the span's ends onto the quote's first and last words when they are close by:
    a character alignment can stop a word short, or run one word on."""
    reach = max(2, len(words) // 5)
    tokens = index.tokens
    if tokens[head] != words[0]:
        around = range(max(0, head - reach), min(tail, head + reach) + 1)
        hits = [j for j in around if tokens[j] == words[0]]
        if hits:
            head = min(hits, key=lambda j: abs(j - head))
    if tokens[tail] != words[-1]:
        around = range(max(head, tail - reach), min(len(tokens) - 1, tail + reach) + 1)
        hits = [j for j in around if tokens[j] == words[-1]]
        if hits:
            tail = min(hits, key=lambda j: abs(j - tail))
    return head, tail


def _speaker(index: _TranscriptIndex, transcript: Transcript, head: int, tail: int) -> str:
    """The speaker of most of the matched words."""
    counts: dict[str, int] = {}
    for position in range(head, tail + 1):
        label = transcript.segments[index.segment[position]].speaker
        counts[label] = counts.get(label, 0) + 1
    return max(counts, key=lambda label: counts[label])


def _passage(index: _TranscriptIndex, transcript: Transcript, head: int, tail: int) -> str:
    """The transcript's text from the first matched word to the last, with the punctuation
    that closes it."""
    first, last = index.segment[head], index.segment[tail]
    segments = transcript.segments
    start = _span(segments[first].text, index.ordinal[head])[0]
    end = _span(segments[last].text, index.ordinal[tail])[1]
    tail_text = segments[last].text
    while end < len(tail_text) and not tail_text[end].isspace() and not tail_text[end].isalnum():
        end += 1
    if first == last:
        return segments[first].text[start:end]
    middle = [segments[n].text for n in range(first + 1, last)]
    return " ".join([segments[first].text[start:], *middle, tail_text[:end]])


def _span(text: str, ordinal: int) -> tuple[int, int]:
    for number, word in enumerate(_WORD.finditer(text)):
        if number == ordinal:
            return word.span()
    raise AssertionError("the index and the segment's text disagree")  # pragma: no cover
