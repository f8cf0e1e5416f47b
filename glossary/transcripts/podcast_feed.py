"""Read a podcast's RSS feed: its episodes, their audio, transcripts, chapters and people.

RSS 2.0 (and the RSS 0.91 and userland-namespaced feeds old hosts still serve) with the
iTunes, Podcasting 2.0 (`podcast:`), Media RSS (`media:content`) and Podlove Simple
Chapters (`psc:`) namespaces, read once, streaming, with defusedxml's SAX parser, so
that every value keeps the line it came from and no entity is ever expanded or fetched
(entity declarations are refused outright; an external DTD is never read).

Bounded: only the elements read here are kept, each `<item>` is turned into a
`FeedItem` as it closes and its elements dropped, and a feed with more than
`MAX_ELEMENTS` elements or nested deeper than `MAX_DEPTH` is refused as the parser
reaches that point. A feed under `FEED_MAX_BYTES` (16 MiB) costs tens of megabytes,
whatever it holds (tests/feeds/test_bounds.py).

Why not feedparser: it keeps only the last of repeated `podcast:transcript` and
`podcast:person` elements and merges their attributes, drops the text of
`podcast:season`, and reports no line numbers. On a 500-episode feed (434 KB) it took
0.59 s where `parse_feed` takes 0.12 s on this machine. It also misread
"Tuesday, 14 October 2025 9:00 AM EST" as 9:00 UTC and could not read
"Tue, 14 Oct 2025 09:00:00" at all; the standard library's RFC 5322 parser reads both.

`parse_feed` returns a whole `Feed` or raises `FeedError`; nothing partial. A value an
episode can do without (a season, episode number or duration that is negative, not a
number or 400 digits long; a chapter without a readable start) is not a refused feed:
it is left out and said in that item's `warnings`, naming the line.

Third-party text (titles, people's names, chapter titles) is read through
`inbound.strip_invisible`: no bidirectional override or zero-width character reaches
the desk from a feed.
"""

from __future__ import annotations

import datetime
import email.utils
import html.entities
import io
import re
import xml.sax
import xml.sax.handler
import xml.sax.xmlreader
from dataclasses import dataclass
from typing import Any, cast
from xml.parsers import expat

import defusedxml
import defusedxml.expatreader

from glossary.inbound import strip_invisible
from glossary.timestamps import TimestampError, parse_timestamp
from glossary.transcripts.chapters import Chapter

ITUNES = "itunes"
PODCAST = "podcast"
MEDIA = "media"
PSC = "psc"
# Namespace URIs as feeds write them; compared lower-cased without a trailing slash. The
# GitHub address is the one the podcast namespace used before podcastindex.org.
_NAMESPACES = {
    "http://www.itunes.com/dtds/podcast-1.0.dtd": ITUNES,
    "https://podcastindex.org/namespace/1.0": PODCAST,
    "http://podcastindex.org/namespace/1.0": PODCAST,
    "https://github.com/podcastindex-org/podcast-namespace/blob/main/docs/1.0.md": PODCAST,
    "http://search.yahoo.com/mrss": MEDIA,
    "https://search.yahoo.com/mrss": MEDIA,
    "http://podlove.org/simple-chapters": PSC,
    # UserLand's namespace for RSS 2.0 (2002), withdrawn since: the same elements as
    # RSS 2.0 without a namespace, so read as exactly that (docs/feeds.md).
    "http://backend.userland.com/rss2": "",
    "http://blogs.law.harvard.edu/tech/rss": "",
}

# Far more than any podcast's feed holds (a 3,000-episode feed of a big host is about
# 90,000 elements), and few enough that the kept items stay within tens of megabytes.
MAX_ELEMENTS = 500_000
# RSS nests five deep (rss, channel, item, media:group, media:content); HTML written as
# elements inside show notes adds a few more.
MAX_DEPTH = 64
# No value the import reads (a title, a guid, a name, a date) is anywhere near this long;
# longer text in a read element is refused before it is held, let alone split or copied.
MAX_TEXT = 100_000
# Expat holds a start tag's attributes, and the SAX layer a dict of them, before any code
# here runs: 16 MiB of `a1='' a2='' ...` in one tag is 2.8 million of them and half a
# gigabyte. No element of a feed carries more than a dozen.
MAX_ATTRIBUTES = 10_000
# A start tag holds no "<"; one with MAX_ATTRIBUTES attributes (`a=''` and a space, at
# the least) is a stretch of 50,000 bytes without one, after a "<".
_LONG_STRETCH = re.compile(rb"<[^<]{50000,}")
_CROWDED_TAG = re.compile(
    rb"<[^\s<>/!?]+(?:\s+[^\s=<>/]+\s*=\s*(?:\"[^\"<]*\"|'[^'<]*')){%d}" % (MAX_ATTRIBUTES + 1)
)

