"""A page's main text as readable lines, for storing and comparing versions.

The fingerprint (``editorial.linkcheck.fingerprint``) decides *whether* a
page's words changed; this module keeps the words themselves so editors can see
*what* changed. Both use the same rules for what the main text is (``<main>`` or
``<article>`` when present; no scripts, navigation, ads, hidden elements, clock
times or ISO timestamps), so the contract is::

    squash(readable_text(html, "text/html")) == squash(main_text(html))

where ``squash`` drops all whitespace and casefolds: the readable text has the
fingerprint's characters in the same order, so two pages with the same
fingerprint store the same text modulo whitespace and letter case. Only
whitespace differs: the readable text keeps case, every block element
(paragraph, heading, list item, table row, ``<br>``) starts a new line, inline
tags join words as a browser shows them ("<b>NV</b>Link" is "NVLink", where the
fingerprint's text has "nv link"), and no space is left before punctuation.

Lines are not split into sentences here: the stored text (and so its content
hash) must not change when the sentence splitter in ``diff.py`` improves.
"""

from __future__ import annotations

import re
from html import unescape

# Reused, not copied: the main-text rules must stay identical to the fingerprint's.
from editorial.linkcheck.fingerprint import (
    _ANY_TAG,
    _MAIN,
    _OPAQUE,
    _ROTATING,
    _drop_furniture,
)

# Elements that start a new line of readable text. Table cells are not among
# them: a specification row ("Bandwidth per GPU | 3.6 TB/s") reads as one line.
_BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "blockquote",
        "body",
        "br",
        "caption",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hgroup",
        "hr",
        "html",
        "legend",
        "li",
        "main",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "tfoot",
        "thead",
        "tr",
        "ul",
    }
)
# Inline elements that a browser shows apart from their neighbours; every other inline
# tag (a, b, em, span, code, ...) joins its text to the next as a browser renders it.
_SPACED_TAGS = frozenset({"td", "th", "sup", "sub", "img", "input", "label", "option"})
_SPACE_BEFORE_PUNCTUATION = re.compile(r"(?<=\w) +(?=[.,;:!?](?: |$))")
_TAG_NAME = re.compile(r"</?\s*([a-zA-Z][a-zA-Z0-9]*)")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")


class UnsupportedContent(ValueError):
    """The response is not text this module can read (a PDF, an image, ...)."""


def readable_text(html: str, content_type: str) -> str:
    """The main text of a response body, one block (paragraph, heading, row) a line.

    ``content_type`` is the response's Content-Type: HTML and XML get the main-text
    rules; ``text/*`` (or an empty type) is read as plain text, where blank lines
    separate paragraphs and single newlines are soft wraps (RFC-style text).
    Whitespace inside a line is collapsed to single spaces, empty lines dropped.
    Raises ``UnsupportedContent`` for any other type, naming it.
    """
    kind = content_type.split(";", 1)[0].strip().lower()
    if "html" in kind or "xml" in kind:
        return _html_text(html)
    if kind.startswith("text/") or not kind:
        return _plain_text(html)
    raise UnsupportedContent(f"cannot read text from a {kind!r} response")


def _main_region(html: str) -> str:
    """The markup the fingerprint reads: furniture dropped, <main>/<article> if any."""
    text = _drop_furniture(_OPAQUE.sub(" ", html))
    main = _MAIN.search(text)
    return main.group(2) if main is not None else text


def _html_text(html: str) -> str:
    region = _main_region(html)
    marks = _unused_characters(region, 2)
    if marks is None:  # the page uses every candidate: one line still holds the right words
        return _tidy(" ".join(_without_rotating(unescape(_ANY_TAG.sub(" ", region))).split()))
    block, inline = marks

    def replace(tag: re.Match[str]) -> str:
        name = _TAG_NAME.match(tag.group())
        if name is None:
            return " "
        name_lower = name.group(1).lower()
        if name_lower in _BLOCK_TAGS:
            return block
        return " " if name_lower in _SPACED_TAGS else inline

    # Two strings of equal length: the fingerprint's (every tag one space) and ours
    # (one marker per tag). Clock times are found in the first, exactly where the
    # fingerprint finds them, and cut from the second at the same offsets.
    spaced = unescape(_ANY_TAG.sub(" ", region))
    marked = unescape(_ANY_TAG.sub(replace, region))
    if len(spaced) != len(marked):  # unescape treats a space and a marker alike
        raise RuntimeError("readable text lost alignment with the fingerprint's text")
    text = _cut_rotating(marked, spaced, block).replace(inline, "")
    lines = (_tidy(" ".join(part.split())) for part in text.split(block))
    return "\n".join(line for line in lines if line)


def _plain_text(text: str) -> str:
    text = _without_rotating(text.replace("\r\n", "\n").replace("\r", "\n"))
    paragraphs = (" ".join(part.split()) for part in _PARAGRAPH_BREAK.split(text))
    return "\n".join(paragraph for paragraph in paragraphs if paragraph)


def _unused_characters(text: str, count: int) -> tuple[str, ...] | None:
    # Control characters first (invalid in HTML, so practically never present), then
    # private-use code points.
    found = [chr(code) for code in (1, 2, *range(0xE000, 0xE100)) if chr(code) not in text]
    return tuple(found[:count]) if len(found) >= count else None


def _tidy(line: str) -> str:
    """Drop the space an inline tag or source indentation left before punctuation."""
    return _SPACE_BEFORE_PUNCTUATION.sub("", line) if " " in line else line


def _without_rotating(text: str) -> str:
    return _ROTATING.sub(" ", text) if ":" in text else text


def _cut_rotating(marked: str, spaced: str, block: str) -> str:
    if ":" not in spaced:
        return marked
    pieces: list[str] = []
    position = 0
    for match in _ROTATING.finditer(spaced):
        pieces.append(marked[position : match.start()])
        # A clock's match runs on over trailing whitespace, where block tags may be.
        pieces.append(block if block in marked[match.start() : match.end()] else " ")
        position = match.end()
    pieces.append(marked[position:])
    return "".join(pieces)
