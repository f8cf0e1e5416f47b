"""Nothing unpublished reaches a reader: every public URL pattern is walked, and the site crawled.

Unpublished content of every kind carries a marker: a draft, an entry in review,
an unpublished change to a published entry (with its own quote, source and
disclosure), an archived entry, a see-also target that is still a draft, and
the people, organisation, episode and tag that only unpublished work mentions.
The URL patterns come from the URLconf, not from a list here; a new public
route without parameters to fill below fails the walk until it is added.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from glossary import publishing
from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    EntryVersion,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    Quote,
    SeeAlso,
    Show,
    Source,
    Sponsorship,
)
from glossary.sitemaps import SITEMAPS
from tests.live import make_live_unchecked

MARK = "zebraquill"
# What the walk searches for: it finds MARK (see the control test below), while the
# page's echo of the query itself does not contain MARK.
PROBE = MARK[:-1]
# Routes owned by others that show drafts on purpose, or are not public pages.
# notifications/: the opt-out page behind a signed token names only its own person.
# calendar/: a desk member's own calendar feed behind a signed token (docs/assignments.md):
# the desk's plans for that person, drafts included, never a reader's page.
EXCLUDED_PREFIXES = ("admin/", "preview/", "notifications/", "calendar/")


def walk(patterns: list[Any], prefix: str = "", namespace: str = "") -> Iterator[tuple[str, str]]:
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = f"{namespace}{p.namespace}:" if p.namespace else namespace
            yield from walk(p.url_patterns, prefix + str(p.pattern), ns)
        elif isinstance(p, URLPattern):
            yield f"{namespace}{p.name}", prefix + str(p.pattern)


def public_patterns() -> list[tuple[str, str]]:
    return [
        (name, route)
        for name, route in walk(get_resolver().url_patterns)
        if not route.startswith(EXCLUDED_PREFIXES)
    ]


@pytest.fixture
def unpublished(demo) -> dict[str, Any]:
    """Unpublished work of every kind, each part carrying MARK."""
    show = Show.objects.get(slug="demo-show")
    org = Organisation.objects.create(name=f"{MARK.title()} Org", slug=f"{MARK}-org")
    person = Person.objects.create(name=f"{MARK.title()} Person", slug=f"{MARK}-person")
    episode = Episode.objects.create(
        show=show,
        season=9,
        number=901,
        title=f"{MARK} episode",
        duration=3600,
        url=f"https://podcast.example/{MARK}",
    )
    Sponsorship.objects.create(episode=episode, organisation=org, read_at=10)
    Appearance.objects.create(episode=episode, person=person, affiliation=org)
    source = Source.objects.create(url=f"https://{MARK}.example/", title=f"{MARK} source")

    def dress(entry: Entry) -> None:
        """Give `entry` a quote, reference, disclosure, citation and tag carrying MARK."""
        ref = EpisodeReference.objects.create(
            entry=entry, episode=episode, at=100, speaker=person, text=f"{MARK} says so."
        )
        Disclosure.objects.create(
            entry=entry,
            reference=ref,
            kind="commercial_interest",
            organisation=org,
            text=f"{MARK} disclosure.",
        )
        Quote.objects.create(
            entry=entry,
            episode=episode,
            speaker=person,
            start=100,
            text=f"{MARK} quote",
            verbatim=f"um {MARK} quote",
        )
        Citation.objects.create(entry=entry, source=source, note=f"{MARK} note")
        entry.tags.add(f"{MARK}-tag")

    draft = Entry.objects.create(
        term=f"{MARK.title()} draft",
        slug=f"{MARK}-draft",
        show=show,
        summary=f"{MARK} summary",
        body=f"{MARK} body",
        aliases=f"{MARK.title()} alias",
    )
    dress(draft)
    publishing.save_version(draft, comment="a saved draft version")

    in_review = Entry.objects.create(
        term=f"{MARK.title()} review",
        slug=f"{MARK}-review",
        show=show,
        body=f"{MARK} body",
        status=Entry.Status.IN_REVIEW,
    )
    dress(in_review)
    publishing.save_version(in_review)

    changed = Entry.objects.get(slug="gpu")
    changed.body += f"\n\n{MARK} added later."
    changed.aliases += f"\n{MARK.title()} GPU"
    changed.save()
    dress(changed)
    SeeAlso.objects.create(entry=changed, target=draft, note=f"{MARK} see-also note")
    version = publishing.save_version(changed)
    version.correction_note = f"{MARK} correction not yet published"
    version.save()

    archived = Entry.objects.create(
        term=f"{MARK.title()} archived",
        slug=f"{MARK}-archived",
        show=show,
        body=f"{MARK} body",
        aliases=f"{MARK.title()} old name",
    )
    dress(archived)
    make_live_unchecked(archived, correction_note=f"{MARK} archived correction")
    publishing.unpublish(archived, archive=True)

    # A published entry pointing at a draft: the page names it, but never its address.
    unreleased = Entry.objects.create(term="Unreleased idea", slug=f"{MARK}-unreleased", show=show)
    pointing = Entry.objects.get(slug="accelerator")
    SeeAlso.objects.create(entry=pointing, target=unreleased, order=9)
    make_live_unchecked(pointing)

    assert not Entry.objects.published().filter(slug__startswith=MARK).exists()
    assert EntryVersion.objects.filter(data__icontains=MARK).exists()
    return {
        "entries": [draft, in_review, archived, unreleased],
        "person": person,
        "org": org,
        "episode": episode,
        "tag": f"{MARK}-tag",
    }


def live_params() -> dict[str, list[dict[str, Any]]]:
    """Path parameters for every route, from published objects only."""
    live = EntryVersion.objects.filter(live_for__isnull=False)
    slugs = list(live.values_list("slug", flat=True))
    episodes = Episode.objects.filter(entry_versions__in=live).distinct().select_related("show")
    people = set(Person.objects.filter(entry_versions__in=live).values_list("slug", flat=True))
    people |= set(
        Appearance.objects.filter(episode__in=episodes).values_list("person__slug", flat=True)
    )
    orgs = set(Organisation.objects.filter(entry_versions__in=live).values_list("slug", flat=True))
    orgs |= set(
        Sponsorship.objects.filter(episode__in=episodes).values_list(
            "organisation__slug", flat=True
        )
    )
    tags = set(live.values_list("tags__slug", flat=True)) - {None}
    ep = [{"show": e.show.slug, "season": e.season, "number": e.number} for e in episodes]
    return {
        "glossary:entry": [{"slug": s} for s in slugs],
        "glossary:api-entry": [{"slug": s} for s in slugs],
        "glossary:episode": ep,
        "glossary:episode-chapters": ep,
        "glossary:episode-soundbites": ep,
        "glossary:api-episode": [{"id": e.pk} for e in episodes],
        "glossary:person": [{"slug": s} for s in people],
        "glossary:api-person": [{"slug": s} for s in people],
        "glossary:organisation": [{"slug": s} for s in orgs],
        "glossary:api-organisation": [{"slug": s} for s in orgs],
        "glossary:tag": [{"slug": s} for s in tags],
        "glossary:api-tag": [{"slug": s} for s in tags],
        "glossary:sitemap-section": [{"section": s} for s in SITEMAPS],
    }


def hidden_params(hidden: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Path parameters naming the unpublished objects: every one must be 404."""
    slugs = [e.slug for e in hidden["entries"]]
    ep = hidden["episode"]
    return {
        "glossary:entry": [{"slug": s} for s in slugs],
        "glossary:api-entry": [{"slug": s} for s in slugs],
        "glossary:episode": [{"show": ep.show.slug, "season": ep.season, "number": ep.number}],
        "glossary:episode-chapters": [
            {"show": ep.show.slug, "season": ep.season, "number": ep.number}
        ],
        "glossary:episode-soundbites": [
            {"show": ep.show.slug, "season": ep.season, "number": ep.number}
        ],
        "glossary:api-episode": [{"id": ep.pk}],
        "glossary:person": [{"slug": hidden["person"].slug}],
        "glossary:api-person": [{"slug": hidden["person"].slug}],
        "glossary:organisation": [{"slug": hidden["org"].slug}],
        "glossary:api-organisation": [{"slug": hidden["org"].slug}],
        "glossary:tag": [{"slug": hidden["tag"]}],
        "glossary:api-tag": [{"slug": hidden["tag"]}],
    }


