"""The links from an episode's public record to the people and organisations it names.

A person's or organisation's page lists its episodes from these links alone: each
carries its episode's place in lists and what that page shows of the episode, copied
from the episode record whenever the record is written (glossary.records).
"""

import importlib
import re

import pytest
from django.apps import apps

from glossary import records
from glossary.models import (
    Appearance,
    Disclosure,
    Entry,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    PublicRecord,
    PublicRecordLink,
    Show,
    Sponsorship,
)
from tests.live import make_live_unchecked


@pytest.fixture
def sponsored(db):
    """An entry citing two episodes of two shows; a guest from the sponsor on both."""
    alpha = Show.objects.create(name="Alpha Show", slug="alpha-show")
    zulu = Show.objects.create(name="Zulu Show", slug="zulu-show")
    sponsor = Organisation.objects.create(name="Sponsor Co", slug="sponsor-co")
    guest = Person.objects.create(name="Gia Guest", slug="gia-guest")
    entry = Entry.objects.create(term="Fabric", slug="fabric", summary="S.", body="B.")
    for show, number in ((alpha, 3), (zulu, 9)):
        episode = Episode.objects.create(
            show=show,
            season=1,
            number=number,
            title=f"Episode of {show.name}",
            duration=3600,
            audio_url=f"https://podcast.example/{show.slug}/{number}.mp3",
        )
        Appearance.objects.create(
            episode=episode,
            person=guest,
            role=Appearance.Role.GUEST,
            affiliation=sponsor,
            title="Chief Scientist",
        )
        Sponsorship.objects.create(episode=episode, organisation=sponsor, read_at=65)
        EpisodeReference.objects.create(entry=entry, episode=episode, at=10, text="Said it.")
    make_live_unchecked(entry)
    return entry, guest, sponsor


def facts(kind, object_id):
    return list(
        PublicRecordLink.objects.filter(kind=kind, object_id=object_id)
        .order_by("sort_key")
        .values_list("facts", flat=True)
    )


def test_a_link_carries_what_the_named_page_shows_of_its_episode(sponsored):
    _, guest, sponsor = sponsored
    person = facts("person", guest.pk)[0]
    assert person["roles"] == [["guest", sponsor.pk]]
    assert person["anchor"] == (
        '<a href="/episodes/alpha-show/1/3/">Episode 3: <cite>Episode of Alpha Show</cite></a>'
    )
    org = facts("organisation", sponsor.pk)[0]
    assert org["number"] == 3
    assert org["reads"] == [65]
    assert org["people"] == [[guest.pk, "Chief Scientist"]]
    assert org["audio_url"] == "https://podcast.example/alpha-show/3.mp3"


def test_the_person_and_organisation_pages_show_what_the_links_carry(client, sponsored):
    person = client.get("/people/gia-guest/").content.decode()
    assert (
        '<a href="/episodes/alpha-show/1/3/">Episode 3: <cite>Episode of Alpha Show</cite></a>'
        ' (guest, then at <a href="/organisations/sponsor-co/">Sponsor Co</a>)'
    ) in person
    org = client.get("/organisations/sponsor-co/").content.decode()
    assert "sponsor read at" in org
    assert 'href="https://podcast.example/alpha-show/3.mp3#t=65"' in org
    assert (
        '<a href="/people/gia-guest/">Gia Guest</a>, Chief Scientist, on '
        '<a href="/episodes/zulu-show/1/9/">episode 9</a>'
    ) in org


def test_names_on_those_pages_come_from_their_own_records(client, sponsored):
    """The links hold ids: a correction published with an entry that draws on none of
    these episodes (so writes none of their records) still reaches every line."""
    _, _, sponsor = sponsored
    Organisation.objects.filter(pk=sponsor.pk).update(name="Sponsor Corp")
    assert "Sponsor Corp" not in client.get("/people/gia-guest/").content.decode()
    other = Entry.objects.create(term="Mesh", slug="mesh", summary="S.", body="B.")
    Disclosure.objects.create(
        entry=other,
        kind=Disclosure.Kind.COMMERCIAL_INTEREST,
        organisation=sponsor,
        text="Sponsor Corp sells meshes.",
    )
    links = sorted(PublicRecordLink.objects.values_list("pk", flat=True))
    make_live_unchecked(other)
    # No episode record was written, so no link was either.
    assert sorted(PublicRecordLink.objects.values_list("pk", flat=True)) == links
    page = client.get("/people/gia-guest/").content.decode()
    assert page.count('<a href="/organisations/sponsor-co/">Sponsor Corp</a>') == 2


def test_a_show_renamed_at_the_same_address_moves_its_episodes_on_the_persons_page(
    client, sponsored
):
    """The episode's facts and address stay; only its place in lists changes."""
    entry, _, _ = sponsored

    def numbers():
        page = client.get("/people/gia-guest/").content.decode()
        return [int(n) for n in re.findall(r'/1/(\d+)/">Episode', page)]

    assert numbers() == [3, 9]
    Show.objects.filter(slug="zulu-show").update(name="Aardvark Show")
    make_live_unchecked(entry)
    assert numbers() == [9, 3]


def test_a_changed_episode_changes_its_links_facts(sponsored):
    entry, guest, sponsor = sponsored
    Appearance.objects.filter(person=guest).update(role=Appearance.Role.HOST, affiliation=None)
    Episode.objects.filter(number=3).update(title="Chips & <Racks>")
    make_live_unchecked(entry)
    assert "<cite>Chips &amp; &lt;Racks&gt;</cite>" in facts("person", guest.pk)[0]["anchor"]
    assert [f["roles"] for f in facts("person", guest.pk)] == [[["host", None]]] * 2
    assert [f["people"] for f in facts("organisation", sponsor.pk)] == [[], []]


def test_the_migration_fills_in_the_links_kept(sponsored):
    _, guest, sponsor = sponsored
    kept = {link.pk: link.facts for link in PublicRecordLink.objects.all()}
    PublicRecordLink.objects.update(facts={})
    migration = importlib.import_module("glossary.migrations.0021_fill_the_links_facts")
    migration.fill_facts(apps, None)
    assert {link.pk: link.facts for link in PublicRecordLink.objects.all()} == kept
    episode = PublicRecord.objects.filter(kind="episode").first()
    assert episode is not None
    for link in PublicRecordLink.objects.filter(record=episode):
        assert link.facts == records.link_facts(link.kind, link.object_id, episode)
