"""The desk's pages cost the same number of queries, and list the same options, at any size.

Each test measures a page with small tables, then bulk-creates thousands of rows
in every table the page could read (entries, versions, quotes, citations,
see-also links, sources, episodes, people, organisations, tags, link checks) and
measures again: the query count is pinned, equal at both sizes, and no select or
filter lists the new rows.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from taggit.models import Tag, TaggedItem

from editorial.models import SourceHealthChange
from glossary.models import (
    Citation,
    Disclosure,
    Entry,
    EntryVersion,
    Episode,
    EpisodeReference,
    LinkCheck,
    Organisation,
    Person,
    Quote,
    SeeAlso,
    Show,
    Source,
)
from tests.personas import NOW

LARGE = 2000
ENTRIES = "/admin/glossary/entry/"


def grow(n: int = LARGE) -> None:
    """Thousands of rows in every table the desk's pages could read, bulk-created."""
    shows = Show.objects.bulk_create(
        Show(name=f"Bulk show {i}", slug=f"bulk-show-{i}") for i in range(n // 100)
    )
    episodes = Episode.objects.bulk_create(
        Episode(show=shows[i % len(shows)], season=1, number=i + 1, title=f"E{i}", duration=3600)
        for i in range(n)
    )
    people = Person.objects.bulk_create(
        Person(name=f"Bulk person {i}", slug=f"bulk-person-{i}") for i in range(n)
    )
    Organisation.objects.bulk_create(
        Organisation(name=f"Bulk org {i}", slug=f"bulk-org-{i}") for i in range(n)
    )
    sources = Source.objects.bulk_create(
        Source(
            url=f"https://bulk.example/{i}",
            title=f"Bulk source {i}",
            health=Source.Health.BROKEN if i % 10 == 0 else Source.Health.OK,
        )
        for i in range(n)
    )
    tags = Tag.objects.bulk_create(
        Tag(name=f"bulk tag {i}", slug=f"bulk-tag-{i}") for i in range(n)
    )
    entries = Entry.objects.bulk_create(
        Entry(
            term=f"Bulk {i}",
            slug=f"bulk-{i}",
            summary=f"Bulk summary {i}.",
            status=Entry.Status.PUBLISHED if i % 2 else Entry.Status.IN_REVIEW,
        )
        for i in range(n)
    )
    versions = EntryVersion.objects.bulk_create(
        EntryVersion(entry=e, number=1, data={}, term=e.term, slug=e.slug, published_at=NOW)
        for e in entries
    )
    for entry, version in zip(entries, versions, strict=True):
        entry.live_version = version if entry.status == Entry.Status.PUBLISHED else None
        entry.last_published_at = NOW - datetime.timedelta(days=400)
    Entry.objects.bulk_update(entries, ["live_version", "last_published_at"], batch_size=500)
    refs = EpisodeReference.objects.bulk_create(
        EpisodeReference(entry=e, episode=episodes[i], at=60, speaker=people[i], text="r")
        for i, e in enumerate(entries)
    )
    Disclosure.objects.bulk_create(
        Disclosure(entry=e, kind="other", reference=refs[i], text="d")
        for i, e in enumerate(entries)
    )
    Quote.objects.bulk_create(
        Quote(entry=e, episode=episodes[i], speaker=people[i], start=30, text="q")
        for i, e in enumerate(entries)
    )
    Citation.objects.bulk_create(
        Citation(entry=e, source=sources[i], checked_on=datetime.date(2020, 1, 1))
        for i, e in enumerate(entries)
    )
    SeeAlso.objects.bulk_create(
        SeeAlso(entry=e, target=entries[i - 1]) for i, e in enumerate(entries) if i
    )
    entry_type = ContentType.objects.get_for_model(Entry)
    TaggedItem.objects.bulk_create(
        TaggedItem(tag=tags[i], content_type=entry_type, object_id=e.pk)
        for i, e in enumerate(entries)
    )
    LinkCheck.objects.bulk_create(
        LinkCheck(
            source=s, url=s.url, checked_at=NOW - datetime.timedelta(days=i % 60), outcome="ok"
        )
        for i, s in enumerate(sources)
    )
    # The dashboard's health chart reads these.
    SourceHealthChange.objects.bulk_create(
        SourceHealthChange(
            source=s,
            url=s.url,
            at=NOW - datetime.timedelta(days=i % 60),
            from_health="unchecked",
            to_health="ok",
            outcome="ok",
        )
        for i, s in enumerate(sources)
    )


@pytest.fixture
def desk(client: Client, superuser: User) -> Client:
    client.force_login(superuser)
    return client


@pytest.fixture
def small_entry(
    make_entry: Callable[..., Entry],
    make_source: Callable[..., Source],
    episode: Episode,
    person: Person,
) -> Entry:
    """An entry with a row of every part, as editors see it."""
    entry = make_entry("Interconnect")
    other = make_entry("Fabric")
    ref = EpisodeReference.objects.create(
        entry=entry, episode=episode, at=60, speaker=person, text="r"
    )
    Quote.objects.create(entry=entry, episode=episode, speaker=person, start=30, text="q")
    Citation.objects.create(entry=entry, source=make_source(), note="n")
    Disclosure.objects.create(entry=entry, kind="other", reference=ref, text="d")
    SeeAlso.objects.create(entry=entry, target=other)
    entry.tags.add("networking")
    return entry


def measure(client: Client, url: str) -> tuple[int, int, str]:
    """(queries, <option>s, body) of one GET, after a first GET warms sessions and caches."""
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    body = response.content.decode()
    return len(queries), len(re.findall(r"<option\b", body)), body


def same_at_size(client: Client, url: str | Callable[[], str], pinned: int) -> str:
    def address() -> str:
        return url() if callable(url) else url

    small, small_options, _ = measure(client, address())
    grow()
    large, large_options, body = measure(client, address())
    assert (small, large) == (pinned, pinned)
    assert small_options == large_options
    return body


def test_the_entry_change_page_costs_the_same_with_thousands_of_rows_elsewhere(
    desk: Client, small_entry: Entry
) -> None:
    # A draft: who wrote its change needs no read of a live publication (a live entry's
    # page makes one more, 43 in bench/admin at every size); one reads the shared records
    # the signed-in editor edited (none here: workflow.records_edited_in_change); two read
    # the comment threads (the panel's, and the publish checks' open ones); one reads the
    # entry's open assignments (docs/assignments.md); three say who else has it open and
    # what the viewer kept of it (editorial.presence: one upsert marking the viewer, one
    # read of the others; one count of their refused edits).
    body = same_at_size(desk, f"{ENTRIES}{small_entry.pk}/change/", 45)
    assert "Bulk source 1" not in body and "Bulk person 1" not in body


def test_the_entry_change_page_costs_the_same_for_one_part_of_each_kind_or_six(
    desk: Client,
    small_entry: Entry,
    make_entry: Callable[..., Entry],
    make_source: Callable[..., Source],
    episode: Episode,
) -> None:
    url = f"{ENTRIES}{small_entry.pk}/change/"
    one, _, _ = measure(desk, url)
    for n in range(5):
        checker = User.objects.create_user(f"checker-{n}")
        speaker = Person.objects.create(name=f"Speaker {n}", slug=f"speaker-{n}")
        other = Episode.objects.create(show=episode.show, season=9, number=n + 1, duration=3600)
        ref = EpisodeReference.objects.create(
            entry=small_entry, episode=other, at=60, speaker=speaker, text="r"
        )
        Quote.objects.create(entry=small_entry, episode=other, speaker=speaker, start=30, text="q")
        Citation.objects.create(
            entry=small_entry,
            source=make_source(url=f"https://example.com/{n}"),
            checked_on=datetime.date(2026, 11, 1),
            checked_by=checker,
        )
        Disclosure.objects.create(entry=small_entry, kind="other", reference=ref, text="d")
        SeeAlso.objects.create(entry=small_entry, target=make_entry(f"Target {n}"))
    six, _, body = measure(desk, url)
    assert six == one
    assert "checker-4" in body


def test_the_entry_add_page_costs_the_same_with_thousands_of_rows_elsewhere(
    desk: Client, small_entry: Entry
) -> None:
    # 3: one read of the shows, to file a new entry under the only one when there is one
    # (docs/shows-and-teams.md); two rows at most, whatever the number of shows. A second
    # show from the start, so neither measure offers a default the other does not.
    Show.objects.create(name="Second show", slug="second-show")
    body = same_at_size(desk, f"{ENTRIES}add/", 3)
    assert "Bulk" not in body


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?status__exact=published",
        "?q=interconnect",
        "?sources=stale",
        "?sources=unhealthy",
        "?o=-5",
    ],
)
def test_the_entry_list_costs_the_same_with_thousands_of_entries(
    desk: Client, small_entry: Entry, query: str
) -> None:
    same_at_size(desk, ENTRIES + query, 7)


