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

# Where a streamed body may be complete for the fingerprint (see `text_end`).
END_MARK = re.compile(rb"</(?:main|body|html)\s*>", re.I)
# The longest END_MARK match a chunk boundary could split, give or take whitespace.
END_MARK_OVERLAP = 32
# An opaque element or comment left open: it may hide (or swallow) a later end tag.
_OPAQUE_OPEN = re.compile(
    r"<!--|<(?:script|style|noscript|template|svg|iframe|object|canvas|title)\b", re.I
)
_ARTICLE_OPEN = re.compile(r"<article\b", re.I)
_END_TAG = re.compile(r"</(main|body|html)\s*>\Z", re.I)


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
    """Remove skipped elements (nav, ads, ...) with everything inside them.

    `_TAG.split` cuts the page into text and tag parts in one call (the tag is
    rebuilt from its groups only when kept), which is much cheaper than a
    match object per tag; the output is the same as matching tag by tag.
    """
    parts = _TAG.split(html)
    if len(parts) == 1:
        return html
    kept = [parts[0]]
    skipping: str | None = None
    depth = 0
    for i in range(1, len(parts), 4):
        closing, name, attrs = parts[i], parts[i + 1], parts[i + 2]
        if skipping is not None:
            if name.lower() == skipping:
                if closing:
                    depth -= 1
                    if depth == 0:
                        skipping = None
                        kept.append(parts[i + 3])
                elif not attrs.endswith("/"):
                    depth += 1
            continue
        if not closing:  # a closing tag never starts a skip
            low = name.lower()
            if low in _SKIP_TAGS:
                starts = not attrs.endswith("/")
            else:
                starts = (
                    bool(attrs)
                    and low not in _VOID_TAGS
                    and not attrs.endswith("/")
                    and _may_be_furniture(attrs)
                    and _AD_ATTRIBUTE.search(attrs) is not None
                )
            if starts:
                skipping, depth = low, 1
                continue
        kept.append(f"<{closing}{name}{attrs}>")
        kept.append(parts[i + 3])
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


def text_complete(html: str) -> bool:
    """True when `html`, a prefix of a page that ends with `</main>`, `</body>` or
    `</html>`, already holds all the text the fingerprint reads.

    Then the rest of the body need not be read: `fingerprint(html)` equals the
    fingerprint of the whole page whenever the page has one visible `<main>`
    (what HTML allows), or, for `</body>` and `</html>`, whenever nothing but
    markup, scripts, styles, comments or whitespace follows the end of the
    document (what browsers and servers send). A prefix whose end tag may not be
    real is never complete: one inside a comment or script that is still open,
    or a `</main>` that `main_text` would not end the main text at (it sits in
    an ad or navigation block, or an `<article>` opened before `<main>` may
    still be closed after it).
    """
    end = _END_TAG.search(html)
    if end is None:
        return False
    opaque_removed = _OPAQUE.sub(" ", html)
    if _OPAQUE_OPEN.search(opaque_removed) is not None:
        return False
    if end.group(1).lower() != "main":
        return True
    kept = _drop_furniture(opaque_removed)
    if not _END_TAG.search(kept):
        return False  # this </main> closes a skipped block, not the main text
    main = _MAIN.search(kept)
    if main is None or main.group(1).lower() != "main" or main.end() != len(kept):
        return False
    # <article> wrapping <main>: main_text would take the whole article.
    return _ARTICLE_OPEN.search(kept, 0, main.start()) is None


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
