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

from glossary.search import _marker, mark_html

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