# The elements read, by where they stand: anything else is counted and passed over.
_CHANNEL = {("", "title"), ("", "link"), (PODCAST, "person"), ("", "item")}
_ITEM = {
    ("", "title"),
    (ITUNES, "title"),
    ("", "guid"),
    ("", "pubDate"),
    ("", "link"),
    ("", "enclosure"),
    (ITUNES, "duration"),
    (ITUNES, "season"),
    (ITUNES, "episode"),
    (PODCAST, "season"),
    (PODCAST, "episode"),
    (PODCAST, "transcript"),
    (PODCAST, "chapters"),
    (PODCAST, "person"),
    (MEDIA, "content"),
    (MEDIA, "group"),
    (PSC, "chapters"),
}
_KEPT_UNDER = {
    ("", "rss"): {("", "channel")},
    ("", "channel"): _CHANNEL,
    ("", "item"): _ITEM,
    (MEDIA, "group"): {(MEDIA, "content")},
    (PSC, "chapters"): {(PSC, "chapter")},
}
# Netscape's RSS 0.91 DTD, which old feeds name in their DOCTYPE, defines the HTML
# Latin-1 entities (&eacute; and the like). It is never fetched: they are known here.
NETSCAPE_091 = "-//Netscape Communications//DTD RSS 0.91//EN"
_LATIN1_ENTITIES = {
    name: chr(point) for name, point in html.entities.name2codepoint.items() if 160 <= point <= 255
}


class FeedError(ValueError):
    """The feed cannot be imported. The message names the element and, where known, the line
    ("line 14: <guid> 'a' repeats the guid of the item at line 9")."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


@dataclass(frozen=True, slots=True)
class Person:
    """A `podcast:person`. Role and group default to the namespace's "host" and "cast", and
    are lower-cased (the namespace treats them case-insensitively)."""

    name: str
    role: str = "host"
    group: str = "cast"
    href: str | None = None
    img: str | None = None


@dataclass(frozen=True, slots=True)
class Enclosure:
    """The episode's audio: `<enclosure>`, else an audio `<media:content>`."""

    url: str
    type: str | None
    length: int | None  # bytes; feeds often write 0 when they do not know


@dataclass(frozen=True, slots=True)
class TranscriptLink:
    """A `podcast:transcript`: where the file is and what it says it is (`text/vtt`,
    `application/x-subrip`, `application/json`, ...). Never fetched here."""

    url: str
    type: str
    language: str | None = None
    rel: str | None = None


@dataclass(frozen=True, slots=True)
class ChaptersLink:
    url: str
    type: str


@dataclass(frozen=True, slots=True)
class FeedItem:
    """One episode. `duration` is whole seconds; `published` is timezone-aware (UTC when the
    feed gives no zone); season and episode come from `itunes:` or `podcast:` elements.
    `inline_chapters` are the item's Podlove Simple Chapters; `warnings` what was left
    out of it, each naming its line, and `unreadable` which of "season", "episode" and
    "duration" the item gave but could not be read."""

    title: str
    guid: str
    line: int  # where the <item> starts, for messages about it later
    published: datetime.datetime | None = None
    duration: int | None = None
    season: int | None = None
    episode: int | None = None
    link: str | None = None
    enclosure: Enclosure | None = None
    transcripts: tuple[TranscriptLink, ...] = ()
    chapters: ChaptersLink | None = None
    persons: tuple[Person, ...] = ()
    inline_chapters: tuple[Chapter, ...] = ()
    warnings: tuple[str, ...] = ()
    unreadable: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Feed:
    title: str
    link: str | None
    persons: tuple[Person, ...]
    items: tuple[FeedItem, ...]


