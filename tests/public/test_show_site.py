"""A show's own public site: at /shows/<slug>/ and at the root of its own host.

Each show's site lists only the entries published on that show (its index, tags, search,
feed, sitemap and API list), serves their pages, and sends a reader who follows a link to
another show's entry there. The network's site at / is what it always was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from editorial import workflow
from glossary import publishing, stored_pages
from glossary.models import (
    Entry,
    Episode,
    EpisodeReference,
    Person,
    PublicRecord,
    Show,
    StoredPage,
)
from glossary.show_site import _known
from tests.live import make_live_unchecked

ALPHA_HOST = "alpha.example.test"
# Each entry's address, as every list of it links it.
A, B, N = "glossary/aardvark/", "glossary/bandwidth/", "glossary/network-term/"
BETA_HOST = "beta.example.test"


@pytest.fixture(autouse=True)
def show_hosts(settings: Any) -> Iterator[None]:
    settings.SHOW_PUBLIC_HOSTS = [ALPHA_HOST, BETA_HOST]
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, *settings.SHOW_PUBLIC_HOSTS]
    settings.SITE_URL = "https://glossary.example.test"
    # The shows each test makes are its own: nothing this process read before is kept.
    _known.forget()
    yield
    _known.forget()


@pytest.fixture
def alpha(db: Any) -> Show:
    return Show.objects.create(name="Alpha Show", slug="alpha", public_host=ALPHA_HOST)


@pytest.fixture
def beta(db: Any) -> Show:
    return Show.objects.create(name="Beta Show", slug="beta")


@pytest.fixture
def published(make_entry: Callable[..., Entry], alpha: Show, beta: Show) -> dict[str, Entry]:
    """An entry on each show and one on the whole network, published (the tag on all)."""
    entries = {
        "alpha": make_entry("Aardvark Protocol", slug="aardvark", show=alpha),
        "beta": make_entry("Bandwidth", slug="bandwidth", show=beta),
        "network": make_entry("Network Term", slug="network-term"),
    }
    for entry in entries.values():
        entry.tags.set(["shared-topic"])
        make_live_unchecked(entry)
    return entries


def host(name: str) -> Client:
    return Client(HTTP_HOST=name)


def text(response: Any) -> str:
    assert response.status_code == 200, (response.status_code, response.get("Location"))
    return response.content.decode()


# --- By path ---------------------------------------------------------------------------------


def test_a_shows_index_lists_only_its_own_entries_with_links_on_its_site(
    client: Client, published: dict[str, Entry]
) -> None:
    page = text(client.get("/shows/alpha/"))
    assert 'href="/shows/alpha/glossary/aardvark/"' in page
    assert "Bandwidth" not in page
    assert "Network Term" not in page
    assert "1 entry" in page
    assert "<title>Alpha Show</title>" in page
    assert '<link rel="canonical" href="https://glossary.example.test/shows/alpha/">' in page


def test_the_network_index_still_lists_every_entry_at_its_own_addresses(
    client: Client, published: dict[str, Entry]
) -> None:
    page = text(client.get("/"))
    for slug in ("aardvark", "bandwidth", "network-term"):
        assert f'href="/glossary/{slug}/"' in page
    assert "/shows/" not in page
    assert "3 entries" in page


def test_a_shows_entry_page_is_served_on_its_site_and_names_that_address(
    client: Client, published: dict[str, Entry]
) -> None:
    page = text(client.get("/shows/alpha/glossary/aardvark/"))
    assert "Aardvark Protocol" in page
    assert (
        '<link rel="canonical" href="https://glossary.example.test/shows/alpha/glossary/aardvark/">'
        in page
    )
    # The JSON-LD rendered at publish names the page where it is read.
    assert '"https://glossary.example.test/shows/alpha/glossary/aardvark/"' in page
    assert '"https://glossary.example.test/glossary/aardvark/"' not in page


def test_another_shows_entry_sends_the_reader_to_its_own_shows_site(
    client: Client, published: dict[str, Entry]
) -> None:
    to_beta = client.get("/shows/alpha/glossary/bandwidth/")
    assert to_beta.status_code == 302
    assert to_beta["Location"] == "https://glossary.example.test/shows/beta/glossary/bandwidth/"
    to_alpha_host = client.get("/shows/beta/glossary/aardvark/")
    assert to_alpha_host["Location"] == f"https://{ALPHA_HOST}/glossary/aardvark/"
    to_network = client.get("/shows/beta/glossary/network-term/")
    assert to_network["Location"] == "https://glossary.example.test/glossary/network-term/"


def test_an_unknown_show_or_entry_is_not_found(client: Client, published: dict[str, Entry]) -> None:
    assert client.get("/shows/nope/").status_code == 404
    assert client.get("/shows/alpha/glossary/nope/").status_code == 404
    # The desk is the network host's alone.
    assert client.get("/shows/alpha/admin/").status_code == 404
    assert client.get("/shows/alpha")["Location"] == "/shows/alpha/"


def test_a_shows_search_finds_only_its_own_entries(
    client: Client, published: dict[str, Entry]
) -> None:
    page = text(client.get("/shows/beta/search/?q=bandwidth"))
    assert 'href="/shows/beta/glossary/bandwidth/"' in page
    assert "Nothing found" in text(client.get("/shows/alpha/search/?q=bandwidth"))
    assert "Bandwidth" in text(client.get("/search/?q=bandwidth"))


def test_a_shows_feed_sitemap_and_api_list_hold_only_its_entries_on_its_addresses(
    client: Client, published: dict[str, Entry]
) -> None:
    feed = text(client.get("/shows/beta/feed/"))
    assert "https://glossary.example.test/shows/beta/glossary/bandwidth/" in feed
    assert "Aardvark" not in feed and "Network Term" not in feed
    assert "<title>Beta Show</title>" in feed
    index = text(client.get("/shows/beta/sitemap.xml"))
    assert "https://glossary.example.test/shows/beta/sitemap-entries.xml" in index
    # Its own pages only: people, episodes and organisations are the network's sitemap's.
    assert index.count("<sitemap>") == 1
    assert client.get("/shows/beta/sitemap-people.xml").status_code == 404
    urls = text(client.get("/shows/beta/sitemap-entries.xml"))
    assert "<loc>https://glossary.example.test/shows/beta/glossary/bandwidth/</loc>" in urls
    assert urls.count("<url>") == 1
    api = client.get("/shows/beta/api/v1/entries/").json()
    assert [item["slug"] for item in api["results"]] == ["bandwidth"]
    assert api["count"] == 1
    assert api["results"][0]["url"].startswith("https://glossary.example.test/shows/beta/")


def test_a_shows_tag_page_lists_only_its_entries_carrying_the_tag(
    client: Client, published: dict[str, Entry]
) -> None:
    page = text(client.get("/shows/alpha/tags/shared-topic/"))
    assert 'href="/shows/alpha/glossary/aardvark/"' in page
    assert "Bandwidth" not in page and "Network Term" not in page
    network = text(client.get("/tags/shared-topic/"))
    assert "Aardvark" in network and "Bandwidth" in network and "Network Term" in network


# --- By host ----------------------------------------------------------------------------------


def test_a_shows_host_serves_its_site_at_the_root_with_absolute_addresses_on_that_host(
    published: dict[str, Entry],
) -> None:
    reader = host(ALPHA_HOST)
    page = text(reader.get("/"))
    assert 'href="/glossary/aardvark/"' in page
    assert "Bandwidth" not in page and "Network Term" not in page
    assert f'<link rel="canonical" href="https://{ALPHA_HOST}/">' in page
    entry = text(reader.get("/glossary/aardvark/"))
    assert f'<link rel="canonical" href="https://{ALPHA_HOST}/glossary/aardvark/">' in entry
    assert text(reader.get("/search/?q=aardvark")).count('href="/glossary/aardvark/"') == 1
    feed = text(reader.get("/feed/"))
    assert f"https://{ALPHA_HOST}/glossary/aardvark/" in feed
    # Entries' links are on the host; their Atom ids stay the network's (stable, not links).
    assert "glossary.example.test/glossary/" not in feed
    urls = text(reader.get("/sitemap-entries.xml"))
    assert f"<loc>https://{ALPHA_HOST}/glossary/aardvark/</loc>" in urls
    assert f"https://{ALPHA_HOST}/sitemap-entries.xml" in text(reader.get("/sitemap.xml"))
    robots = text(reader.get("/robots.txt"))
    assert f"Sitemap: https://{ALPHA_HOST}/sitemap.xml" in robots
    assert reader.get("/glossary/bandwidth/")["Location"] == (
        "https://glossary.example.test/shows/beta/glossary/bandwidth/"
    )


def test_a_host_this_server_does_not_answer_for_is_refused(published: dict[str, Entry]) -> None:
    assert host("elsewhere.example.test").get("/").status_code == 400


def test_a_shows_host_not_listed_for_shows_serves_the_network(
    published: dict[str, Entry], settings: Any
) -> None:
    """Only SHOW_PUBLIC_HOSTS are looked up: a host answered for the network stays the
    network's even if a show names it."""
    settings.SHOW_PUBLIC_HOSTS = []
    page = text(host(ALPHA_HOST).get("/"))
    assert "3 entries" in page


