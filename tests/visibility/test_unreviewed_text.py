"""Nothing a writer changes reaches readers until someone else publishes it ."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from editorial import workflow
from glossary import publishing
from glossary.models import Appearance, Entry, Episode, Organisation, Person
from tests.live import make_live_unchecked
from tests.personas import client_for
from tests.visibility.desk import edit_entry, edit_object, jsonld, public_fingerprint, publish

pytestmark = pytest.mark.django_db


def test_a_draft_rename_of_a_see_also_target_never_reaches_other_entries_pages(
    client, demo, writer, editor
):
    inference = Entry.objects.get(slug="inference")
    edit_entry(writer, inference, term="Renamed Inference", slug="renamed-inference")
    training = Entry.objects.get(slug="training")
    edit_entry(writer, training, summary="Teaching a model from data, at great expense.")
    publish(training, writer=writer, editor=editor)

    html = client.get("/glossary/training/").content.decode()
    assert 'href="/glossary/inference/">Inference</a>' in html
    assert "Renamed Inference" not in html and "renamed-inference" not in html
    assert "http://127.0.0.1:8000/glossary/inference/" in jsonld(html)["relatedLink"]
    see_also = client.get("/api/v1/entries/training/").json()["see_also"]
    assert (see_also[0]["text"], see_also[0]["entry"]["slug"]) == ("Inference", "inference")
    assert client.get("/glossary/renamed-inference/").status_code == 404


def test_a_see_also_target_without_a_live_version_is_named_as_the_linking_version_saw_it(
    client, demo, writer, editor
):
    inference = Entry.objects.get(slug="inference")
    workflow.unpublish_entry(inference, user=editor, comment="Withdrawn.")
    edit_entry(writer, inference, term="Renamed Inference")
    training = Entry.objects.get(slug="training")
    publishing.rerender_all()
    html = client.get("/glossary/training/").content.decode()
    assert 'See also Inference and <a href="/glossary/interconnect/">' in html
    assert 'href="/glossary/inference/"' not in html
    assert "Renamed Inference" not in html
    assert training.live_version is not None


PUBLIC = [
    "/people/",
    "/people/jeetu-patel/",
    "/episodes/",
    "/episodes/demo-show/3/44/",
    "/organisations/cisco/",
    "/glossary/interconnect/",
    "/api/v1/people/",
    "/api/v1/people/jeetu-patel/",
    "/api/v1/episodes/",
    "/sitemap.xml",
]


def test_a_writer_renaming_a_person_or_retitling_an_episode_changes_no_public_byte(
    client, demo, writer
):
    before = public_fingerprint(client, PUBLIC)
    patel = Person.objects.get(slug="jeetu-patel")
    edit_object(writer, "glossary_person", patel.pk, name="Jeetu Patel-Renamed")
    episode = Episode.objects.get(number=44)
    edit_object(writer, "glossary_episode", episode.pk, title="A Retitled Episode")
    assert public_fingerprint(client, PUBLIC) == before
    # The change is recorded, credited to the writer, in the entry that shows it.
    interconnect = Entry.objects.get(slug="interconnect")
    latest = interconnect.versions.order_by("-number").first()
    assert latest is not None and latest.created_by == writer
    assert "Jeetu Patel-Renamed" in str(latest.data)
    assert interconnect.has_unpublished_changes


def test_a_person_added_to_a_public_episode_for_a_draft_stays_private(client, demo, writer):
    newcomer = Person.objects.create(name="Nadia Newcomer", slug="nadia-newcomer")
    episode = Episode.objects.get(number=44)
    Appearance.objects.create(episode=episode, person=newcomer, role="guest")
    assert client.get("/people/nadia-newcomer/").status_code == 404
    assert "Nadia Newcomer" not in client.get("/episodes/demo-show/3/44/").content.decode()
    assert "Nadia Newcomer" not in client.get("/api/v1/episodes/").content.decode()


def test_a_published_correction_reaches_every_page_that_shows_it(client, demo, writer, editor):
    patel = Person.objects.get(slug="jeetu-patel")
    edit_object(writer, "glossary_person", patel.pk, name="Jeetu Patel Jr")
    interconnect = Entry.objects.get(slug="interconnect")
    publish(interconnect, writer=writer, editor=editor)
    for url in ["/glossary/interconnect/", "/people/jeetu-patel/", "/episodes/demo-show/3/44/"]:
        assert "Jeetu Patel Jr" in client.get(url).content.decode(), url
    assert client.get("/api/v1/people/jeetu-patel/").json()["name"] == "Jeetu Patel Jr"


def test_rerender_refreshes_an_approved_correction_on_every_entry_page(client, demo, editor):
    """docs/architecture.md: `rerender` applies a correction already published elsewhere."""
    patel = Person.objects.get(slug="jeetu-patel")
    # Two live entries quote him; one is published with the corrected name.
    other = Entry.objects.get(slug="scale-out-network")
    episode = Episode.objects.get(number=44)
    other.quotes.create(episode=episode, speaker=patel, start=1540, text="Scale across.")
    make_live_unchecked(other, user=editor)
    Person.objects.filter(pk=patel.pk).update(name="Jeetu Patel Jr")
    make_live_unchecked(Entry.objects.get(slug="interconnect"), user=editor)
    # The other page was re-rendered with the approved name when it was published...
    assert "Jeetu Patel Jr" in client.get("/glossary/scale-out-network/").content.decode()
    # ...and `rerender` renders every page from the approved records again.
    publishing.rerender_all()
    assert "Jeetu Patel Jr" in client.get("/glossary/scale-out-network/").content.decode()


def test_the_fix_it_action_is_a_version_credited_to_whoever_clicked(
    demo, editor, second_editor, writer
):
    """An editor renames an organisation, uses "Fix this", and may not publish it."""
    entry = Entry.objects.get(slug="interconnect")
    entry.disclosures.filter(kind="sponsorship", text="").delete()
    publishing.record_edit(entry, user=writer, comment="Removed the generated disclosure.")
    workflow.submit_for_review(entry, user=writer)
    galileo = Organisation.objects.get(slug="galileo")
    edit_object(editor, "glossary_organisation", galileo.pk, name="Galileo AI")
    episode = Episode.objects.get(number=28)
    client_for(editor).post(reverse("desk:gates-generate-sponsorship", args=[entry.pk, episode.pk]))
    assert entry.versions.order_by("-number").first().created_by == editor
    with pytest.raises(PermissionDenied):
        workflow.publish_entry(entry, user=editor)
    workflow.publish_entry(entry, user=second_editor)
    assert "Galileo AI" in entry.live_version.rendered_html
