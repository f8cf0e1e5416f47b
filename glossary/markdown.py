"""Markdown to safe HTML: the body is rendered, then sanitised by an allow-list."""

import functools
import html

import nh3
from markdown_it import MarkdownIt

_md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
# The same parser with HTML recognised, only to find what `_md` shows as literal text.
_html_finder = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False})

_ALLOWED_TAGS = {
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
_ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}}


# Publishing renders a body for the page, the API answer and the search text in turn:
# the same text, rendered once. Pure, so a cache cannot serve anything stale.
@functools.lru_cache(maxsize=256)
def render_markdown(text: str) -> str:
    """Render editor Markdown; scripts, event handlers and javascript: links never survive."""
    html = _md.render(text or "")
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )


def markdown_to_text(text: str) -> str:
    """Plain text of the rendered body, for search and meta descriptions."""
    return html.unescape(nh3.clean(render_markdown(text), tags=set())).strip()


def raw_html_in(text: str) -> list[str]:
    """The raw HTML in `text` (outside code), which the page shows as literal text, in order."""
    found: list[str] = []
    for token in _html_finder.parse(text or ""):
        if token.type == "html_block":
            found.append(token.content.strip())
        for child in token.children or []:
            if child.type == "html_inline":
                found.append(child.content)
    return found