def parse_feed(data: bytes) -> Feed:
    """Read an RSS podcast feed. Raises `FeedError` naming the element and line."""
    _check_attributes(data)
    reader = _Reader()
    parser = _Parser()
    parser.setFeature(xml.sax.handler.feature_namespaces, True)
    parser.setContentHandler(reader)
    try:
        parser.parse(io.BytesIO(data))
    except xml.sax.SAXParseException as exc:
        raise FeedError(f"not well-formed XML: {exc.getMessage()}", exc.getLineNumber()) from None
    except defusedxml.EntitiesForbidden as exc:
        raise FeedError(
            f"the feed declares the entity {exc.name!r}; entity declarations are refused"
        ) from None
    except defusedxml.DefusedXmlException as exc:
        raise FeedError(f"the feed uses an XML feature that is refused: {exc}") from None
    except expat.ExpatError as exc:  # raised by expat itself past the SAX layer (rare)
        raise FeedError(f"not well-formed XML: {exc}", getattr(exc, "lineno", None)) from None
    return reader.feed(parser.doctype)


def _check_attributes(data: bytes) -> None:
    """Refuse a start tag with more than `MAX_ATTRIBUTES` attributes before expat reads it.
    Only long stretches without `<` are looked at, and each once, in C: a feed of ordinary
    tags and long text costs one scan."""
    for stretch in _LONG_STRETCH.finditer(data):
        if _CROWDED_TAG.match(data, stretch.start()):
            line = data.count(b"\n", 0, stretch.start()) + 1
            raise FeedError(
                f"an element has more than {MAX_ATTRIBUTES:,} attributes; no podcast feed "
                "needs that many, so it is not read",
                line,
            )


class _Parser(defusedxml.expatreader.DefusedExpatParser):
    """defusedxml's SAX reader that never asks for the external DTD at all: an entity only
    it could define is reported as skipped (`_Reader.skippedEntity`), and its DOCTYPE is
    remembered so the RSS 0.91 one can be recognised."""

    def __init__(self) -> None:
        super().__init__()
        self.doctype: tuple[str | None, str | None] = (None, None)

    def reset(self) -> None:
        super().reset()
        expat_parser = cast(Any, self)._parser  # the pyexpat parser, made by reset()
        expat_parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        expat_parser.StartDoctypeDeclHandler = self._doctype

    def _doctype(
        self, name: str, sysid: str | None, pubid: str | None, has_internal_subset: bool
    ) -> None:
        self.doctype = (pubid, sysid)


class _Node:
    """An element kept while its item is read, with the line it starts on. `key` is
    (namespace, name), the namespace being "" (none), one of the prefixes above or another
    URI as written."""

    __slots__ = ("attrs", "children_", "key", "line", "name", "parts", "size")

    def __init__(self, key: tuple[str, str], attrs: dict[str, str], line: int) -> None:
        self.key = key
        self.name = f"{key[0]}:{key[1]}" if key[0] in (ITUNES, PODCAST, MEDIA, PSC) else key[1]
        self.attrs = attrs
        self.line = line
        self.children_: list[_Node] = []
        self.parts: list[str] = []
        self.size = 0

    @property
    def text(self) -> str:
        return "".join(self.parts).strip()

    def children(self, namespace: str, name: str) -> list[_Node]:
        return [child for child in self.children_ if child.key == (namespace, name)]

    def child(self, namespace: str, name: str) -> _Node | None:
        return next((c for c in self.children_ if c.key == (namespace, name)), None)


