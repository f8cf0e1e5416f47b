"""Every public page issues a fixed number of queries, whatever the size of what it shows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from glossary import document
from glossary.models import Episode

# Queries per page, uncached. A change here is a change in how a page reads the database.
EXPECTED = {
    "entry": 1,
    # letters' counts (kept at publish) with the recently updated, then the page's rows
    "home": 1,
    # record (with how many entries name it, kept at publish), the first page of its
    # entries with each one's moments from the episode (glossary.listing_rows) and the
    # records it names (show, organisations, people), one statement. A later page reads
    # its entries on its own.
    "episode": 1,
    "episodes": 3,
    # record with the first episodes naming them (and both counts), the first page of its
    # entries with each one's quotes by the person and the organisations they spoke for
    # on those episodes, one statement
    "person": 1,
    "people": 2,
    # record with the first episodes naming it (and both counts), the first page of its
    # entries with each one's disclosures of it and those episodes' shows and people, one
    # statement
    "organisation": 1,
    "organisations": 2,
    # record, a page of its entries' rows
    "tag": 2,
    "tags": 2,
    # the first two tiers of the ranking with the second's count, then a query per further
    # tier the page reaches (here all four: names, then every word in the summary or
    # above, the body or above, anywhere; a full page stops at the tier that fills it);
    # each reads its hits' text, for the passages that matched, with them
    "search": 3,
    "feed": 1,
    # the index: a count per section (5), the entries' latest change
    "sitemap": 6,
    # one page of entries, read from its first on (the kept total only for a page past the end)
    "sitemap-entries": 1,
    "api-entries": 2,
    "api-entry": 1,
    "api-episode": 5,
    "api-tag": 2,
    "api-tags": 2,
    "api-person": 2,
    "api-organisation": 4,
    "api-organisations": 2,
}


def urls(entry) -> dict[str, str]:
    version = entry.live_version
    doc = document.load(version.data)
    quote = doc.quotes[0]
    episode = Episode.objects.get(pk=quote.episode)
    person = doc.facts.people[quote.speaker].slug
    org = doc.facts.affiliation(quote.episode, quote.speaker).slug
    tag = version.tags.first().slug
    return {
        "entry": f"/glossary/{version.slug}/",
        "home": "/",
        "episode": episode.get_absolute_url(),
        "episodes": "/episodes/",
        "person": f"/people/{person}/",
        "people": "/people/",
        "organisation": f"/organisations/{org}/",
        "organisations": "/organisations/",
        "tag": f"/tags/{tag}/",
        "tags": "/tags/",
        "search": "/search/?q=rich",
        "feed": "/feed/",
        "sitemap": "/sitemap.xml",
        "sitemap-entries": "/sitemap-entries.xml",
        "api-entries": "/api/v1/entries/",
        "api-entry": f"/api/v1/entries/{version.slug}/",
        "api-episode": f"/api/v1/episodes/{episode.pk}/",
        "api-tag": f"/api/v1/tags/{tag}/",
        "api-tags": "/api/v1/tags/",
        "api-person": f"/api/v1/people/{person}/",
        "api-organisation": f"/api/v1/organisations/{org}/",
        "api-organisations": "/api/v1/organisations/",
    }


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


@pytest.mark.parametrize("shared", [False, True], ids=["parts-apart", "parts-together"])
def test_every_page_issues_the_same_queries_for_1_and_for_50_parts(
    client, rich_entry, no_page_cache, shared
):
    small = urls(rich_entry(1, shared=shared))
    small_counts = {name: count(client, url) for name, url in small.items()}
    large = urls(rich_entry(50, shared=shared))
    large_counts = {name: count(client, url) for name, url in large.items()}
    # The large page really shows all fifty of each.
    page = client.get(large["entry"]).content.decode()
    assert page.count('<figure class="quote">') == 50
    assert page.count("checked <time") == 50
    assert page.count('href="/glossary/target-') == 50
    assert large_counts == small_counts
    assert small_counts == EXPECTED
