"""Episode, person, organisation and tag pages: only what live versions reference."""

from glossary import publishing
from glossary.models import Appearance, Entry, Episode, Organisation, Person, Show


def test_the_episode_page_shows_its_data_and_every_moment_in_timestamp_order(client, demo):
    page = client.get("/episodes/demo-show/3/44/").content.decode()
    assert "Episode 44: <cite>Scale Across: When Two Data Centers Act as One</cite>" in page
    assert '<a href="/organisations/galileo/">Galileo</a>' in page
    assert '<a href="/people/jeetu-patel/">Jeetu Patel</a> (guest)' in page
    assert '<a href="/organisations/cisco/">Cisco</a>' in page
    quote = page.index("Operate as one giant cluster")
    disclosure = page.index("Galileo, is an NVIDIA AI factory partner")
    assert page.index('<time datetime="PT25M38S">25:38</time>') < quote < disclosure
    assert 'href="https://podcast.example/audio/episode-44.mp3#t=1917"' in page
    assert '<a href="/glossary/interconnect/">Interconnect</a>' in page


def test_the_episode_page_shows_the_sponsor_read_timestamp(client, demo):
    page = client.get("/episodes/demo-show/2/28/").content.decode()
    assert 'read at <a href="https://podcast.example/audio/episode-28.mp3#t=5"' in page


def test_an_episode_only_drafts_cite_has_no_page(client, show):
    Episode.objects.create(show=show, season=1, number=99, title="Draft only")
    assert client.get("/episodes/test-show/1/99/").status_code == 404
    assert "Draft only" not in client.get("/episodes/").content.decode()


def test_the_person_page_lists_quotes_and_appearances(client, demo):
    page = client.get("/people/jeetu-patel/").content.decode()
    assert "Operate as one giant cluster" in page
    assert 'quoted in <a href="/glossary/interconnect/">Interconnect</a>' in page
    assert 'then at <a href="/organisations/cisco/">Cisco</a>' in page


def test_a_host_appearing_on_a_public_episode_has_a_page(client, demo):
    assert client.get("/people/conor/").status_code == 200


def test_a_person_known_only_to_drafts_has_no_page(client, demo):
    Person.objects.create(name="Nobody Yet", slug="nobody-yet")
    assert client.get("/people/nobody-yet/").status_code == 404
    assert "Nobody Yet" not in client.get("/people/").content.decode()


def test_the_organisation_page_shows_sponsorships_people_and_disclosures(client, demo):
    galileo = client.get("/organisations/galileo/").content.decode()
    assert "Episodes it sponsored" in galileo
    assert 'href="/episodes/demo-show/2/28/">Episode 28' in galileo
    assert "is an NVIDIA AI factory partner" in galileo
    cisco = client.get("/organisations/cisco/").content.decode()
    assert '<a href="/people/jeetu-patel/">Jeetu Patel</a>' in cisco
    assert "Cisco sells that networking" in cisco


def test_an_organisation_known_only_to_drafts_has_no_page(client, demo):
    org = Organisation.objects.create(name="Quiet Co", slug="quiet-co")
    person = Person.objects.create(name="Quiet Person", slug="quiet-person")
    episode = Episode.objects.create(show=Show.objects.get(), season=5, number=5, title="Q")
    Appearance.objects.create(episode=episode, person=person, affiliation=org)
    assert client.get("/organisations/quiet-co/").status_code == 404


def test_the_tag_page_lists_live_entries_only(client, demo):
    page = client.get("/tags/networking/").content.decode()
    assert "Tagged “networking”" in page
    assert 'href="/glossary/interconnect/"' in page
    publishing.unpublish(Entry.objects.get(slug="interconnect"))
    assert 'href="/glossary/interconnect/"' not in client.get("/tags/networking/").content.decode()


def test_a_tag_only_drafts_carry_has_no_page(client, make_entry):
    make_entry("Hidden", slug="hidden").tags.add("secret-topic")
    assert client.get("/tags/secret-topic/").status_code == 404
    assert "secret-topic" not in client.get("/tags/").content.decode()


def test_the_tag_list_counts_live_entries(client, demo):
    page = client.get("/tags/").content.decode()
    assert '<a href="/tags/networking/" rel="tag">networking</a>' in page
    assert "(6 entries)" in page