# --- Caching: no page of one site is another's --------------------------------------------


@pytest.mark.parametrize("first", ["alpha-host", "alpha-path", "network"])
def test_a_cached_page_of_one_site_is_never_served_for_another(
    published: dict[str, Entry], settings: Any, first: str
) -> None:
    settings.PUBLIC_PAGE_CACHE = True
    reads = {
        "alpha-host": lambda path: host(ALPHA_HOST).get(path),
        "alpha-path": lambda path: Client().get(f"/shows/alpha{path}"),
        "beta-host": lambda path: host(BETA_HOST).get(path),
        "network": lambda path: Client().get(path),
    }
    # beta has no host of its own yet: give it one, so its host's root is a third site at "/".
    Show.objects.filter(slug="beta").update(public_host=BETA_HOST)
    _known.forget()
    order = [first, *[name for name in reads if name != first]]
    for path in ("/", "/feed/", "/sitemap-entries.xml", "/search/?q=a", "/api/v1/entries/"):
        bodies = {name: reads[name](path).content.decode() for name in order}
        again = {name: reads[name](path).content.decode() for name in order}
        assert bodies == again, path
        assert A in bodies["alpha-host"] and B not in bodies["alpha-host"], path
        assert A in bodies["alpha-path"] and B not in bodies["alpha-path"], path
        assert B in bodies["beta-host"] and A not in bodies["beta-host"], path
        if path != "/search/?q=a":
            assert N in bodies["network"] and B in bodies["network"], path
        assert bodies["alpha-host"] != bodies["alpha-path"] or path == "/api/v1/entries/"


