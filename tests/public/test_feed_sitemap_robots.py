"""The Atom feed, sitemap.xml and robots.txt date from the last significant change."""

import xml.etree.ElementTree as ET  # our own output, not untrusted input

import pytest
import time_machine
from django.http import Http404

from glossary import publishing
from glossary.atom_feed import FEED_SIZE
from glossary.models import Entry
from glossary.publishing import save_version
from glossary.sitemaps import SITEMAP_PAGE_SIZE, sitemap_section
from tests.live import make_live_unchecked

ATOM = "{http://www.w3.org/2005/Atom}"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def publish_then_fix_a_typo(make_entry):
    entry = make_entry("Widget", slug="widget", summary="A widget.")
    with time_machine.travel("2026-11-02 09:00Z", tick=False):
        make_live_unchecked(entry)
    with time_machine.travel("2026-11-20 09:00Z", tick=False):
        make_live_unchecked(entry, material=False)
    return entry


def test_the_feed_is_atom_with_updated_from_the_significant_change(client, make_entry):
    publish_then_fix_a_typo(make_entry)
    response = client.get("/feed/")
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)  # noqa: S314
    (item,) = feed.findall(f"{ATOM}entry")
    assert item.find(f"{ATOM}title").text == "Widget"
    assert item.find(f"{ATOM}updated").text == "2026-11-02T09:00:00+00:00"
    assert item.find(f"{ATOM}link").get("href") == "http://127.0.0.1:8000/glossary/widget/"
    assert item.find(f"{ATOM}summary").text == "A widget."


def test_the_feed_orders_by_significant_change_and_leaves_out_drafts(client, make_entry):
    first, second = make_entry("First", slug="first"), make_entry("Second", slug="second")
    make_entry("Draft", slug="draft")
    with time_machine.travel("2026-11-01 09:00Z", tick=False):
        make_live_unchecked(first)
    with time_machine.travel("2026-11-05 09:00Z", tick=False):
        make_live_unchecked(second)
    feed = ET.fromstring(client.get("/feed/").content)  # noqa: S314
    assert [e.find(f"{ATOM}title").text for e in feed.findall(f"{ATOM}entry")] == [
        "Second",
        "First",
    ]


def test_the_sitemap_gives_lastmod_from_the_significant_change(client, make_entry):
    publish_then_fix_a_typo(make_entry)
    sitemap = ET.fromstring(client.get("/sitemap-entries.xml").content)  # noqa: S314
    urls = {u.find(f"{SM}loc").text: u for u in sitemap.findall(f"{SM}url")}
    entry = urls["http://127.0.0.1:8000/glossary/widget/"]
    assert entry.find(f"{SM}lastmod").text.startswith("2026-11-02")
    pages = client.get("/sitemap-pages.xml").content.decode()
    assert "<loc>http://127.0.0.1:8000/</loc>" in pages


def test_the_sitemap_lists_public_reference_pages(client, demo):
    locs = "".join(
        client.get(f"/sitemap-{section}.xml").content.decode()
        for section in ("people", "organisations", "episodes", "tags")
    )
    for path in (
        "/people/jeetu-patel/",
        "/organisations/galileo/",
        "/episodes/demo-show/2/28/",
        "/tags/networking/",
    ):
        assert f"<loc>http://127.0.0.1:8000{path}</loc>" in locs


def test_robots_allows_the_site_and_points_at_the_sitemap(client, db):
    body = client.get("/robots.txt").content.decode()
    assert "User-agent: *" in body
    assert "Disallow: /admin/" in body
    assert "Sitemap: http://127.0.0.1:8000/sitemap.xml" in body


