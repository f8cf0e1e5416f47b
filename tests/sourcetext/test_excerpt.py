"""Readers see the few sentences that support a claim, not the whole page."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editorial.sourcetext.diff import sentences
from editorial.sourcetext.excerpt import ELLIPSIS, MAX_SENTENCES, MAX_WORDS, excerpt
from editorial.sourcetext.text import readable_text
from tests.sourcetext.pages import ARTICLE_V1, PAGE_V1, SEED_NOTE

STORED = readable_text(PAGE_V1, "text/html")


def word_count(text: str) -> int:
    return len([word for word in text.split() if word != ELLIPSIS])


def test_the_excerpt_holds_the_cited_figure_within_the_bounds() -> None:
    passage = excerpt(STORED, SEED_NOTE)
    assert ARTICLE_V1[1] in passage
    assert word_count(passage) <= MAX_WORDS < word_count(STORED)
    assert len(sentences(passage)) <= MAX_SENTENCES


def test_the_excerpt_is_the_prose_around_the_match_never_a_heading_or_table_row() -> None:
    assert excerpt(STORED, SEED_NOTE).splitlines() == ARTICLE_V1[:3]


def test_a_tighter_word_limit_keeps_only_the_best_sentence() -> None:
    assert excerpt(STORED, SEED_NOTE, max_words=20) == ARTICLE_V1[1]


def test_a_long_sentence_is_cut_around_the_figure_with_ellipses() -> None:
    stored = " ".join(["word"] * 200 + ["it", "runs", "at", "3", "TB/s"] + ["more"] * 100) + "."
    passage = excerpt(stored, "runs at 3 TB/s", max_words=30)
    assert "runs at 3 TB/s" in passage
    assert passage.startswith(ELLIPSIS) and passage.endswith(ELLIPSIS)
    assert word_count(passage) == 30


def test_a_note_that_matches_nothing_gives_no_excerpt() -> None:
    assert excerpt(STORED, "Ultra Ethernet Consortium") == ""
    assert excerpt("", SEED_NOTE) == ""


def test_a_word_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_words must be at least 1, not 0"):
        excerpt(STORED, SEED_NOTE, max_words=0)


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="ab 3.TB/s\n!?", max_size=400),
    st.text(alphabet="ab 3TB/s", max_size=30),
    st.integers(min_value=1, max_value=60),
)
def test_no_excerpt_is_ever_longer_than_its_limit(stored: str, note: str, limit: int) -> None:
    assert word_count(excerpt(stored, note, max_words=limit)) <= limit
