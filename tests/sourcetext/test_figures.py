"""Figures: numbers with their units, found and compared as an editor would quote them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editorial.sourcetext.figures import figures, figures_gone
from editorial.sourcetext.text import readable_text
from tests.sourcetext.pages import ARTICLE_V1, PAGE_V1, PAGE_V2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("delivers 3 TB/s of bandwidth", "3 TB/s"),
        ("ports run at 800 Gb/s.", "800 Gb/s"),
        ("now 3.6 TB/s per GPU", "3.6 TB/s"),
        ("up to 1.8 TB/s.", "1.8 TB/s"),
        ("connects 72 GPUs", "72 GPUs"),
        ("announced in 2026.", "2026"),
        ("grew 50% a year", "50%"),
        ("grew 50 percent a year", "50%"),
        ("a $4.5 billion deal", "$4.5 billion"),
        ("a $4.5B deal", "$4.5 billion"),
        ("some 10,000 engineers", "10,000 engineers"),
        ("reaches 1.2 exaFLOPS", "1.2 exaFLOPS"),
        ("reaches 1.2 EFLOPS", "1.2 exaFLOPS"),
        ("the 6th generation of NVLink", "6th generation"),
        ("the sixth generation of NVLink", "6th generation"),
        ("the sixth-generation NVLink", "6th generation"),
        ("a 5th-gen part", "5th generation"),
        ("is 2x faster", "2×"),
        ("on a 3 nm process", "3 nm"),
        ("400G Ethernet", "400G"),
    ],
)
def test_it_finds_the_figure_with_its_unit(text: str, expected: str) -> None:
    assert [figure.text for figure in figures(text)] == [expected]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("3TB/s", "3 TB/s"),
        ("800 Gbps", "800 Gb/s"),
        ("800 Gbit/s", "800 Gb/s"),
        ("10,000", "10000"),
        ("1.2 exaflops", "1.2 exaFLOPS"),
        ("72 gpus", "72 GPUs"),
        ("sixth generation", "6th-generation"),
    ],
)
def test_differently_written_units_are_the_same_figure(one: str, other: str) -> None:
    assert [f.key for f in figures(one)] == [f.key for f in figures(other)]


@pytest.mark.parametrize(
    ("one", "other"),
    [("800 Gb/s", "800 GB/s"), ("3 TB/s", "3,000 GB/s"), ("3.0 TB/s", "3 TB/s"), ("72 GPUs", "72")],
)
def test_bits_bytes_other_units_and_other_digits_are_different_figures(
    one: str, other: str
) -> None:
    assert [f.key for f in figures(one)] != [f.key for f in figures(other)]


@pytest.mark.parametrize(
    "text", ["the H100 and GB200 NVL72", "4K video", "version v2", "at 25:38", "a 3:1 ratio"]
)
def test_names_clock_times_and_ratios_are_not_figures(text: str) -> None:
    assert figures(text) == []


def test_a_range_gives_both_ends_its_unit() -> None:
    assert [f.text for f in figures("from 1.8–3.6 TB/s")] == ["1.8 TB/s", "3.6 TB/s"]
    assert [f.text for f in figures("2 to 4 racks")] == ["2 racks", "4 racks"]


def test_a_figure_spans_its_place_in_the_text() -> None:
    text = "NVLink delivers 3TB/s per GPU."
    (figure,) = figures(text)
    assert text[figure.start : figure.end] == "3TB/s"


def test_the_figure_the_new_version_changed_is_gone() -> None:
    gone = figures_gone(readable_text(PAGE_V1, "text/html"), readable_text(PAGE_V2, "text/html"))
    assert gone == ["3 TB/s"]


def test_a_figure_that_moved_to_another_sentence_is_not_gone() -> None:
    confirmed = "NVLink delivers 3 TB/s per GPU. It connects 72 GPUs."
    current = "It connects 72 GPUs. Each GPU gets 3 TB/s of NVLink bandwidth."
    assert figures_gone(confirmed, current) == []


def test_an_unchanged_figure_in_a_reworded_sentence_is_not_gone() -> None:
    reworded = "In one rack, an NVLink Switch system joins 72 GPUs into one accelerator."
    assert figures_gone(ARTICLE_V1[2], reworded) == []


def test_a_figure_said_twice_and_now_once_is_gone_once() -> None:
    assert figures_gone("72 GPUs here. 72 GPUs there.", "72 GPUs here.") == ["72 GPUs"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789.,:%$ -–/xTBGbsKMPGUsgenrationthsixfh\n"))
def test_extracting_from_any_number_soup_never_raises_and_stays_in_the_text(text: str) -> None:
    found = figures(text)
    assert [f.start for f in found] == sorted(f.start for f in found)
    assert all(0 <= f.start < f.end <= len(text) and f.text for f in found)
    assert figures_gone(text, text) == []


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_extracting_from_any_text_never_raises(text: str) -> None:
    assert figures_gone(text, "") == [f.text for f in figures(text)]


def test_changing_a_returned_list_does_not_change_the_next_answer() -> None:
    figures("72 GPUs").clear()
    assert [figure.text for figure in figures("72 GPUs")] == ["72 GPUs"]
