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
from html import unescape

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
_ROTATING = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"  # ISO datetimes
    r"|\b\d{1,2}:\d{2}(:\d{2})?\s*([ap]\.?m\.?)?\b",  # clock times
    re.I,
)


# Elements removed with their content in one pass; none of them nests in itself.
_OPAQUE = re.compile(
    r"<!--.*?-->|<(script|style|noscript|template|svg|iframe|object|canvas|title)\b.*?</\1\s*>",
    re.I | re.S,
)
# Possessive quantifiers: a tag's parse is unambiguous, so backtracking could never
# find another match, only waste time (the single-character form cost ~4 µs a tag).
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9:-]*+)((?:[^>\"']++|\"[^\"]*+\"|'[^']*+')*+)>")
_AD_ATTRIBUTE = re.compile(
    r"""\b(?:class|id)\s*=\s*["']?[^"'>]*?(?:^|[-_\s"'])(?:ad|ads|advert|advertisement|adslot|"""
    r"""adsbygoogle|sponsor|sponsored|promo|banner|dfp|gpt|doubleclick|taboola|outbrain|cookie|"""
    r"""newsletter|related|share|social|comments?|timestamp|clock|ticker)(?:[-_\s\d"']|$)"""
    r"""|\bdata-ad(?:-slot|-client)?\b|\bdata-google-query-id\b|\bhidden\b"""
    r"""|\baria-hidden\s*=\s*["']?true|\brole\s*=\s*["']?(?:banner|navigation|complementary)""",
    re.I,
)
_MAIN = re.compile(r"<(main|article)\b[^>]*>(.*)</\1\s*>", re.I | re.S)
_ANY_TAG = re.compile(r"<[^>]*>")


def _may_be_furniture(attrs: str) -> bool:
    """A cheap pre-check for _AD_ATTRIBUTE: False only when it cannot match.

    Every alternative of _AD_ATTRIBUTE contains one of these words. Only for
    ASCII: re.IGNORECASE also matches a few non-ASCII letters (the long s, the
    Kelvin sign) that str.lower() leaves alone.
    """
    if not attrs.isascii():
        return True
    low = attrs.lower()
    return "class" in low or "id" in low or "hidden" in low or "role" in low or "data-ad" in low


def _drop_furniture(html: str) -> str:
    """Remove skipped elements (nav, ads, ...) with everything inside them."""
    kept: list[str] = []
    position = 0
    skipping: str | None = None
    depth = 0
    for match in _TAG.finditer(html):
        closing, name, attrs = match.groups()
        if skipping is not None:
            if name.lower() == skipping:
                if closing:
                    depth -= 1
                    if depth == 0:
                        skipping = None
                        position = match.end()
                elif not attrs.endswith("/"):
                    depth += 1
            continue
        if closing:  # the common case first: a closing tag never starts a skip
            continue
        name = name.lower()
        if name in _SKIP_TAGS:
            if attrs.endswith("/"):
                continue
        elif (
            not attrs
            or name in _VOID_TAGS
            or attrs.endswith("/")
            or not _may_be_furniture(attrs)
            or not _AD_ATTRIBUTE.search(attrs)
        ):
            continue
        kept.append(html[position : match.start()])
        skipping, depth = name, 1
    if skipping is None:
        kept.append(html[position:])
    return "".join(kept)


def normalise(text: str) -> str:
    if ":" in text:  # every _ROTATING alternative has a colon
        text = _ROTATING.sub(" ", text)
    # str.split() splits on exactly what \s matches (str.isspace), so this equals
    # re.sub(r"\s+", " ", text).strip(), at a fraction of the cost.
    return " ".join(text.split()).casefold()


def main_text(html: str) -> str:
    """The normalised main text of an HTML document."""
    text = _drop_furniture(_OPAQUE.sub(" ", html))
    main = _MAIN.search(text)
    if main is not None:
        text = main.group(2)
    return normalise(unescape(_ANY_TAG.sub(" ", text)))


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