def fill(route: str, kwargs: dict[str, Any]) -> str:
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(kwargs[m.group(1)]), route)


QUERIES = ["", f"?q={PROBE}", f"?q={PROBE}&page_size=100", "?page_size=100"]


def assert_clean(response: Any, url: str) -> None:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert MARK not in body.decode().lower(), f"{url} shows unpublished content"
    assert MARK not in response.get("Location", "").lower(), f"{url} redirects to a draft"


# The network's site, and the demo show's own (docs/show-sites.md), whose entries and
# drafts are all the demo show's: every pattern is walked on both.
SITES = pytest.mark.parametrize("site", ["", "/shows/demo-show"], ids=["network", "show-site"])


@SITES
def test_every_public_url_pattern_hides_unpublished_content(client, unpublished, site):
    params = live_params()
    walked = 0
    for name, route in public_patterns():
        if "<" in route:
            assert name in params, f"the draft-leak walk does not know how to fill {route}"
            fillings = params[name]
            assert fillings, f"no published object to fill {route}"
        else:
            fillings = [{}]
        if site and name == "glossary:sitemap-section":
            # A show's sitemap has its entries' section alone (docs/show-sites.md).
            fillings = [{"section": "entries"}]
        for kwargs in fillings:
            for query in QUERIES:
                url = site + fill(route, kwargs) + query
                response = client.get(url)
                assert response.status_code in (200, 301, 400), url
                assert_clean(response, url)
                walked += 1
    assert walked > 100


