"""The passage of a stored source text that supports a citation's note, for readers.

At most ``MAX_SENTENCES`` (3) whole sentences and ``MAX_WORDS`` (50) words:
enough to show the claim in its context, short enough to read at a glance and to
stay a brief quotation of someone else's page (docs/sources.md says why).
"""

from __future__ import annotations

import re

from editorial.sourcetext.claims import quoted_phrases
from editorial.sourcetext.diff import content_words, sentences
from editorial.sourcetext.figures import figures

MAX_WORDS = 50
MAX_SENTENCES = 3
ELLIPSIS = "…"

# A shared figure or quoted phrase says far more about support than a shared word.
_FIGURE_WEIGHT = 3
_PHRASE_WEIGHT = 5
_PROSE = re.compile(r"[.!?…][\"'”’)\]]*$")


def excerpt(stored_text: str, note: str, max_words: int = MAX_WORDS) -> str:
    """The sentences around the best match of the note in ``stored_text``.

    The best sentence is the one sharing the most with the note (its figures and
    quoted phrases weigh most, then its content words); neighbouring sentences
    are added, the better-matching side first, while the whole stays within
    ``max_words`` words and ``MAX_SENTENCES`` sentences. A neighbour in another
    paragraph is added only when both are prose (end like a sentence), so a
    heading, list item or table row never joins a passage. Paragraphs stay apart
    as lines. A best sentence longer than ``max_words`` is cut to a window around
    what matched, marked with "…". Returns "" when nothing in the text matches.
    """
    if max_words < 1:
        raise ValueError(f"max_words must be at least 1, not {max_words}")
    flat = [
        (paragraph, sentence)
        for paragraph, line in enumerate(stored_text.splitlines())
        for sentence in sentences(line)
    ]
    if not flat:
        return ""
    note_words = content_words(note)
    note_figures = {figure.key for figure in figures(note)}
    phrases = [" ".join(phrase.casefold().split()) for phrase in quoted_phrases(note)]

    def score(sentence: str) -> int:
        shared_figures = note_figures & {figure.key for figure in figures(sentence)}
        folded = sentence.casefold()
        return (
            _FIGURE_WEIGHT * len(shared_figures)
            + _PHRASE_WEIGHT * sum(phrase in folded for phrase in phrases)
            + len(note_words & content_words(sentence))
        )

    scores = [score(sentence) for _, sentence in flat]
    best = max(range(len(flat)), key=lambda i: (scores[i], -i))
    if scores[best] == 0:
        return ""
    if _word_count(flat[best][1]) > max_words:
        return _window(flat[best][1], note_words, note_figures, max_words)

    def joins(inner: int, outer: int) -> bool:
        if not 0 <= outer < len(flat):
            return False
        if flat[inner][0] == flat[outer][0]:
            return True
        return bool(_PROSE.search(flat[inner][1]) and _PROSE.search(flat[outer][1]))

    first = last = best
    used = _word_count(flat[best][1])
    while last - first + 1 < MAX_SENTENCES:
        sides = [
            (scores[i], i) for i, inner in ((first - 1, first), (last + 1, last)) if joins(inner, i)
        ]
        # Better-matching side first; on a tie the following sentence, which usually
        # continues the claim rather than introducing it.
        for _, neighbour in sorted(sides, key=lambda side: (-side[0], -side[1])):
            if used + _word_count(flat[neighbour][1]) <= max_words:
                used += _word_count(flat[neighbour][1])
                first, last = min(first, neighbour), max(last, neighbour)
                break
        else:
            break
    lines: list[list[str]] = []
    for index in range(first, last + 1):
        if index == first or flat[index][0] != flat[index - 1][0]:
            lines.append([])
        lines[-1].append(flat[index][1])
    return "\n".join(" ".join(line) for line in lines)


def _word_count(text: str) -> int:
    return len(text.split())


def _window(
    sentence: str, note_words: set[str], note_figures: set[tuple[str, str]], max_words: int
) -> str:
    """``max_words`` words of a long sentence, centred on the first thing that matched."""
    tokens = sentence.split()
    centre = 0
    for index, token in enumerate(tokens):
        pair = " ".join(tokens[index : index + 2])  # a figure is at most "3 TB/s"
        if {figure.key for figure in figures(pair)} & note_figures or (
            content_words(token) & note_words
        ):
            centre = index
            break
    start = max(0, min(centre - max_words // 2, len(tokens) - max_words))
    window = tokens[start : start + max_words]
    text = " ".join(window)
    if start > 0:
        text = f"{ELLIPSIS} {text}"
    if start + max_words < len(tokens):
        text = f"{text} {ELLIPSIS}"
    return text