def test_the_sitemap_is_an_index_of_every_section_page(client, make_entry, settings):
    settings.SITE_URL = "https://glossary.example"
    for n in range(SITEMAP_PAGE_SIZE + 3):
        entry = Entry.objects.create(term=f"Widget {n:04}", slug=f"widget-{n:04}", summary="A.")
        Entry.objects.filter(pk=entry.pk).update(
            live_version=save_version(entry), status=Entry.Status.PUBLISHED
        )
    # Made live without publishing, as if before the live listing existed: the re-render every
    # deploy runs lists them (lists read the listing, glossary.listing_index).
    publishing.rerender_all()
    make_live_unchecked(make_entry("Zebra", slug="zebra"))
    index = ET.fromstring(client.get("/sitemap.xml").content)  # noqa: S314
    assert index.tag == f"{SM}sitemapindex"
    locs = [s.find(f"{SM}loc").text for s in index.findall(f"{SM}sitemap")]
    base = "https://glossary.example/sitemap-"
    assert locs == [
        f"{base}pages.xml",
        f"{base}entries.xml",
        f"{base}entries.xml?p=2",
        f"{base}episodes.xml",
        f"{base}people.xml",
        f"{base}organisations.xml",
        f"{base}tags.xml",
    ]
    first = ET.fromstring(client.get("/sitemap-entries.xml").content)  # noqa: S314
    second = ET.fromstring(client.get("/sitemap-entries.xml?p=2").content)  # noqa: S314
    assert len(first.findall(f"{SM}url")) == SITEMAP_PAGE_SIZE
    assert [u.find(f"{SM}loc").text for u in second.findall(f"{SM}url")][-1] == (
        "https://glossary.example/glossary/zebra/"
    )
    assert len(second.findall(f"{SM}url")) == 4
    assert client.get("/sitemap-entries.xml?p=3").status_code == 404
    assert client.get("/sitemap-nothing.xml").status_code == 404


def test_a_sitemap_page_lists_its_entries_a_to_z_across_letters(client, make_entry, monkeypatch):
    # Published in reverse, so the order they were written in is not the order shown; two
    # a page, so pages start inside a letter and run across letters; one withdrawn.
    monkeypatch.setattr("glossary.sitemaps.SITEMAP_PAGE_SIZE", 2)
    terms = ["Zeta", "Yak", "Gamma", "Beta", "Alpha", "Aardvark"]
    entries = {term: make_entry(term, slug=term.lower()) for term in terms}
    for entry in entries.values():
        make_live_unchecked(entry)
    publishing.unpublish(entries["Beta"])

    def slugs(page: int) -> list[str]:
        response = client.get(f"/sitemap-entries.xml?p={page}")
        assert response.status_code == 200, page
        urlset = ET.fromstring(response.content)  # noqa: S314
        return [u.find(f"{SM}loc").text.rsplit("/", 2)[1] for u in urlset.findall(f"{SM}url")]

    assert [slugs(1), slugs(2), slugs(3)] == [["aardvark", "alpha"], ["gamma", "yak"], ["zeta"]]
    assert client.get("/sitemap-entries.xml?p=4").status_code == 404


def test_a_sitemap_page_past_the_end_says_which_pages_there_are(client, rf, make_entry):
    # Nothing published: the first page is there, and empty.
    empty = ET.fromstring(client.get("/sitemap-entries.xml").content)  # noqa: S314
    assert empty.findall(f"{SM}url") == []
    make_live_unchecked(make_entry("Zebra", slug="zebra"))
    for page in ("2", "0", "two", "-1"):
        assert client.get(f"/sitemap-entries.xml?p={page}").status_code == 404, page
        with pytest.raises(Http404, match=f"no page '{page}' here; pages run from 1 to 1"):
            sitemap_section(rf.get("/sitemap-entries.xml", {"p": page}), "entries")


def test_robots_names_the_sitemap_index(client, db):
    assert "Sitemap: http://127.0.0.1:8000/sitemap.xml" in client.get("/robots.txt").text
    assert client.get("/sitemap.xml").status_code == 200


def test_the_feed_stays_bounded(client, make_entry):
    for n in range(FEED_SIZE + 5):
        make_live_unchecked(make_entry(f"Gizmo {n:03}", slug=f"gizmo-{n:03}"))
    feed = ET.fromstring(client.get("/feed/").content)  # noqa: S314
    assert len(feed.findall(f"{ATOM}entry")) == FEED_SIZE