def test_the_show_and_tag_filters_cost_the_same_with_thousands_of_shows_and_tags(
    desk: Client, small_entry: Entry, episode: Episode
) -> None:
    same_at_size(desk, f"{ENTRIES}?show={episode.show_id}&tag=networking", 7)


def test_the_dashboard_costs_the_same_with_thousands_of_entries_and_sources(
    desk: Client, small_entry: Entry
) -> None:
    # 27 with the list of emails that could not be sent (one query, by its own index).
    same_at_size(desk, "/admin/dashboard/", 27)


def test_the_tag_filter_lists_the_most_used_tags_and_keeps_the_chosen_one(
    desk: Client, small_entry: Entry
) -> None:
    grow()
    _, _, body = measure(desk, f"{ENTRIES}?tag=networking")
    assert "networking" in body
    assert "Interconnect" in body and "Bulk 3" not in body


def test_the_show_filter_finds_entries_quoting_or_citing_an_episode_of_the_show(
    desk: Client, small_entry: Entry, episode: Episode, make_entry: Callable[..., Entry]
) -> None:
    make_entry("Unrelated")
    _, _, body = measure(desk, f"{ENTRIES}?show={episode.show_id}")
    assert "Interconnect" in body and "Unrelated" not in body


def test_a_filter_value_that_names_nothing_lists_nothing_rather_than_failing(
    desk: Client, small_entry: Entry
) -> None:
    response = desk.get(f"{ENTRIES}?tag=no-such-tag")
    assert response.status_code == 200
    assert "Interconnect" not in response.content.decode().split("result_list")[-1]
