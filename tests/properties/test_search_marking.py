"""Marking a search hit's matches in text already escaped as HTML marks exactly what
marking the text itself, then escaping it, marks: no match inside a character reference
("&amp;", "&#x27;"), none lost beside one.

The reference below is how the search page marked text before it marked the escaped
summary in place (escape each part between the matches, then join them).
"""

from __future__ import annotations

import re
from html import escape

from hypothesis import given, settings
from hypothesis import strategies as st

from glossary.search import _first_match, _marked, _marker, mark_html

_MARK = "<mark>{}</mark>"


def marked_then_escaped(text: str, pattern: re.Pattern[str]) -> str:
    out, last = [], 0
    for match in pattern.finditer(text):
        out += [escape(text[last : match.start()]), _MARK.format(escape(match.group()))]
        last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)


# The characters escaping turns into references, the names of those references, words
# the query can be, and anything else.
PIECES = st.sampled_from(
    ["&", "<", ">", '"', "'", "#", ";", "amp", "lt", "gt", "quot", "x27", "27", "x", " ", "\n"]
    + ["route", "routing", "Routes", "système", "HBM", "é", "_", "9"]
)
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=30).map("".join)
QUERIES = st.lists(
    st.sampled_from(["amp", "lt", "quot", "x27", "27", "routing", "hbm", "système", "-amp", "or"]),
    min_size=1,
    max_size=3,
).map(" ".join)


@settings(max_examples=400)
@given(TEXTS, QUERIES)
def test_marking_escaped_text_marks_what_marking_the_text_marks(text: str, q: str) -> None:
    marker = _marker(q)
    if marker is None:
        return
    assert mark_html(escape(text), marker) == marked_then_escaped(text, marker.in_text)


def test_a_reference_is_never_marked_and_the_word_beside_it_is() -> None:
    marker = _marker("amp quot x27 routing")
    assert marker is not None
    html = escape('R&D\'s "routing" & amplifiers')
    assert mark_html(html, marker) == (
        "R&amp;D&#x27;s &quot;<mark>routing</mark>&quot; &amp; <mark>amplifiers</mark>"
    )


# Text a transcript or a body holds, ASCII or not: words the stems start or end, and the
# letters case-insensitive matching pairs with others ("ſ" with "s", "K" the Kelvin sign
# with "k").
WORDY = st.lists(
    st.one_of(
        st.sampled_from(
            ["route", "ROUTING", "Routes", "sub", "subroute", "_route", "9route", "ſ", "K", " "]
        ),
        st.sampled_from([".", "\n", "-", "'", "&", "&#", "é", "ß", "İ"]),
        st.text(max_size=2),
    ),
    max_size=25,
).map("".join)
WORD_QUERIES = st.sampled_from(["route", "routing", "sub", "k", "s", "ſub", "routes or sub"])


@settings(max_examples=400)
@given(WORDY, WORD_QUERIES)
def test_the_first_match_is_where_the_words_pattern_first_matches(text: str, q: str) -> None:
    marker = _marker(q)
    assert marker is not None
    found = marker.in_text.search(text)
    assert _first_match(text, marker) == (None if found is None else found.span())


def test_one_ascii_word_is_searched_plainly_and_anything_else_by_its_pattern() -> None:
    assert _marker("Routing").stem == "rout"
    assert _marker("routing or sub").stem is None
    assert _marker("système").stem is None
    marker = _marker("sub")
    assert marker is not None
    assert _first_match("a subroute", marker) == (2, 10)
    assert _first_match("x_sub a-sub", marker) == (8, 11)
    # In the text itself "&" is a character like any other: a word starts after it.
    assert _first_match("R&sub", marker) == (2, 5)
    assert _first_match("ſubject", marker) == (0, 7)  # not ASCII: the pattern decides


# ASCII text as a summary or a passage holds it once escaped: words the stems start, end or
# sit inside, references on either side of them, and what starts one without being one.
ESCAPED_ASCII = st.lists(
    st.sampled_from(
        ["route", "ROUTING", "subroute", "_route", "9route", "amp", "Amplify", "x27", "27"]
        + ["&", "&amp;", "&#", "&#x27;", "&lt;", "#", ";", " ", "\n", "-", ".", "<mark>"]
    ),
    max_size=25,
).map("".join)
ONE_WORD = st.sampled_from(["route", "routing", "amp", "x27", "27", "a", "r", "_rout"])


@settings(max_examples=400)
@given(ESCAPED_ASCII, ONE_WORD)
def test_one_ascii_word_marks_what_its_pattern_marks(html: str, q: str) -> None:
    marker = _marker(q)
    assert marker is not None and marker.stem is not None
    assert mark_html(html, marker) == marker.in_html.sub(_marked, html)


def test_a_word_at_the_start_or_after_a_reference_is_marked_and_none_inside_one() -> None:
    marker = _marker("amp")
    assert marker is not None
    assert mark_html("Amps &amp;amp &#amp x&amp;", marker) == (
        "<mark>Amps</mark> &amp;<mark>amp</mark> &#amp x&amp;"
    )
    assert mark_html("amp&#", marker) == "<mark>amp</mark>&#"