class _Reader(xml.sax.handler.ContentHandler):
    """Keeps the elements read (`_KEPT_UNDER`), turns each item into a `FeedItem` as it
    closes, and counts everything else against the caps. `stack` holds, per open element,
    its node or None for one passed over."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[_Node | None] = []
        self.root: _Node | None = None
        self.channel: _Node | None = None
        self.items: list[FeedItem] = []
        self.guids: dict[str, int] = {}
        self.elements = 0
        self.skipped_entities: list[tuple[str, int]] = []
        self.locator: xml.sax.xmlreader.Locator | None = None

    def setDocumentLocator(self, locator: xml.sax.xmlreader.Locator) -> None:  # noqa: N802
        self.locator = locator

    def _line(self) -> int:
        return (self.locator.getLineNumber() if self.locator else None) or 0

    def startElementNS(  # noqa: N802
        self,
        name: tuple[str | None, str],
        qname: str | None,
        attrs: xml.sax.xmlreader.AttributesNSImpl,
    ) -> None:
        self.elements += 1
        if self.elements > MAX_ELEMENTS:
            raise FeedError(
                f"the feed has more than {MAX_ELEMENTS:,} elements; no podcast feed needs "
                "that many, so it is not read",
                self._line(),
            )
        if len(self.stack) >= MAX_DEPTH:
            raise FeedError(
                f"elements are nested more than {MAX_DEPTH} deep; an RSS feed nests about 5",
                self._line(),
            )
        key = (_namespace(name[0]), name[1])
        parent = self.stack[-1] if self.stack else None
        if not self.stack:
            self.root = node = _Node(key, _plain(attrs), self._line())
            _check_root(self.root, name[0])
        elif parent is not None and key in _KEPT_UNDER.get(parent.key, ()):
            node = _Node(key, _plain(attrs), self._line())
            if key == ("", "channel"):
                if self.channel is None:
                    self.channel = node
            elif parent is not self.channel or key != ("", "item"):
                parent.children_.append(node)
        else:
            self.stack.append(None)
            return
        self.stack.append(node)

    def endElementNS(self, name: tuple[str | None, str], qname: str | None) -> None:  # noqa: N802
        node = self.stack.pop()
        if node is not None and node.key == ("", "item") and self.stack[-1] is self.channel:
            item = _item(node)
            if item.guid in self.guids:
                raise FeedError(
                    f"<guid> {item.guid!r} repeats the guid of the item at line "
                    f"{self.guids[item.guid]}",
                    item.line,
                )
            self.guids[item.guid] = item.line
            self.items.append(item)

    def characters(self, content: str) -> None:
        node = self.stack[-1] if self.stack else None
        if node is None:
            return
        node.size += len(content)
        if node.size > MAX_TEXT:
            raise FeedError(
                f"<{node.name}> holds more than {MAX_TEXT:,} characters; nothing the import "
                "reads is that long",
                node.line,
            )
        node.parts.append(content)

    def skippedEntity(self, name: str) -> None:  # noqa: N802
        # Only an entity the unread external DTD might define is skipped; any other
        # undefined entity is a well-formedness error from expat itself.
        self.skipped_entities.append((name, self._line()))
        if self.stack and self.stack[-1] is not None:
            self.stack[-1].parts.append(f"\x00{name}\x00")

    def feed(self, doctype: tuple[str | None, str | None]) -> Feed:
        """The feed read, once the document has ended."""
        root = self.root
        if root is None:
            raise FeedError("the feed is empty")
        if self.skipped_entities and doctype[0] != NETSCAPE_091:
            name, line = self.skipped_entities[0]
            raise FeedError(
                f"&{name}; is not defined here: the feed refers to an external document "
                f"({doctype[1]!r}) that might define it, and external references are refused, "
                "never fetched",
                line,
            )
        if self.skipped_entities:
            unknown = [(n, line) for n, line in self.skipped_entities if n not in _LATIN1_ENTITIES]
            if unknown:
                name, line = unknown[0]
                raise FeedError(
                    f"&{name}; is not one of the entities the RSS 0.91 DTD defines", line
                )
        channel = self.channel
        if channel is None:
            raise FeedError("<rss> has no <channel>", root.line)
        title = _text(channel, "", "title")
        if not title:
            raise FeedError("<channel> has no <title>", channel.line)
        return Feed(
            title=title,
            link=_text(channel, "", "link") or None,
            persons=_persons(channel),
            items=tuple(self.items),
        )


def _plain(attrs: xml.sax.xmlreader.AttributesNSImpl) -> dict[str, str]:
    return {local: value for (uri, local), value in attrs.items() if not uri}


def _check_root(root: _Node, uri: str | None) -> None:
    if root.key == ("", "rss"):
        return
    if root.name == "rss" and uri:
        raise FeedError(
            f"<rss> is in the namespace {uri!r}, which no RSS version uses; RSS 2.0 "
            'elements have no namespace (the feed\'s host should drop xmlns="...")',
            root.line,
        )
    kind = {"feed": " (Atom)", "RDF": " (RSS 1.0)"}.get(root.name, "")
    raise FeedError(f"the document is <{root.name}>{kind}, not an RSS 2.0 <rss> feed", root.line)


def _namespace(uri: str | None) -> str:
    if not uri:
        return ""
    return _NAMESPACES.get(uri.lower().rstrip("/"), uri)


def _text(node: _Node, namespace: str, name: str) -> str:
    child = node.child(namespace, name)
    return _words(child) if child is not None else ""


def _words(node: _Node) -> str:
    """An element's text as a person reads it: entities of the RSS 0.91 DTD put back,
    invisible characters out, whitespace as written inside but trimmed."""
    text = node.text
    if "\x00" in text:
        text = re.sub("\x00([^\x00]*)\x00", lambda m: _LATIN1_ENTITIES.get(m[1], ""), text)
    return strip_invisible(text).strip()


def _item(node: _Node) -> FeedItem:
    title = " ".join((_text(node, "", "title") or _text(node, ITUNES, "title")).split())
    guid = _text(node, "", "guid")
    if not title:
        raise FeedError(
            f"<item> with guid {guid!r} has no <title>" if guid else "<item> has no <title>",
            node.line,
        )
    if not guid:
        # RSS 0.91 has no <guid>; its items are known by their <link>.
        guid = _text(node, "", "link")
    if not guid:
        raise FeedError(f"<item> {title!r} has no <guid> (nor a <link> to stand for it)", node.line)
    warnings: list[str] = []
    unreadable: set[str] = set()
    published = node.child("", "pubDate")
    duration = node.child(ITUNES, "duration")
    return FeedItem(
        title=title,
        guid=guid,
        line=node.line,
        published=_date(published) if published is not None and published.text else None,
        duration=(
            _duration(duration, warnings, unreadable)
            if duration is not None and duration.text
            else None
        ),
        season=_number(node, "season", warnings, unreadable),
        episode=_number(node, "episode", warnings, unreadable),
        link=_text(node, "", "link") or None,
        enclosure=_enclosure(node) or _media_content(node),
        transcripts=tuple(
            TranscriptLink(
                url=_required(t, "url"),
                type=_required(t, "type"),
                language=t.attrs.get("language") or None,
                rel=t.attrs.get("rel") or None,
            )
            for t in node.children(PODCAST, "transcript")
        ),
        chapters=_chapters(node),
        persons=_persons(node),
        inline_chapters=_inline_chapters(node, warnings),
        warnings=tuple(sorted(warnings, key=_line_of)),
        unreadable=frozenset(unreadable),
    )


def _line_of(warning: str) -> int:
    """The line a warning names ("line 12: ..."), to list an item's warnings in order."""
    found = re.match(r"line (\d+):", warning)
    return int(found[1]) if found else 0


