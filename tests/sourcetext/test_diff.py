"""Sentences, and what changed between two versions of a text, sentence by sentence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editorial.sourcetext.diff import TextDiff, diff, sentences, successor
from editorial.sourcetext.text import readable_text
from tests.sourcetext.pages import ARTICLE_V1, ARTICLE_V2, PAGE_V1, PAGE_V2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "NVLink delivers 3.6 TB/s per GPU. It supports e.g. 72 GPUs in one rack.",
            ["NVLink delivers 3.6 TB/s per GPU.", "It supports e.g. 72 GPUs in one rack."],
        ),
        (
            "Links run at 800 Gb/s. Each port is 200G.",
            ["Links run at 800 Gb/s.", "Each port is 200G."],
        ),
        ("NVIDIA Inc. announced it in 2026.", ["NVIDIA Inc. announced it in 2026."]),
        (
            "Partners include Cisco Systems, Inc. The list grows.",
            ["Partners include Cisco Systems, Inc.", "The list grows."],
        ),
        (
            "Members include AMD, Arista, etc. It formed in 2023.",
            ["Members include AMD, Arista, etc.", "It formed in 2023."],
        ),
        (
            "Version 2.1.3 is out. See section 4.2. Then read it.",
            ["Version 2.1.3 is out.", "See section 4.2.", "Then read it."],
        ),
        (
            "Mr. Huang spoke at 9 a.m. on Monday. See Fig. 3 for details.",
            ["Mr. Huang spoke at 9 a.m. on Monday.", "See Fig. 3 for details."],
        ),
        (
            "The U.S. market grew 50%. J. Smith wrote it.",
            ["The U.S. market grew 50%.", "J. Smith wrote it."],
        ),
        (
            "Released in Sept. 2026 by NVIDIA Corp. in Santa Clara.",
            ["Released in Sept. 2026 by NVIDIA Corp. in Santa Clara."],
        ),
        ("1. Install the driver. 2. Reboot.", ["1. Install the driver.", "2. Reboot."]),
        ("He said “it is fast.” Then he left!", ["He said “it is fast.”", "Then he left!"]),
        ("Scale-up networking\nRack-scale domains", ["Scale-up networking", "Rack-scale domains"]),
        ("Wait... What? Yes!", ["Wait...", "What?", "Yes!"]),
    ],
)
def test_it_splits_sentences_as_a_reader_would(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_a_sentence_has_its_whitespace_collapsed_and_empty_lines_are_skipped() -> None:
    assert sentences("  One\t two.   Three.\n\n\n") == ["One two.", "Three."]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='aZ3 .!?…\n\t"”)(e.gInc'))
def test_splitting_never_loses_or_invents_a_character(text: str) -> None:
    assert "".join("".join(sentences(text)).split()) == "".join(text.split())


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_splitting_any_text_never_raises_and_gives_no_empty_sentence(text: str) -> None:
    assert all(sentence.strip() for sentence in sentences(text))


def test_the_diff_of_two_versions_names_the_removed_and_the_added_sentence() -> None:
    changes = diff(readable_text(PAGE_V1, "text/html"), readable_text(PAGE_V2, "text/html"))
    assert changes.removed == [ARTICLE_V1[1], ARTICLE_V1[2]]
    assert changes.added == [ARTICLE_V2[1], ARTICLE_V2[2]]
    assert changes.changed


def test_unchanged_sentences_are_counted_not_listed() -> None:
    assert diff("A one. B two.", "A one. B two.") == TextDiff([], [], 2)
    assert not diff("A one.", "A one.").changed


def test_a_sentence_that_only_moved_is_not_a_change() -> None:
    changes = diff("A one.\nB two. C three.", "C three. A one.\nB two.")
    assert changes == TextDiff(removed=[], added=[], unchanged_count=3)


def test_a_repeated_sentence_counts_each_time() -> None:
    assert diff("Buy now. Buy now. Done.", "Buy now. Done.") == TextDiff(["Buy now."], [], 2)


def test_the_successor_of_an_edited_sentence_is_its_closest_new_sentence() -> None:
    added = ["A wholly new sentence about InfiniBand.", ARTICLE_V2[1]]
    assert successor(ARTICLE_V1[1], added) == ARTICLE_V2[1]


def test_a_sentence_with_nothing_alike_among_the_new_ones_has_no_successor() -> None:
    assert successor(ARTICLE_V1[1], ["Ultra Ethernet is a consortium.", ""]) is None


def test_changing_a_returned_list_does_not_change_the_next_answer() -> None:
    sentences("One. Two.").append("Three.")
    assert sentences("One. Two.") == ["One.", "Two."]
