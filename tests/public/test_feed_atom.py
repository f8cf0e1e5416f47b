"""The Atom feed as RFC 4287 requires it and as feed readers read it.

Each "MUST" of the RFC that our feed can break is checked on the served feed itself
(`atom_violations`), and feedparser, the parser most Python feed readers use, must read
it without flagging it (`bozo`): the demo's feed, an empty feed, and entries whose
terms, summaries and tags carry markup and ampersands.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET  # our own output, not untrusted input
from collections import Counter
from urllib.parse import urlsplit

import feedparser
import pytest

from tests.live import make_live_unchecked

ATOM_NS = "http://www.w3.org/2005/Atom"
A = f"{{{ATOM_NS}}}"

# RFC 3339 `date-time` (section 5.6), with the upper-case "T" and "Z" RFC 4287 3.3 asks for.
RFC3339 = re.compile(
    r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)"
    r"(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)\Z"
)
# One element or none, per RFC 4287 4.1.1 and 4.1.2.
FEED_AT_MOST_ONE = ("generator", "icon", "logo", "rights", "subtitle")
ENTRY_AT_MOST_ONE = ("content", "published", "rights", "source", "summary")


def _is_iri(value: str | None) -> bool:
    """An absolute IRI (RFC 3987): a scheme, and no characters an IRI cannot hold."""
    if not value or any(c in value for c in ' <>"{}|\\^`') or any(ord(c) < 0x21 for c in value):
        return False
    return bool(urlsplit(value).scheme)


def _children(element: ET.Element, name: str) -> list[ET.Element]:
    return element.findall(f"{A}{name}")


def _person_violations(where: str, person: ET.Element) -> list[str]:
    """RFC 4287 3.2: exactly one atom:name, at most one atom:uri (an IRI) and atom:email."""
    found = []
    if len(_children(person, "name")) != 1:
        found.append(f"{where}: a Person construct must hold exactly one atom:name")
    uris = _children(person, "uri")
    if len(uris) > 1 or (uris and not _is_iri(uris[0].text)):
        found.append(f"{where}: atom:uri must appear at most once and be an IRI")
    if len(_children(person, "email")) > 1:
        found.append(f"{where}: atom:email must appear at most once")
    return found


def _text_violations(where: str, element: ET.Element) -> list[str]:
    """RFC 4287 3.1: `type` is text, html or xhtml; xhtml content is one xhtml:div."""
    kind = element.get("type", "text")
    if kind not in {"text", "html", "xhtml"}:
        return [f"{where}: type must be text, html or xhtml, not {kind!r}"]
    if kind == "xhtml" and [c.tag for c in element] != ["{http://www.w3.org/1999/xhtml}div"]:
        return [f"{where}: xhtml text must be a single xhtml:div"]
    if kind != "xhtml" and len(element):
        return [f"{where}: {kind} text must not contain child elements"]
    return []


def _common_violations(where: str, element: ET.Element) -> list[str]:
    """What RFC 4287 requires of atom:feed and atom:entry alike."""
    found = []
    for name in ("id", "title", "updated"):
        if len(_children(element, name)) != 1:
            found.append(f"{where}: must contain exactly one atom:{name}")
    for ident in _children(element, "id"):
        if not _is_iri((ident.text or "").strip()):
            found.append(f"{where}: atom:id must be an IRI, not {ident.text!r}")
    for name in ("updated", "published"):
        for date in _children(element, name):
            if not RFC3339.match(date.text or ""):
                found.append(f"{where}: atom:{name} {date.text!r} is not an RFC 3339 date-time")
    for name in ("title", "subtitle", "summary", "rights"):
        for text in _children(element, name):
            found += _text_violations(f"{where} atom:{name}", text)
    alternates = Counter(
        (link.get("type"), link.get("hreflang"))
        for link in _children(element, "link")
        if link.get("rel", "alternate") == "alternate"
    )
    if any(n > 1 for n in alternates.values()):
        found.append(f"{where}: two rel=alternate links share a type and hreflang")
    for link in _children(element, "link"):
        if not link.get("href"):
            found.append(f"{where}: atom:link must have an href")
    for category in _children(element, "category"):
        if not category.get("term"):
            found.append(f"{where}: atom:category must have a term")
    for author in _children(element, "author") + _children(element, "contributor"):
        found += _person_violations(f"{where} atom:{author.tag.removeprefix(A)}", author)
    return found


def atom_violations(body: bytes) -> list[str]:
    """Every RFC 4287 MUST the document breaks, each naming where."""
    feed = ET.fromstring(body)  # noqa: S314
    if feed.tag != f"{A}feed":
        return [f"the document element is {feed.tag}, not atom:feed"]
    found = _common_violations("atom:feed", feed)
    for name in FEED_AT_MOST_ONE:
        if len(_children(feed, name)) > 1:
            found.append(f"atom:feed: at most one atom:{name}")
    entries = _children(feed, "entry")
    for n, entry in enumerate(entries, 1):
        where = f"atom:entry {n}"
        found += _common_violations(where, entry)
        for name in ENTRY_AT_MOST_ONE:
            if len(_children(entry, name)) > 1:
                found.append(f"{where}: at most one atom:{name}")
        content = _children(entry, "content")
        alternate = [
            link for link in _children(entry, "link") if link.get("rel", "alternate") == "alternate"
        ]
        if not content and not alternate:
            found.append(f"{where}: without atom:content it must have a rel=alternate link")
        if content and (content[0].get("src") or _is_base64(content[0])):
            if not _children(entry, "summary"):
                found.append(f"{where}: content by reference or in base64 needs atom:summary")
        source = entry.find(f"{A}source")
        authored = _children(entry, "author") or (
            source is not None and _children(source, "author")
        )
        if not authored and not _children(feed, "author"):
            found.append(f"{where}: no atom:author on the entry, its source or the feed")
    ids = Counter((e.findtext(f"{A}id") or "").strip() for e in entries)
    found += [f"atom:id {ident!r} names {n} entries" for ident, n in ids.items() if n > 1]
    return found


def _is_base64(content: ET.Element) -> bool:
    kind = content.get("type", "text")
    return kind not in {"text", "html", "xhtml"} and not (
        kind.startswith("text/") or kind.endswith("+xml") or kind.endswith("/xml")
    )


def feed_reader_problems(body: bytes) -> list[str]:
    """What feedparser makes of the feed: nothing flagged, everything a reader shows there."""
    parsed = feedparser.parse(body)
    found = []
    if parsed.bozo:
        found.append(f"feedparser flags the feed: {parsed.bozo_exception!r}")
    if parsed.version != "atom10":
        found.append(f"feedparser reads it as {parsed.version!r}, not Atom 1.0")
    if not parsed.feed.get("author_detail", {}).get("name"):
        found.append("feedparser finds no author for the feed")
    for entry in parsed.entries:
        for key in ("id", "title", "link", "updated_parsed"):
            if not entry.get(key):
                found.append(f"feedparser finds no {key} in entry {entry.get('id')!r}")
    return found


def served_feed(client) -> bytes:
    response = client.get("/feed/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    return response.content


def test_the_demo_feed_meets_every_must_of_rfc_4287(client, demo):
    body = served_feed(client)
    assert len(ET.fromstring(body).findall(f"{A}entry")) == 13  # noqa: S314
    assert atom_violations(body) == []


def test_feedparser_reads_the_demo_feed_without_flagging_it(client, demo):
    assert feed_reader_problems(served_feed(client)) == []


def test_the_feed_names_the_glossary_as_its_author(client, demo, settings):
    feed = ET.fromstring(served_feed(client))  # noqa: S314
    (author,) = feed.findall(f"{A}author")
    assert author.findtext(f"{A}name") == settings.PUBLIC_SITE_NAME
    assert author.findtext(f"{A}uri") == f"{settings.SITE_URL}/"
    assert feedparser.parse(served_feed(client)).feed.author == settings.PUBLIC_SITE_NAME


def test_an_empty_feed_is_still_a_valid_feed(client, db):
    body = served_feed(client)
    assert ET.fromstring(body).findall(f"{A}entry") == []  # noqa: S314
    assert atom_violations(body) == []
    assert feed_reader_problems(body) == []


def test_markup_and_ampersands_in_terms_summaries_and_tags_stay_valid(client, make_entry):
    entry = make_entry(
        "R&D <tax> credit",
        slug="r-and-d-tax-credit",
        summary='Costs & <b>benefits</b> of "R&D" ]]> spending, in café terms.',
    )
    entry.tags.set(["C++ & co", "naïve <tags>"])
    make_live_unchecked(entry)
    body = served_feed(client)
    assert atom_violations(body) == []
    assert feed_reader_problems(body) == []
    (item,) = feedparser.parse(body).entries
    assert item.title == "R&D <tax> credit"
    assert {tag.term for tag in item.tags} == {"C++ & co", "naïve <tags>"}


@pytest.mark.parametrize(
    ("mutation", "expected"),
    [
        # The feed's author gone, as before RFC 4287's rule was kept: every entry lacks one.
        (lambda x: re.sub(rb"<author>.*?</author>", b"", x, count=1), "no atom:author"),
        (lambda x: x.replace(b"<updated>", b"<updated>x", 1), "not an RFC 3339 date-time"),
        (lambda x: re.sub(rb"<entry><title>.*?</title>", b"<entry>", x, count=1), "atom:title"),
        (lambda x: re.sub(rb"<link [^>]*/><published>", b"<published>", x, count=1), "alternate"),
        (lambda x: x.replace(b'<category term="', b'<category label="', 1), "term"),
    ],
)
def test_the_check_reports_each_broken_must(client, demo, mutation, expected):
    broken = mutation(served_feed(client))
    assert any(expected in problem for problem in atom_violations(broken)), expected
