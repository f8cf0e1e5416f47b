"""Sentences, and what changed between two versions of a source's text, sentence by sentence.

The splitter is ours, not a library's: on this domain's pages the libraries we
measured either missed the commonest sentence end (sentencex keeps "… 3.6 TB/s.
The switch …" as one sentence), were ~1,000 times slower (pysbd: 17 ms per
1,000 characters) or needed the same abbreviation list plus a trained model to
tell "Cisco Systems, Inc. The list" from "NVIDIA Inc. announced" (nltk's Punkt).
Its rules, in order, for a ".", "!", "?" or "…" (with any closing quotes or
brackets) followed by whitespace:

1. Each line of the text is its own block: list items and headings end where
   their line ends, with or without a full stop.
2. No break before a lowercase letter ("e.g. accelerators", "Corp. in").
3. No break after an abbreviation that never ends a sentence ("Mr.", "e.g.",
   "Fig.", "No.", "approx.", month names), a single capital ("J. Smith") or a
   dotted acronym ("U.S."). "Inc.", "Ltd.", "etc." do end sentences when a
   capital follows.
4. No break after a list marker that would otherwise be a sentence of its own
   ("1.", "a.", "iv.").

Decimals and version numbers ("3.6", "2.1.3") never break: no whitespace follows
their dots.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

_CANDIDATE = re.compile(r"(?:[.!?]+|…)[\"'”’»)\]]*\s+(?=\S)")
# Never end a sentence, lowercased without their final dot.
_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt ft e.g i.e cf vs viz al fig figs eq eqs no nos vol
    pp p para sec ch approx ca est dept univ gen gov rev ref refs tel ext min max
    jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)
_DOTTED_ACRONYM = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]$|^[A-Z]$")
_LIST_MARKER = re.compile(r"^(?:\(?\d{1,3}|\(?[a-zA-Z]|[ivxlcdm]{1,5})\)?$", re.I)
_WORD = re.compile(r"\w+(?:[./]\w+)*")


@dataclass(frozen=True)
class TextDiff:
    """Sentences of the confirmed text missing from the current one, and new ones.

    A sentence that only moved is in neither list: the comparison is of the two
    texts' multisets of sentences, in each text's order.
    """

    removed: list[str]
    added: list[str]
    unchanged_count: int

    @property
    def changed(self) -> bool:
        return bool(self.removed or self.added)


def sentences(text: str) -> list[str]:
    """Split text into sentences, each with its whitespace collapsed."""
    return list(_sentences(text))


# diff, check_note and excerpt split the same two texts, once per citing entry.
@functools.lru_cache(maxsize=128)
def _sentences(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            found.extend(_split_line(line))
    return tuple(found)


def _split_line(line: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for candidate in _CANDIDATE.finditer(line):
        end = candidate.end()
        if _is_break(line, start, candidate.start(), candidate.group(), line[end]):
            pieces.append(line[start:end].rstrip())
            start = end
    pieces.append(line[start:])
    return pieces


def _is_break(line: str, start: int, stop: int, terminator: str, following: str) -> bool:
    """Whether ``terminator`` at ``line[stop:]`` ends the sentence begun at ``start``.

    Works on offsets, not slices: a long line with many abbreviations would
    otherwise be copied once per candidate.
    """
    if following.islower():
        return False
    if "." not in terminator or terminator.startswith(".."):
        return True  # "!", "?", "…" and "..." end a sentence unless lowercase follows
    if stop == start or line[stop - 1] == " ":
        return True
    token_start = max(line.rfind(" ", start, stop) + 1, start)
    token = line[token_start:stop].lstrip("(\"'“‘[")
    if token.lower() in _ABBREVIATIONS or _DOTTED_ACRONYM.match(token):
        return False
    # A list marker is a sentence only if it is all there is so far.
    return not (token_start == start and _LIST_MARKER.match(token))


def diff(confirmed: str, current: str) -> TextDiff:
    """Compare two texts sentence by sentence; moved sentences are not changes."""
    old, new = sentences(confirmed), sentences(current)
    old_counts, new_counts = Counter(old), Counter(new)
    return TextDiff(
        removed=_in_order(old, old_counts - new_counts),
        added=_in_order(new, new_counts - old_counts),
        unchanged_count=sum((old_counts & new_counts).values()),
    )


def _in_order(items: Sequence[str], extra: Counter[str]) -> list[str]:
    kept: list[str] = []
    for item in items:
        if extra[item] > 0:
            extra[item] -= 1
            kept.append(item)
    return kept


def words(text: str) -> list[str]:
    """Casefolded words, numbers kept whole ("3.6", "tb/s")."""
    return _WORD.findall(text.casefold())


# Function words that say nothing about what a sentence is about.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers him his how i if in into is
    it its itself just may me might more most must my no nor not now of off on once only
    or other our ours out over own per same she should so some such than that the their
    theirs them then there these they this those through to too under until up upon us
    very via was we were what when where which while who whom why will with would you
    your yours listed describes describing page""".split()
)


def content_words(text: str) -> set[str]:
    """The words that say what a text is about: no stopwords, plurals folded ("GPUs" is "gpu")."""
    return {_singular(word) for word in words(text) if word not in STOPWORDS}


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "/s")):
        return word[:-1]
    return word


# Below this, a rewritten sentence is taken to say something else, not to succeed
# the old one: "delivers 3 TB/s per GPU" against "delivers 3.6 TB/s per GPU" is 0.89.
SUCCESSOR_THRESHOLD = 0.5


def successor(sentence: str, candidates: Iterable[str]) -> str | None:
    """The candidate that most likely replaced ``sentence``, or None below the threshold.

    Candidates are the current text's new sentences (``TextDiff.added``); the best
    match by word similarity wins, the earliest on a tie, wherever it moved to.
    """
    old_words = words(sentence)
    best: str | None = None
    best_score = SUCCESSOR_THRESHOLD
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(old_words)  # SequenceMatcher caches details about its second sequence
    for candidate in candidates:
        matcher.set_seq1(words(candidate))
        if matcher.real_quick_ratio() < best_score or matcher.quick_ratio() < best_score:
            continue
        score = matcher.ratio()
        if score > best_score or (best is None and score >= best_score):
            best, best_score = candidate, score
    return best