@SITES
def test_every_unpublished_object_answers_404_on_every_pattern(client, unpublished, site):
    for name, kwargs_list in hidden_params(unpublished).items():
        route = next(r for n, r in public_patterns() if n == name)
        for kwargs in kwargs_list:
            url = site + fill(route, kwargs)
            response = client.get(url)
            assert response.status_code == 404, url
            assert_clean(response, url)


@SITES
def test_aliases_and_old_addresses_of_unpublished_entries_lead_nowhere(client, unpublished, site):
    for slug in (f"{MARK}-alias", f"{MARK}-old-name", f"{MARK}-gpu"):
        assert client.get(f"{site}/glossary/{slug}/").status_code == 404


@SITES
def test_a_crawl_from_the_home_page_never_meets_unpublished_content(client, unpublished, site):
    seen: set[str] = set()
    queue = [f"{site}{path}" for path in ("/", "/sitemap.xml", "/feed/", f"/search/?q={PROBE}")]
    queue.append("/api/openapi.json")
    while queue and len(seen) < 600:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        assert response.status_code in (200, 301), url
        assert_clean(response, url)
        if response.status_code == 301:
            queue.append(response["Location"])
            continue
        text = response.content.decode()
        if url == "/api/openapi.json":
            queue += [p for p in response.json()["paths"] if "{" not in p and "search" not in p]
        for link in re.findall(r'(?:href="|<loc>|"(?:url|api_url|next)": ?")([^"<]+)', text):
            link = link.replace("&amp;", "&").removeprefix("http://127.0.0.1:8000")
            if link.startswith("/") and not link.startswith(("/admin/", "/preview/")):
                queue.append(link)
    assert len(seen) > 60
    assert f"{site}/glossary/interconnect/" in seen
    assert "/people/jeetu-patel/" in seen or f"{site}/people/jeetu-patel/" in seen


def test_the_published_page_names_a_draft_see_also_target_without_linking_it(client, unpublished):
    page = client.get("/glossary/accelerator/").content.decode()
    assert "Unreleased idea" in page
    assert f"/glossary/{MARK}-unreleased/" not in page


def test_the_probe_would_find_the_marker_once_published(client, unpublished):
    """Control: the walk's search really reaches the marked text when it is public."""
    make_live_unchecked(unpublished["entries"][0])
    assert MARK in client.get(f"/search/?q={PROBE}").content.decode().lower()
    assert MARK in client.get(f"/api/v1/search/?q={PROBE}").content.decode().lower()
    assert client.get(f"/people/{MARK}-person/").status_code == 200
