"""A published correction stands: withdrawing the entry it was published with brings back
nothing it replaced, and a renamed tag reaches every live page that carries it.

Found by a hostile walk (2026-12-03): a person's public record held the facts of the
newest *live* version naming them, so unpublishing the entry that carried a correction
put the older live entry's name back on the person's page, its episode, the API and
every entry page quoting them; the same for a tag's name. And a tag renamed and
published with one entry stayed under its old name on the others.
"""

from __future__ import annotations

import pytest
from taggit.models import Tag

from editorial import workflow
from glossary import publishing
from glossary.models import Entry, Episode, Person, PublicRecord
from tests.integrity.desk import edit_object, publish

pytestmark = pytest.mark.django_db

CORRECTED = "J. Patel (corrected)"
# Every public address that names him once the second entry quotes him too.
SHOWING_PATEL = [
    "/people/",
    "/people/jeetu-patel/",
    "/episodes/demo-show/3/44/",
    "/glossary/scale-out-network/",
    "/api/v1/people/",
    "/api/v1/people/jeetu-patel/",
    "/api/v1/entries/scale-out-network/",
]


@pytest.fixture
def corrected(client, demo, writer, editor):
    """Two live entries quote Jeetu Patel; a writer corrects his name and an editor
    publishes it with one of them (Interconnect), the other still live as published
    before the correction."""
    patel = Person.objects.get(slug="jeetu-patel")
    other = Entry.objects.get(slug="scale-out-network")
    other.quotes.create(
        episode=Episode.objects.get(number=44), speaker=patel, start=1540, text="Scale across."
    )
    publishing.publish(other, user=editor)
    edit_object(writer, "glossary_person", patel.pk, name=CORRECTED)
    publish(Entry.objects.get(slug="interconnect"), writer=writer, editor=editor)
    for url in SHOWING_PATEL:
        assert CORRECTED in client.get(url).content.decode(), url
    return patel


def _old_name(url: str) -> str:
    """How a page would name him by his old name. An entry's page and API answer may quote
    a transcript that says it (their own approved text), so there it is the person's link
    or field that must not carry it."""
    if url.startswith("/glossary/"):
        return ">Jeetu Patel<"
    if url.startswith("/api/v1/entries/"):
        return '"name":"Jeetu Patel"'
    return "Jeetu Patel"


def _assert_the_correction_stands(client) -> None:
    for url in SHOWING_PATEL:
        body = client.get(url).content.decode()
        assert CORRECTED in body, url
        assert _old_name(url) not in body, url


def test_a_person_correction_stands_when_its_entry_is_unpublished(client, corrected, editor):
    workflow.unpublish_entry(Entry.objects.get(slug="interconnect"), user=editor)
    _assert_the_correction_stands(client)
    # And `rerender`, which every deploy runs, keeps it.
    publishing.rerender_all()
    _assert_the_correction_stands(client)


def test_a_person_correction_stands_when_its_entry_is_deleted(client, corrected, admin_user):
    interconnect = Entry.objects.get(slug="interconnect")
    carrier = interconnect.live_version
    workflow.delete_entry(interconnect, user=admin_user)
    assert not Entry.objects.filter(slug="interconnect").exists()
    record = PublicRecord.objects.get(kind="person", object_id=corrected.pk)
    assert record.version_id is None and record.name == CORRECTED
    assert carrier is not None and record.published_at == carrier.published_at
    _assert_the_correction_stands(client)
    publishing.rerender_all()
    _assert_the_correction_stands(client)


def test_a_later_publish_still_replaces_a_correction(client, corrected, writer, editor):
    """Standing is not sticking: the next approved change to him is what readers see."""
    workflow.unpublish_entry(Entry.objects.get(slug="interconnect"), user=editor)
    edit_object(writer, "glossary_person", corrected.pk, name="Jeetu Patel, again")
    publish(Entry.objects.get(slug="scale-out-network"), writer=writer, editor=editor)
    for url in ["/people/jeetu-patel/", "/glossary/scale-out-network/"]:
        body = client.get(url).content.decode()
        assert "Jeetu Patel, again" in body and CORRECTED not in body, url


def test_a_record_still_goes_when_no_live_entry_names_him(client, corrected, editor):
    for slug in ["interconnect", "scale-out-network"]:
        workflow.unpublish_entry(Entry.objects.get(slug=slug), user=editor)
    assert client.get("/people/jeetu-patel/").status_code == 404
    assert not PublicRecord.objects.filter(kind="person", object_id=corrected.pk).exists()


RENAMED = "AI infra (renamed)"
CARRYING = ["ai-factory", "inference", "training"]


def test_a_tag_rename_reaches_every_live_entry_and_stands_when_its_entry_is_withdrawn(
    client, demo, writer, editor, second_editor
):
    tag = Tag.objects.get(slug="ai-infrastructure")
    edit_object(editor, "taggit_tag", tag.pk, name=RENAMED, slug=tag.slug)
    # Published with Training by an editor who did not rename it.
    publish(Entry.objects.get(slug="training"), writer=writer, editor=second_editor)
    for slug in CARRYING:
        page = client.get(f"/glossary/{slug}/").content.decode()
        assert RENAMED in page and ">ai-infrastructure<" not in page, slug
        assert RENAMED in client.get(f"/api/v1/entries/{slug}/").json()["tags"], slug
    workflow.unpublish_entry(Entry.objects.get(slug="training"), user=second_editor)
    assert RENAMED in client.get("/tags/").content.decode()
    assert client.get("/api/v1/tags/ai-infrastructure/").json()["name"] == RENAMED
    for slug in ["ai-factory", "inference"]:
        page = client.get(f"/glossary/{slug}/").content.decode()
        assert RENAMED in page and ">ai-infrastructure<" not in page, slug