def test_the_entry_page_cached_on_a_show_site_is_not_the_network_page(
    published: dict[str, Entry], settings: Any
) -> None:
    settings.PUBLIC_PAGE_CACHE = True
    on_host = text(host(ALPHA_HOST).get("/glossary/aardvark/"))
    on_network = text(Client().get("/glossary/aardvark/"))
    assert f"https://{ALPHA_HOST}/glossary/aardvark/" in on_host
    assert f"https://{ALPHA_HOST}/" not in on_network
    assert "<title>Aardvark Protocol" in on_network


# --- Nothing withdrawn comes back; nothing moves without a publish ---------------------


def show_urls_of(slug: str) -> list[tuple[Client, str, str]]:
    """Every per-show address that shows the alpha entry `slug`, and what shows it there."""
    path, on_host = Client(), host(ALPHA_HOST)
    link = f"glossary/{slug}/"
    return [
        (path, f"/shows/alpha/glossary/{slug}/", "Aardvark"),
        (on_host, f"/glossary/{slug}/", "Aardvark"),
        (path, "/shows/alpha/", link),
        (on_host, "/", link),
        (path, "/shows/alpha/feed/", link),
        (on_host, "/feed/", link),
        (path, "/shows/alpha/sitemap-entries.xml", link),
        (on_host, "/sitemap-entries.xml", link),
        (path, "/shows/alpha/search/?q=aardvark", link),
        (on_host, "/search/?q=aardvark", link),
        (path, "/shows/alpha/api/v1/entries/", link),
        (on_host, "/api/v1/entries/", link),
        (path, "/shows/alpha/tags/shared-topic/", link),
        (on_host, "/tags/shared-topic/", link),
    ]


def test_an_unpublished_entry_is_gone_from_every_show_address_even_cached(
    published: dict[str, Entry], settings: Any, editor: Any
) -> None:
    settings.PUBLIC_PAGE_CACHE = True
    for reader, url, shown in show_urls_of("aardvark"):
        assert shown in text(reader.get(url)), url  # and now cached
    workflow.unpublish_entry(published["alpha"], user=editor, comment="Withdrawn.")
    for reader, url, shown in show_urls_of("aardvark"):
        response = reader.get(url)
        if "glossary/aardvark/" in url:
            assert response.status_code == 404, url
        else:
            assert shown not in response.content.decode(), url