def _required(node: _Node, attribute: str) -> str:
    value = node.attrs.get(attribute, "").strip()
    if not value:
        raise FeedError(f'<{node.name}> has no {attribute}="..."', node.line)
    return value


def _date(node: _Node) -> datetime.datetime:
    text = node.text
    try:
        value = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        try:
            # Not RFC 822, but some hosts write ISO 8601 (2025-10-14T09:00:00Z).
            value = datetime.datetime.fromisoformat(text)
        except ValueError:
            raise FeedError(
                f"<{node.name}> {_shown(text)} is not a date; "
                "RSS writes 'Tue, 14 Oct 2025 09:00:00 +0000'",
                node.line,
            ) from None
    return value if value.tzinfo else value.replace(tzinfo=datetime.UTC)


def _shown(text: str, most: int = 40) -> str:
    """A value for a message, cut short: a 400-digit number is named, not quoted whole."""
    return repr(text) if len(text) <= most else repr(text[:most]) + f"… ({len(text)} characters)"


# Seconds, with any fraction dropped; more digits than this is nobody's episode length.
_SECONDS = re.compile(r"^(\d{1,12})(?:\.\d*)?$")


def _duration(node: _Node, warnings: list[str], unreadable: set[str]) -> int | None:
    text = node.text
    found = _SECONDS.match(text)
    if found:
        return int(found[1])
    try:
        return parse_timestamp(text)
    except (TimestampError, ValueError):
        unreadable.add("duration")
        warnings.append(
            f"line {node.line}: <{node.name}> {_shown(text)} is not a duration (write seconds, "
            "MM:SS or HH:MM:SS); the episode's duration is left as it was"
        )
        return None


_WHOLE = re.compile(r"^(\d{1,12})(?:\.0*)?$")


