"""The sitemap index and every sitemap it names follow the sitemaps.org protocol (0.9).

`protocol_violations` holds the protocol's rules for a sitemap index and a URL set: UTF-8
with its XML declaration, the protocol's namespace and elements in the order its schema
gives them, a `loc` that is an absolute, percent-encoded URL under 2,048 characters on the
sitemap's own host, `lastmod` in W3C Datetime, `changefreq` and `priority` from their
ranges, at most 50,000 addresses and 50 MB a file. Every address listed must also answer
200: a sitemap names only public pages.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET  # our own output, not untrusted input
from urllib.parse import urlsplit

import pytest

from glossary.models import Entry
from glossary.sitemaps import SITEMAP_PAGE_SIZE
from tests.live import make_live_unchecked

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
S = f"{{{NS}}}"
MAX_URLS = 50_000
MAX_BYTES = 50 * 1024 * 1024
MAX_LOC = 2048
# W3C Datetime (https://www.w3.org/TR/NOTE-datetime): a year, a month, a day, or a day with
# hours and minutes, optional seconds and fraction, and a time zone.
W3C_DATETIME = re.compile(
    r"\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])"
    r"(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d))?)?)?\Z"
)
CHANGEFREQ = {"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}
# The children each entry may have, in the schema's order, and the one it must have.
ENTRY = {
    "urlset": ("url", ("loc", "lastmod", "changefreq", "priority")),
    "sitemapindex": ("sitemap", ("loc", "lastmod")),
}


def _loc_violations(where: str, loc: str | None, host: str) -> list[str]:
    if not loc:
        return [f"{where}: no loc"]
    found = []
    if len(loc) >= MAX_LOC:
        found.append(f"{where}: loc is {len(loc)} characters, the limit is {MAX_LOC - 1}")
    parts = urlsplit(loc)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        found.append(f"{where}: {loc!r} is not an absolute http(s) URL")
    elif parts.netloc != host:
        found.append(f"{where}: {loc!r} is not on the sitemap's host {host}")
    if re.search(r"[^\x21-\x7e]|[<>\"{}|\\^`]", loc):
        found.append(f"{where}: {loc!r} is not percent-encoded")
    return found


def protocol_violations(body: bytes, host: str) -> list[str]:
    """Every rule of the sitemaps.org protocol the document breaks, each saying where."""
    found = []
    if not body.startswith(b'<?xml version="1.0" encoding="UTF-8"?>'):
        found.append("the document does not start with an XML declaration naming UTF-8")
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        found.append(f"the document is not UTF-8: {exc}")
    if len(body) > MAX_BYTES:
        found.append(f"the document is {len(body)} bytes, over the protocol's 50 MB")
    root = ET.fromstring(body)  # noqa: S314
    kind = root.tag.removeprefix(S)
    if not root.tag.startswith(S) or kind not in ENTRY:
        return [*found, f"the document element is {root.tag}, not urlset or sitemapindex"]
    item, allowed = ENTRY[kind]
    items = list(root)
    if len(items) > MAX_URLS:
        found.append(f"{len(items)} {item}s, over the protocol's {MAX_URLS}")
    for n, element in enumerate(items, 1):
        where = f"{item} {n}"
        if element.tag != f"{S}{item}":
            found.append(f"{where}: {element.tag} is not a {item}")
            continue
        names = [child.tag.removeprefix(S) for child in element if child.tag.startswith(S)]
        if names != [name for name in allowed if name in names] or len(set(names)) != len(names):
            found.append(f"{where}: children {names} are not {list(allowed)} in order, once each")
        found += _loc_violations(where, element.findtext(f"{S}loc"), host)
        lastmod = element.findtext(f"{S}lastmod")
        if lastmod is not None and not W3C_DATETIME.match(lastmod):
            found.append(f"{where}: lastmod {lastmod!r} is not a W3C Datetime")
        changefreq = element.findtext(f"{S}changefreq")
        if changefreq is not None and changefreq not in CHANGEFREQ:
            found.append(f"{where}: changefreq {changefreq!r} is not one of {sorted(CHANGEFREQ)}")
        priority = element.findtext(f"{S}priority")
        if priority is not None and not re.fullmatch(r"(0(\.\d)?|1(\.0)?)", priority):
            found.append(f"{where}: priority {priority!r} is not between 0.0 and 1.0")
    return found


def _path(loc: str) -> str:
    parts = urlsplit(loc)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def crawl(client, settings) -> dict[str, list[str]]:
    """The violations of the index and of each sitemap it names, and each listed address
    that does not answer 200."""
    host = urlsplit(settings.SITE_URL).netloc
    index = client.get("/sitemap.xml")
    assert index.status_code == 200
    assert index["Content-Type"].startswith("application/xml")
    found = {"/sitemap.xml": protocol_violations(index.content, host)}
    root = ET.fromstring(index.content)  # noqa: S314
    assert root.tag == f"{S}sitemapindex"
    for loc in (s.findtext(f"{S}loc") or "" for s in root):
        sitemap = client.get(_path(loc))
        assert sitemap.status_code == 200, loc
        problems = protocol_violations(sitemap.content, host)
        urlset = ET.fromstring(sitemap.content)  # noqa: S314
        for url in urlset:
            page = _path(url.findtext(f"{S}loc") or "")
            status = client.get(page).status_code
            if status != 200:
                problems.append(f"{page} answers {status}")
        found[loc] = problems
    return found


def test_the_demo_sitemaps_follow_the_protocol(client, demo, settings):
    found = crawl(client, settings)
    assert len(found) == 7  # the index and its six sections
    assert {loc: v for loc, v in found.items() if v} == {}


def test_addresses_in_any_script_are_percent_encoded_and_a_second_page_is_listed(
    client, make_entry, settings, monkeypatch
):
    settings.SITE_URL = "https://glossary.example"
    monkeypatch.setattr("glossary.sitemaps.SITEMAP_PAGE_SIZE", 2)
    for term, slug in (("Mémoire", "memoire"), ("Kühlung", "kuhlung"), ("メモリ", "memori")):
        entry = make_entry(term, slug=slug)
        entry.tags.set([term.lower(), "R&D"])
        make_live_unchecked(entry)
    found = crawl(client, settings)
    assert "https://glossary.example/sitemap-entries.xml?p=2" in found
    assert {loc: v for loc, v in found.items() if v} == {}
    tags = client.get("/sitemap-tags.xml").content.decode()
    assert "/tags/m%C3%A9moire/" in tags


def test_a_page_holds_far_fewer_addresses_than_the_protocol_allows():
    assert SITEMAP_PAGE_SIZE <= MAX_URLS


@pytest.mark.parametrize(
    ("mutation", "expected"),
    [
        (lambda x: x.replace(b"http://127.0.0.1:8000/glossary/", b"/glossary/", 1), "absolute"),
        (lambda x: x.replace(b"http://127.0.0.1:8000", b"http://elsewhere.example", 1), "host"),
        (lambda x: x.replace(b"/glossary/accelerator/", "/glossary/é/".encode(), 1), "percent"),
        (lambda x: re.sub(rb"<lastmod>[^<]*", b"<lastmod>04/12/2026", x, count=1), "W3C"),
        (lambda x: x.replace(b"<url><loc>", b"<url><priority>0.5</priority><loc>", 1), "order"),
        (
            lambda x: x.replace(b"</lastmod></url>", b"</lastmod><priority>2</priority></url>", 1),
            "0.0",
        ),
        (lambda x: x.replace(b' encoding="UTF-8"', b"", 1), "UTF-8"),
        (lambda x: x.replace(b"<url><loc>", b"<url></url><url><loc>", 1), "no loc"),
    ],
)
def test_the_check_reports_each_broken_rule(client, demo, mutation, expected):
    assert Entry.objects.filter(slug="accelerator").exists()
    broken = mutation(client.get("/sitemap-entries.xml").content)
    problems = protocol_violations(broken, "127.0.0.1:8000")
    assert any(expected in problem for problem in problems), (expected, problems)
