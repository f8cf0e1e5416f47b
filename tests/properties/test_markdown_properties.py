"""Markdown bodies: whatever an editor (or an attacker with an editor's password) types,
the rendered HTML carries no script, no event handler and no javascript:/data: link."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from glossary.markdown import markdown_to_text, render_markdown

ALLOWED = {
    "p",
    "br",
    "em",
    "strong",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "h2",
    "h3",
    "h4",
    "hr",
    "dfn",
    "abbr",
    "sub",
    "sup",
    "cite",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title", "rel"}, "abbr": {"title"}}
SAFE_SCHEMES = ("http:", "https:", "mailto:")

# Pieces of Markdown, HTML and the classic ways of smuggling script through a sanitiser.
FRAGMENTS = st.sampled_from(
    [
        "<script>alert(1)</script>",
        "<SCRIPT SRC=//x.example/x.js>",
        "<img src=x onerror=alert(1)>",
        "<svg onload=alert(1)>",
        "<iframe src=javascript:alert(1)>",
        "<style>*{}</style>",
        '<a href="javascript:alert(1)">x</a>',
        "<a href='jav&#x09;ascript:alert(1)'>x</a>",
        '<a href="&#106;avascript:alert(1)">x</a>',
        '<a href="data:text/html,<script>">x</a>',
        '<a href=" javascript:alert(1)" onclick="x()">x</a>',
        "<a href=vbscript:msgbox>x</a>",
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](java\tscript:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x]( javascript:alert(1) )",
        "[x](<javascript:alert(1)>)",
        "![x](javascript:alert(1))",
        "<javascript:alert(1)>",
        "[ref]: javascript:alert(1)\n\n[ref]",
        '[x](https://ok.example/"onmouseover="x)',
        "<div onmouseover=x>",
        '<p style="background:url(javascript:x)">',
        "<math><mi>",
        "<!-- <script> -->",
        "<![CDATA[<script>]]>",
        '<noscript><p title="</noscript><img src onerror=x>">',
        "**bold**",
        "_em_",
        "`code`",
        "```\n<script>\n```",
        "> quote",
        "- item",
        "1. item",
        "# H1",
        "## H2",
        "---",
        "[ok](https://ok.example/path?q=1)",
        "<mailto:a@b.example>",
        "&amp;",
        "&#0;",
        "\x00",
        "\n",
        "\n\n",
        " ",
        "\t",
        "\\",
        "<",
        ">",
        '"',
        "'",
        "=",
        "(",
        ")",
        "[",
        "]",
    ]
)
BODIES = st.one_of(
    st.lists(st.one_of(FRAGMENTS, st.text(max_size=8)), max_size=25).map("".join),
    st.text(max_size=500),
)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))


def elements(markup: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Elements()
    parser.feed(markup)
    parser.close()
    return parser.found


def _scheme(url: str) -> str:
    """The scheme a browser would see: entities decoded, controls and spaces dropped."""
    seen = re.sub(r"[\x00-\x20\x7f]", "", html.unescape(url)).lower()
    match = re.match(r"^([a-z][a-z0-9+.-]*):", seen)
    return f"{match.group(1)}:" if match else ""


@settings(max_examples=300)
@given(BODIES)
def test_rendered_markdown_is_never_unsafe_html(body: str) -> None:
    rendered = render_markdown(body)
    assert "<script" not in rendered.lower()
    assert "<style" not in rendered.lower()
    for tag, attrs in elements(rendered):
        assert tag in ALLOWED, (tag, rendered)
        for name, value in attrs:
            assert not name.startswith("on"), (name, rendered)
            assert name in ALLOWED_ATTRIBUTES.get(tag, set()), (tag, name, rendered)
            if name == "href" and value is not None:
                scheme = _scheme(value)
                assert scheme in ("", *SAFE_SCHEMES), (value, rendered)


@settings(max_examples=200)
@given(BODIES)
def test_the_plain_text_of_a_body_is_storable_and_adds_no_markup(body: str) -> None:
    # It is stored for search (EntryVersion.search_text): PostgreSQL text holds no NUL.
    text = markdown_to_text(body)
    assert "\x00" not in text
    if "<" not in body and "&" not in body:
        assert "<" not in text