def _number(item: _Node, name: str, warnings: list[str], unreadable: set[str]) -> int | None:
    """The season or episode number from `itunes:` or `podcast:`, which must agree; a bad
    or disagreeing one is left out with a warning."""
    found: list[tuple[int, _Node]] = []
    bad = False
    for namespace in (ITUNES, PODCAST):
        node = item.child(namespace, name)
        if node is None or not node.text:
            continue
        whole = _WHOLE.match(node.text)
        if not whole:
            # One bad tag does not throw away the other namespace's good one.
            bad = True
            warnings.append(
                f"line {node.line}: <{node.name}> {_shown(node.text)} is not a whole {name} "
                "number; ignored"
            )
            continue
        found.append((int(whole[1]), node))
    if bad and not found:
        unreadable.add(name)
        return None
    if len(found) == 2 and found[0][0] != found[1][0]:
        (first, a), (second, b) = found
        unreadable.add(name)
        warnings.append(
            f"line {b.line}: <{b.name}> {second} disagrees with <{a.name}> {first} at line "
            f"{a.line}; both ignored"
        )
        return None
    return found[0][0] if found else None


def _enclosure(item: _Node) -> Enclosure | None:
    node = item.child("", "enclosure")
    if node is None:
        return None
    length = node.attrs.get("length", "").strip()
    if length and not length.isdigit():
        raise FeedError(f"<enclosure> length={_shown(length)} is not a number of bytes", node.line)
    return Enclosure(
        url=_required(node, "url"),
        type=node.attrs.get("type", "").strip() or None,
        length=int(length) if length.isdigit() and len(length) <= 18 else None,
    )


def _media_content(item: _Node) -> Enclosure | None:
    """The first audio `<media:content>` (directly in the item or in a `<media:group>`),
    for feeds that give no enclosure; video and images are not the episode's audio."""
    candidates = item.children(MEDIA, "content") + [
        content for group in item.children(MEDIA, "group") for content in group.children_
    ]
    for node in candidates:
        kind = node.attrs.get("type", "").strip().lower()
        medium = node.attrs.get("medium", "").strip().lower()
        if not (kind.startswith("audio/") or medium == "audio"):
            continue
        size = node.attrs.get("fileSize", "").strip()
        return Enclosure(
            url=_required(node, "url"),
            type=kind or None,
            length=int(size) if size.isdigit() and len(size) <= 18 else None,
        )
    return None


def _chapters(item: _Node) -> ChaptersLink | None:
    node = item.child(PODCAST, "chapters")
    if node is None:
        return None
    return ChaptersLink(url=_required(node, "url"), type=_required(node, "type"))


# Podlove's `start`: Normal Play Time, [[HH:]MM:]SS[.mmm] (https://podlove.org/simple-chapters/).
_NPT = re.compile(r"^(?:(?:(\d{1,3}):)?([0-5]?\d):)?(\d{1,6})(\.\d{1,3})?$")


def _inline_chapters(item: _Node, warnings: list[str]) -> tuple[Chapter, ...]:
    chapters = []
    for group in item.children(PSC, "chapters"):
        for node in group.children_:
            start = node.attrs.get("start", "").strip()
            found = _NPT.match(start)
            if not found:
                warnings.append(
                    f"line {node.line}: <psc:chapter> start={_shown(start)} is not a time "
                    "(HH:MM:SS.mmm); that chapter is left out"
                )
                continue
            hours, minutes, seconds, fraction = found.groups()
            if (hours or minutes) and int(seconds) >= 60:
                warnings.append(
                    f"line {node.line}: <psc:chapter> start={start!r} has {seconds} seconds; "
                    "that chapter is left out"
                )
                continue
            at = int(hours or 0) * 3600 + int(minutes or 0) * 60 + int(seconds)
            title = " ".join(strip_invisible(node.attrs.get("title", "")).split())
            chapters.append(
                Chapter(
                    start_time=at + float(fraction or 0),
                    title=title or None,
                    url=node.attrs.get("href", "").strip() or None,
                    img=node.attrs.get("image", "").strip() or None,
                )
            )
    return tuple(sorted(chapters, key=lambda chapter: chapter.start_time))


def _persons(parent: _Node) -> tuple[Person, ...]:
    persons = []
    for node in parent.children(PODCAST, "person"):
        name = " ".join(_words(node).split())
        if not name:
            raise FeedError(f"<{node.name}> has no name", node.line)
        persons.append(
            Person(
                name=name,
                role=(node.attrs.get("role") or "host").strip().lower(),
                group=(node.attrs.get("group") or "cast").strip().lower(),
                href=node.attrs.get("href") or None,
                img=node.attrs.get("img") or None,
            )
        )
    return tuple(persons)
