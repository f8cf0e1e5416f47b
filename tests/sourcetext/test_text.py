"""The stored text of a page is its main text as readable lines, by the fingerprint's rules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editorial.linkcheck.fingerprint import fingerprint, main_text
from editorial.sourcetext.text import UnsupportedContent, readable_text
from tests.linkcheck.test_fingerprint import PINNED_PAGE
from tests.sourcetext.pages import ARTICLE_V1, PAGE_V1, vendor_page


def squash(text: str) -> str:
    return "".join(text.split()).casefold()


def test_it_keeps_the_articles_sentences_with_their_case_numbers_and_units() -> None:
    lines = readable_text(PAGE_V1, "text/html").splitlines()
    assert (
        "The sixth generation of NVLink delivers 3 TB/s of bandwidth per GPU on the Vera "
        "Rubin platform."
    ) in lines
    assert lines[0] == "NVLink and NVLink Switch"


def test_it_drops_navigation_ads_cookie_banners_asides_and_footers() -> None:
    text = readable_text(PAGE_V1, "text/html")
    for furniture in ("Data Center", "Buy DGX", "cookies", "Related:", "Copyright", "dataLayer"):
        assert furniture not in text


def test_each_paragraph_heading_list_item_and_table_row_is_a_line_of_its_own() -> None:
    lines = readable_text(PAGE_V1, "text/html").splitlines()
    assert lines[2 : 2 + len(ARTICLE_V1)] == ARTICLE_V1
    assert "Fifth 1.8 TB/s" in lines  # a table row reads as one line, cells apart
    assert lines[-2:] == ["Scale-up networking", "Rack-scale NVLink domains"]


def test_inline_tags_join_words_as_a_browser_shows_them() -> None:
    html = "<main><p>NV<b>Link</b> runs at <em>1.8</em> TB/s and <a href=x>more</a>.</p></main>"
    assert readable_text(html, "text/html") == "NVLink runs at 1.8 TB/s and more."


def test_superscripts_and_table_cells_stay_apart_from_their_neighbours() -> None:
    html = "<main><p>Up to 3 TB/s<sup>1</sup></p><table><tr><td>a</td><td>b</td></tr></main>"
    assert readable_text(html, "text/html") == "Up to 3 TB/s 1\na b"


def test_clock_times_and_timestamps_are_dropped_but_the_block_after_them_is_kept() -> None:
    html = "<main><p>Updated 10:15 pm</p><p>Seen 2026-11-30T06:20:00Z.</p><p>Next.</p></main>"
    assert readable_text(html, "text/html") == "Updated\nSeen.\nNext."


def test_pages_with_the_same_fingerprint_store_the_same_text() -> None:
    other = vendor_page(ARTICLE_V1, ad="Buy HGX now", clock="22:47")
    assert fingerprint(other) == fingerprint(PAGE_V1)
    assert readable_text(other, "text/html") == readable_text(PAGE_V1, "text/html")


def test_a_changed_sentence_changes_the_stored_text() -> None:
    changed = vendor_page([*ARTICLE_V1[:-1], "Partners include Wistron."])
    assert readable_text(changed, "text/html") != readable_text(PAGE_V1, "text/html")


@pytest.mark.parametrize("page", [PAGE_V1, PINNED_PAGE], ids=["vendor", "pinned"])
def test_it_has_the_fingerprints_characters_apart_from_whitespace_and_case(page: str) -> None:
    assert squash(readable_text(page, "text/html")) == squash(main_text(page))


_FRAGMENTS = st.sampled_from(
    [
        "<p>",
        "</p>",
        "<main>",
        "</main>",
        "<article>",
        "<nav>",
        "</nav>",
        "<b>",
        "</b>",
        "<br>",
        "<td>",
        '<div class="ad">',
        "</div>",
        "<script>",
        "</script>",
        "<!--",
        "-->",
        "<",
        ">",
        "&amp;",
        "&#10;",
        "&lt;p&gt;",
        " ",
        "\n",
        "10:15",
        " pm",
        "2026-11-30",
        "T09:00:00Z",
        " 09:00",
        "3.6 TB/s",
        "Word.",
        "\x01",
        "\ue000",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_FRAGMENTS, st.text(max_size=8)), max_size=40))
def test_any_markup_keeps_the_fingerprints_characters(parts: list[str]) -> None:
    html = "".join(parts)
    assert squash(readable_text(html, "text/html")) == squash(main_text(html))


def test_plain_text_joins_soft_wrapped_lines_into_paragraphs() -> None:
    rfc = (
        "1.  Introduction\n\n   The network carries\n   800 Gb/s per port.\r\n\r\nNext at 10:15.\n"
    )
    assert readable_text(rfc, "text/plain; charset=utf-8") == (
        "1. Introduction\nThe network carries 800 Gb/s per port.\nNext at ."
    )


def test_a_content_type_with_parameters_is_read_by_its_media_type() -> None:
    assert readable_text("<p>Hi.</p>", "Text/HTML; charset=UTF-8") == "Hi."
    assert readable_text("<p>Hi.</p>", "application/xhtml+xml") == "Hi."


def test_a_response_that_is_not_text_is_refused_with_its_type_named() -> None:
    with pytest.raises(UnsupportedContent, match="'application/pdf'"):
        readable_text("%PDF-1.7", "application/pdf")