def test_moving_a_draft_to_another_show_moves_no_public_page_until_it_is_published(
    make_ready_entry: Callable[..., Entry],
    alpha: Show,
    beta: Show,
    writer: Any,
    editor: Any,
    second_editor: Any,
    client: Client,
) -> None:
    entry = make_ready_entry("Aardvark Protocol", slug="aardvark", show=alpha, in_review=True)
    # Nothing reaches readers before someone other than its writer publishes it.
    assert "Aardvark" not in text(client.get("/shows/alpha/"))
    assert client.get("/shows/alpha/glossary/aardvark/").status_code == 404
    with pytest.raises(PermissionDenied):
        workflow.publish_entry(entry, user=writer)
    assert client.get("/shows/alpha/glossary/aardvark/").status_code == 404
    workflow.publish_entry(entry, user=editor)
    assert "Aardvark" in text(client.get("/shows/alpha/glossary/aardvark/"))

    # An editor moves the working copy to beta and saves it: readers still find it on alpha.
    entry.refresh_from_db()
    entry.show = beta
    entry.save()
    publishing.record_edit(entry, user=editor, comment="Belongs to beta.")
    assert "Aardvark" in text(client.get("/shows/alpha/"))
    assert "Aardvark" not in text(client.get("/shows/beta/"))
    assert "Aardvark" in text(client.get("/shows/alpha/glossary/aardvark/"))
    assert "Aardvark" not in text(client.get("/shows/beta/search/?q=aardvark"))
    # A full re-render (a deploy's `manage.py rerender`) does not move it either.
    search_reindexed = publishing.rerender_all()
    assert search_reindexed >= 1
    assert "Aardvark" in text(client.get("/shows/alpha/"))

    workflow.submit_for_review(entry, user=editor)
    # Who moved it may not approve the move.
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(entry, user=editor)
    assert "Aardvark" in text(client.get("/shows/alpha/"))
    assert "Aardvark" not in text(client.get("/shows/beta/"))
    workflow.publish_entry(entry, user=second_editor)
    assert "Aardvark" in text(client.get("/shows/beta/"))
    assert "Aardvark" not in text(client.get("/shows/alpha/"))
    assert client.get("/shows/alpha/glossary/aardvark/")["Location"].endswith(
        "/shows/beta/glossary/aardvark/"
    )


# --- What a show's host may be -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("https://alpha.example.test", "host name alone"),
        ("alpha.example.test/glossary", "host name alone"),
        ("Alpha.example.test", "lowercase"),
        ("not a host", "Enter a host name"),
        ("glossary.example.test", "network's own host"),
        ("unlisted.example.test", "add it to SHOW_PUBLIC_HOSTS"),
    ],
)
def test_a_public_host_must_be_a_host_this_server_answers_for(
    db: Any, value: str, message: str
) -> None:
    show = Show(name="Gamma", slug="gamma", public_host=value)
    with pytest.raises(ValidationError) as raised:
        show.full_clean()
    assert message in str(raised.value.message_dict["public_host"])


def test_a_listed_host_is_accepted(db: Any) -> None:
    Show(name="Gamma", slug="gamma", public_host=BETA_HOST).full_clean()


# --- Query budgets -------------------------------------------------------------------------


def queries(reader: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = reader.get(url)
    assert response.status_code == 200, url
    return len(captured)


def test_a_shows_pages_issue_no_more_queries_than_the_networks(
    published: dict[str, Entry], no_page_cache: Any
) -> None:
    network, on_path, on_host = Client(), Client(), host(ALPHA_HOST)
    pages = [
        "/",
        "/glossary/aardvark/",
        "/search/?q=aardvark",
        "/feed/",
        "/sitemap-entries.xml",
        "/api/v1/entries/",
        "/tags/shared-topic/",
    ]
    on_host.get("/")  # the shows' slugs and hosts are read once per SHOW_SITES_SYNC_SECONDS
    for page in pages:
        budget = queries(network, page)
        assert queries(on_path, f"/shows/alpha{page}") <= budget, page
        assert queries(on_host, page) <= budget, page
    assert queries(on_host, "/") == 1
    assert queries(on_host, "/glossary/aardvark/") == 1


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="pages are stored on PostgreSQL only; elsewhere each is built per request",
)
def test_a_stored_first_page_is_served_on_the_networks_site_only(
    make_entry: Callable[..., Entry], alpha: Show, no_page_cache: Any
) -> None:
    person = Person.objects.create(name="Gwen Guest", slug="gwen-guest")
    episode = Episode.objects.create(show=alpha, season=1, number=4, title="On storage")
    entry = make_entry("Aardvark Protocol", slug="aardvark", show=alpha)
    EpisodeReference.objects.create(
        entry=entry, episode=episode, at=30, speaker=person, text="Aardvark said."
    )
    make_live_unchecked(entry)
    stored_pages.store_all_first_pages()
    # A mark only the stored page carries: whoever shows it was served the stored page.
    stored = StoredPage.objects.get(kind=PublicRecord.Kind.PERSON, slug="gwen-guest")
    stored.parts = stored.parts.replace("Gwen Guest", "STORED MARK")
    stored.save()
    assert "STORED MARK" in text(Client().get("/people/gwen-guest/"))
    on_host = text(host(ALPHA_HOST).get("/people/gwen-guest/"))
    on_path = text(Client().get("/shows/alpha/people/gwen-guest/"))
    for page in (on_host, on_path):
        assert "STORED MARK" not in page and "Gwen Guest" in page
