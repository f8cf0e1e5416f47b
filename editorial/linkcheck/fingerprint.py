"""A fingerprint of a page's main text, stable under markup, ads and clocks.

Editors care whether the *words* of a source changed since they confirmed it,
so the fingerprint ignores markup, scripts and styles, navigation chrome, ad
slots (by the conventional class/id/attribute markers), whitespace and
rotating bits like clock times and ISO timestamps. When the page has a
<main> or <article>, only that is used: sidebars and footers churn.
"""

from __future__ import annotations

import hashlib
import re
from html.parser import HTMLParser

# Elements whose content is never main text.
_SKIP_TAGS = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "iframe",
        "object",
        "canvas",
        "nav",
        "header",
        "footer",
        "aside",
        "form",
        "button",
        "select",
        "ins",  # AdSense and most ad servers fill <ins> slots
    }
)
_VOID_TAGS = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    }
)
_MAIN_TAGS = frozenset({"main", "article"})
# Class/id tokens that mark ad slots and other rotating furniture.
_AD_TOKEN = re.compile(
    r"(^|[-_\s])(ad|ads|advert|advertisement|adslot|ad-slot|adsbygoogle|sponsor|sponsored|"
    r"promo|banner|dfp|gpt|doubleclick|taboola|outbrain|cookie|newsletter|related|"
    r"share|social|comments?|timestamp|clock|ticker)([-_\s\d]|$)",
    re.I,
)
_AD_ATTRS = ("data-ad", "data-ad-slot", "data-ad-client", "data-google-query-id")
_ROTATING = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"  # ISO datetimes
    r"|\b\d{1,2}:\d{2}(:\d{2})?\s*([ap]\.?m\.?)?\b",  # clock times
    re.I,
)
_SPACE = re.compile(r"\s+")


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.body_parts: list[str] = []
        self.main_parts: list[str] = []
        self._skip_stack: list[str] = []
        self._main_depth = 0
        self._title = False

    def _is_ad(self, attrs: list[tuple[str, str | None]]) -> bool:
        for name, value in attrs:
            if name in _AD_ATTRS:
                return True
            if name in ("class", "id") and value and _AD_TOKEN.search(value):
                return True
            if name == "role" and value in ("banner", "navigation", "complementary"):
                return True
            if name == "hidden" or (name == "aria-hidden" and value == "true"):
                return True
        return False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID_TAGS:
            return
        if self._skip_stack:
            self._skip_stack.append(tag)
            return
        if tag in _SKIP_TAGS or self._is_ad(attrs):
            self._skip_stack.append(tag)
            return
        if tag in _MAIN_TAGS:
            self._main_depth += 1
        elif tag == "title":
            self._title = True

    def handle_endtag(self, tag: str) -> None:
        if self._skip_stack:
            # Pop to the matching open tag; tolerate unclosed children.
            if tag in self._skip_stack:
                while self._skip_stack and self._skip_stack.pop() != tag:
                    pass
            return
        if tag in _MAIN_TAGS and self._main_depth:
            self._main_depth -= 1
        elif tag == "title":
            self._title = False

    def handle_data(self, data: str) -> None:
        if self._skip_stack or self._title:
            return
        self.body_parts.append(data)
        if self._main_depth:
            self.main_parts.append(data)


def normalise(text: str) -> str:
    text = _ROTATING.sub(" ", text)
    return _SPACE.sub(" ", text).strip().casefold()


def main_text(html: str) -> str:
    """The normalised main text of an HTML document."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    parts = parser.main_parts or parser.body_parts
    return normalise(" ".join(parts))


def fingerprint_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint(body: bytes | str, content_type: str = "text/html") -> str:
    """Fingerprint a (possibly truncated) response body; empty text gives ""."""
    text = body if isinstance(body, str) else body.decode("utf-8", errors="replace")
    if "html" in content_type or "xml" in content_type:
        normalised = main_text(text)
    else:
        normalised = normalise(text)
    return fingerprint_text(normalised) if normalised else ""
