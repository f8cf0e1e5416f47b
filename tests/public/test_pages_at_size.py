"""Public pages at size: every long list pages, a host on every episode does not grow a page."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from glossary import publishing, reference_views, views
from glossary.models import (
    Appearance,
    Entry,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    PublicRecordLink,
    Show,
    Sponsorship,
)
from glossary.reference_views import EPISODES_SHOWN
from tests.live import make_live_unchecked

EPISODES = EPISODES_SHOWN + 7


@pytest.fixture
def busy_host(db):
    """A host on every one of many episodes, each sponsored by one organisation."""
    show = Show.objects.create(name="Long Show", slug="long-show")
    host = Person.objects.create(name="Hana Host", slug="hana-host")
    sponsor = Organisation.objects.create(name="Sponsor Co", slug="sponsor-co")
    episodes = Episode.objects.bulk_create(
        Episode(show=show, number=n, title=f"Episode {n}") for n in range(1, EPISODES + 1)
    )
    Appearance.objects.bulk_create(
        Appearance(episode=e, person=host, role=Appearance.Role.HOST) for e in episodes
    )
    Sponsorship.objects.bulk_create(
        Sponsorship(episode=e, organisation=sponsor, read_at=60) for e in episodes
    )
    entry = Entry.objects.create(term="Longform", slug="longform", summary="S.", body="B.")
    EpisodeReference.objects.bulk_create(
        EpisodeReference(entry=entry, episode=e, at=10, text="It comes up.") for e in episodes
    )
    return entry, host, sponsor


def test_a_person_on_every_episode_shows_the_first_of_them_and_the_total(client, busy_host):
    entry, host, _ = busy_host
    make_live_unchecked(entry)
    assert PublicRecordLink.objects.filter(kind="person", object_id=host.pk).count() == EPISODES
    page = client.get("/people/hana-host/").content.decode()
    assert len(re.findall(r'<a href="/episodes/long-show/1/\d+/">Episode', page)) == EPISODES_SHOWN
    assert f"From the first {EPISODES_SHOWN} of {EPISODES} episodes" in page
    org = client.get("/organisations/sponsor-co/").content.decode()
    assert f"From the first {EPISODES_SHOWN} of {EPISODES} episodes" in org


def test_the_person_page_reads_a_fixed_number_of_rows_whatever_the_episodes(client, busy_host):
    entry, _, _ = busy_host
    make_live_unchecked(entry)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/people/hana-host/").status_code == 200
    episode_reads = [q["sql"] for q in queries if "publicrecordlink" in q["sql"]]
    assert episode_reads and all("LIMIT" in sql or "COUNT" in sql for sql in episode_reads)


def test_links_follow_withdrawal(busy_host):
    entry, host, _ = busy_host
    make_live_unchecked(entry)
    publishing.unpublish(entry)
    assert not PublicRecordLink.objects.filter(kind="person", object_id=host.pk).exists()


@pytest.mark.parametrize(
    "path",
    ["/", "/tags/widgets/", "/episodes/long-show/1/1/", "/people/hana-host/", "/search/?q=widget"],
)
def test_every_long_list_pages_with_rel_links(client, busy_host, make_entry, monkeypatch, path):
    entry, _, _ = busy_host
    make_live_unchecked(entry)
    episode = Episode.objects.get(number=1)
    # Every list's page is 3 long here (50 or 200 in use): the rule is the same.
    for module, name in (
        (views, "INDEX_PAGE_SIZE"),
        (views, "SEARCH_PAGE_SIZE"),
        (reference_views, "ENTRIES_PAGE_SIZE"),
    ):
        monkeypatch.setattr(module, name, 3)
    for n in range(4):
        widget = make_entry(f"Widget {n:03}", slug=f"widget-{n:03}", body="A widget.")
        widget.tags.add("widgets")
        EpisodeReference.objects.create(entry=widget, episode=episode, at=5, text="Said.")
        make_live_unchecked(widget)
    first = client.get(path).content.decode()
    assert 'rel="next"' in first, path
    assert 'rel="prev"' not in first, path
    joiner = "&" if "?" in path else "?"
    second = client.get(f"{path}{joiner}page=2").content.decode()
    assert 'rel="prev"' in second and 'rel="next"' not in second, path
    assert client.get(f"{path}{joiner}page=3").status_code == 404
    if path.startswith(("/tags/", "/episodes/", "/people/")):
        # The first page's entries are read with the object's record, a later page's on
        # their own: together they are every entry once, A–Z.
        on_first, on_second = _widgets(first), _widgets(second)
        assert on_first and on_second, path
        assert on_first + on_second == [f"widget-{n:03}" for n in range(4)], path


def _widgets(page: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r'href="/glossary/(widget-\d+)/"', page)))


def test_a_renamed_show_moves_its_episodes_and_their_links_on_the_next_publish(client, busy_host):
    """The episode's facts are the same; its address and its place in lists are not."""
    entry, host, _ = busy_host
    make_live_unchecked(entry)
    Show.objects.filter(slug="long-show").update(name="Alpha Show", slug="alpha-show")
    make_live_unchecked(entry)
    assert client.get("/episodes/alpha-show/1/1/").status_code == 200
    assert client.get("/episodes/long-show/1/1/").status_code == 404
    keys = set(
        PublicRecordLink.objects.filter(kind="person", object_id=host.pk).values_list(
            "sort_key", flat=True
        )
    )
    assert keys and all(key.startswith("alpha show|") for key in keys)


def test_a_persons_episodes_are_read_in_list_order_from_the_links(client, busy_host):
    entry, _, _ = busy_host
    make_live_unchecked(entry)
    page = client.get("/people/hana-host/").content.decode()
    numbers = [int(n) for n in re.findall(r'<a href="/episodes/long-show/1/(\d+)/">Episode', page)]
    # Newest first within a season: the last EPISODES_SHOWN of them, in that order.
    assert numbers == list(range(EPISODES, EPISODES - EPISODES_SHOWN, -1))
