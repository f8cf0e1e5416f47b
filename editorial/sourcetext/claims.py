"""Does the source still say what a citation's note says it says?

A note that quotes figures ("the sixth generation is listed at 3 TB/s of
bandwidth per GPU") or phrases in quotation marks is checked against the
source's current text. A figure counts as still said when the current text has
it anywhere (see ``figures`` for what a figure is and when two are the same);
a phrase, when the current text contains it, ignoring case, whitespace and the
style of quotes and dashes. When the confirmed text (the one a fact-checker
confirmed) is given, each problem also says where the confirmed text said it
and what the current text says in that place: the confirmed sentence is paired
with its most similar new sentence (``diff.successor``), wherever it moved.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from editorial.sourcetext.diff import (
    TextDiff,
    content_words,
    diff,
    sentences,
    successor,
)
from editorial.sourcetext.figures import Figure, figures

# Paired typographic quotes, or straight double quotes; single straight quotes are
# apostrophes far more often than quotation marks.
_QUOTED = re.compile(r"“([^”]+)”|\"([^\"]+)\"|‘([^’]+)’(?!\w)")
_STYLE = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"})


@dataclass(frozen=True)
class ClaimProblem:
    """One figure or phrase of a note that the current text does not say.

    ``in_confirmed`` is True when the confirmed text said it (the source changed),
    False when it did not either (the note paraphrases or misquotes the source),
    None when no confirmed text was given. ``confirmed_sentence`` is where the
    confirmed text said it; ``current_sentence`` the sentence that took its place;
    ``now_says`` the figure in that sentence that took the cited one's place.
    """

    kind: Literal["figure", "phrase"]
    cited: str
    in_confirmed: bool | None = None
    confirmed_sentence: str | None = None
    current_sentence: str | None = None
    now_says: str | None = None

    @property
    def message(self) -> str:
        if self.in_confirmed is False:
            return f"does not say '{self.cited}', nor did the text that was confirmed"
        if self.in_confirmed is None:
            return f"does not say '{self.cited}'"
        said = f"no longer says '{self.cited}'"
        if self.now_says is not None:
            return f"{said}; it now says '{self.now_says}'"
        if self.current_sentence is not None:
            return f"{said}; in its place it now reads '{self.current_sentence}'"
        return f"{said}; the sentence that said it is gone"


def quoted_phrases(note: str) -> list[str]:
    """The phrases a note puts in quotation marks, in order."""
    return [next(group for group in match.groups() if group) for match in _QUOTED.finditer(note)]


def check_note(note: str, current_text: str, confirmed_text: str | None) -> list[ClaimProblem]:
    """The note's figures and quoted phrases that the current text no longer says.

    An empty list means every figure and phrase the note quotes is still there
    (or the note quotes none). Problems come in the note's order, figures first.
    """
    current_keys = {figure.key for figure in figures(current_text)}
    context = _Context(note, confirmed_text, current_text)
    problems: list[ClaimProblem] = []
    seen: set[tuple[str, str]] = set()
    for figure in figures(note):
        if figure.key in current_keys or figure.key in seen:
            continue
        seen.add(figure.key)
        problems.append(context.figure_problem(figure))
    phrases = quoted_phrases(note)
    current_plain = _plain(current_text) if phrases else ""
    for phrase in phrases:
        if _plain(phrase) not in current_plain:
            problems.append(context.phrase_problem(phrase))
    return problems


class _Context:
    """The confirmed text's sentences and the diff, worked out once and only if needed."""

    def __init__(self, note: str, confirmed_text: str | None, current_text: str) -> None:
        self.note_words = content_words(note)
        self.confirmed_text = confirmed_text
        self.current_text = current_text
        self._sentences: list[str] | None = None
        self._sentence_figures: list[tuple[str, set[tuple[str, str]]]] | None = None
        self._diff: TextDiff | None = None

    def figure_problem(self, figure: Figure) -> ClaimProblem:
        if self.confirmed_text is None:
            return ClaimProblem("figure", figure.text)
        holders = [s for s, keys in self.sentence_figures() if figure.key in keys]
        if not holders:
            return ClaimProblem("figure", figure.text, in_confirmed=False)
        anchor = self._closest_to_note(holders)
        after = successor(anchor, self.diff().added)
        now = _replacement(figure, anchor, after) if after is not None else None
        return ClaimProblem("figure", figure.text, True, anchor, after, now)

    def phrase_problem(self, phrase: str) -> ClaimProblem:
        if self.confirmed_text is None:
            return ClaimProblem("phrase", phrase)
        plain = _plain(phrase)
        holders = [s for s in self.sentences() if plain in _plain(s)]
        if not holders and plain not in _plain(self.confirmed_text):
            return ClaimProblem("phrase", phrase, in_confirmed=False)
        anchor = self._closest_to_note(holders) if holders else None
        after = successor(anchor, self.diff().added) if anchor is not None else None
        return ClaimProblem("phrase", phrase, True, anchor, after)

    def sentences(self) -> list[str]:
        if self._sentences is None:
            self._sentences = sentences(self.confirmed_text or "")
        return self._sentences

    def sentence_figures(self) -> list[tuple[str, set[tuple[str, str]]]]:
        if self._sentence_figures is None:
            self._sentence_figures = [(s, {f.key for f in figures(s)}) for s in self.sentences()]
        return self._sentence_figures

    def diff(self) -> TextDiff:
        if self._diff is None:
            self._diff = diff(self.confirmed_text or "", self.current_text)
        return self._diff

    def _closest_to_note(self, candidates: list[str]) -> str:
        # The first of the sentences sharing the most words with the note.
        return max(candidates, key=lambda s: len(self.note_words & content_words(s)))


def _replacement(cited: Figure, anchor: str, after: str) -> str | None:
    """The figure of ``after`` standing where ``cited`` stood in ``anchor``.

    Figures of the same unit are matched by their order in the sentence ("1.8 TB/s
    per GPU and 130 TB/s per rack"); a new figure in another unit is the fallback.
    """
    old = figures(anchor)
    old_keys = {figure.key for figure in old}
    same_unit_old = [figure.key for figure in old if figure.unit == cited.unit]
    position = same_unit_old.index(cited.key) if cited.key in same_unit_old else 0
    new = figures(after)
    same_unit_new = [figure for figure in new if figure.unit == cited.unit]
    if same_unit_new:
        return same_unit_new[min(position, len(same_unit_new) - 1)].text
    fresh = [figure for figure in new if figure.key not in old_keys]
    return fresh[0].text if fresh else None


def relevant_sentences(text_diff: TextDiff, words: set[str]) -> list[str]:
    """Removed, then added, sentences that use any of ``words`` (stopwords ignored).

    ``words`` are the words of the citing entries' claims and of the citation's
    note; ``claim_words`` builds the set from those texts.
    """
    wanted = claim_words(words)
    return [
        sentence
        for sentence in (*text_diff.removed, *text_diff.added)
        if wanted & content_words(sentence)
    ]


def claim_words(texts: Iterable[str]) -> set[str]:
    """The content words of claims and notes, as ``relevant_sentences`` compares them."""
    found: set[str] = set()
    for text in texts:
        found |= content_words(text)
    return found


def _plain(text: str) -> str:
    return " ".join(text.translate(_STYLE).casefold().split())
