"""A published correction stands: withdrawing the entry it was published with brings back
nothing it replaced, and a renamed tag reaches every live page that carries it.

A person's public record holds the facts of the newest *published* version naming them,
not of the newest live one: otherwise unpublishing the entry that carried a correction
would put the older live entry's name back on the person's page, its episode, the API and
every entry page quoting them; the same for a tag's name. A tag renamed and published
with one entry is renamed on the others too. What must not stand: an episode's guests (a
guest added with an entry since withdrawn must not come back when another entry names
him), and a record an edited export claims. What must: an episode's own facts, such as a
corrected title.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from taggit.models import Tag

from editorial import workflow
from glossary import publishing
from glossary.models import Appearance, Entry, Episode, Person, PublicRecord, Show
from glossary.publishing import save_version
from tests.exchange.test_import_errors import empty_content, run_import, write
from tests.live import make_live_unchecked
from tests.personas import client_for
from tests.visibility.desk import edit_object, publish

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
    make_live_unchecked(other, user=editor)
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
    workflow.unpublish_entry(
        Entry.objects.get(slug="interconnect"), user=editor, comment="Withdrawn."
    )
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
    workflow.unpublish_entry(
        Entry.objects.get(slug="interconnect"), user=editor, comment="Withdrawn."
    )
    edit_object(writer, "glossary_person", corrected.pk, name="Jeetu Patel, again")
    publish(Entry.objects.get(slug="scale-out-network"), writer=writer, editor=editor)
    for url in ["/people/jeetu-patel/", "/glossary/scale-out-network/"]:
        body = client.get(url).content.decode()
        assert "Jeetu Patel, again" in body and CORRECTED not in body, url


def test_a_record_still_goes_when_no_live_entry_names_him(client, corrected, editor):
    for slug in ["interconnect", "scale-out-network"]:
        workflow.unpublish_entry(Entry.objects.get(slug=slug), user=editor, comment="Withdrawn.")
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
    workflow.unpublish_entry(
        Entry.objects.get(slug="training"), user=second_editor, comment="Withdrawn."
    )
    assert RENAMED in client.get("/tags/").content.decode()
    assert client.get("/api/v1/tags/ai-infrastructure/").json()["name"] == RENAMED
    for slug in ["ai-factory", "inference"]:
        page = client.get(f"/glossary/{slug}/").content.decode()
        assert RENAMED in page and ">ai-infrastructure<" not in page, slug


def _a_second_entry_and_a_new_guest(episode: Episode, editor: User) -> Person:
    """Scale-out network quotes Patel on `episode` and is published; Zed Zebra is made a
    guest of it on the desk, with nothing published."""
    other = Entry.objects.get(slug="scale-out-network")
    patel = Person.objects.get(slug="jeetu-patel")
    other.quotes.create(episode=episode, speaker=patel, start=1540, text="Scale across.")
    make_live_unchecked(other, user=editor)
    zed = Person.objects.create(name="Zed Zebra", slug="zed-zebra")
    Appearance.objects.create(episode=episode, person=zed, role="guest", title="Chief Officer")
    return zed


def test_a_guest_added_with_a_withdrawn_entry_does_not_come_back_with_another(client, demo, editor):
    """An episode's record follows its live versions: who appeared on it is a link to
    other records, not a fact of its own that stands."""
    episode = Episode.objects.get(number=44)
    zed = _a_second_entry_and_a_new_guest(episode, editor)
    interconnect = Entry.objects.get(slug="interconnect")
    make_live_unchecked(interconnect, user=editor)
    assert "Zed Zebra" in client.get("/episodes/demo-show/3/44/").content.decode()
    workflow.unpublish_entry(interconnect, user=editor, comment="Withdrawn.")
    assert "Zed Zebra" not in client.get("/episodes/demo-show/3/44/").content.decode()
    assert client.get("/people/zed-zebra/").status_code == 404
    # Another entry quotes him on another episode: his own record is back, not the guest.
    training = Entry.objects.get(slug="training")
    training.quotes.create(
        episode=Episode.objects.get(number=28), speaker=zed, start=60, text="Hello."
    )
    make_live_unchecked(training, user=editor)
    assert client.get("/people/zed-zebra/").status_code == 200
    for url in ["/episodes/demo-show/3/44/", "/api/v1/episodes/"]:
        body = client.get(url).content.decode()
        assert "Chief Officer" not in body, url
    assert "Zed Zebra" not in client.get("/episodes/demo-show/3/44/").content.decode()


RETITLED = "Scale Across, retitled"
# Every public address that names episode 44 by its title once both entries name it.
SHOWING_44 = [
    "/episodes/",
    "/episodes/demo-show/3/44/",
    "/glossary/scale-out-network/",
    "/api/v1/episodes/",
    "/people/jeetu-patel/",
]


@pytest.fixture
def retitled(client, demo, writer, editor):
    """Two live entries name episode 44; a writer corrects its title and adds a guest, and
    an editor publishes both with one of them (Interconnect), the other still live as
    published before."""
    episode = Episode.objects.get(number=44)
    old = episode.title
    _a_second_entry_and_a_new_guest(episode, editor)
    edit_object(writer, "glossary_episode", episode.pk, title=RETITLED)
    publish(Entry.objects.get(slug="interconnect"), writer=writer, editor=editor)
    for url in SHOWING_44:
        body = client.get(url).content.decode()
        assert RETITLED in body and old not in body, url
    assert "Zed Zebra" in client.get("/episodes/demo-show/3/44/").content.decode()
    return old


def _assert_the_title_stands_without_the_guest(client, old: str) -> None:
    for url in SHOWING_44:
        body = client.get(url).content.decode()
        assert RETITLED in body, url
        assert old not in body, url
    page = client.get("/episodes/demo-show/3/44/").content.decode()
    assert "Zed Zebra" not in page and "Chief Officer" not in page
    assert client.get("/people/zed-zebra/").status_code == 404


def test_an_episode_title_correction_stands_when_its_entry_is_unpublished(client, retitled, editor):
    """A corrected title stays on the episode's page, every list of episodes and the other
    entry's page when the entry that carried the correction is withdrawn. Its guests still
    follow the live versions."""
    workflow.unpublish_entry(
        Entry.objects.get(slug="interconnect"), user=editor, comment="Withdrawn."
    )
    _assert_the_title_stands_without_the_guest(client, retitled)
    publishing.rerender_all()
    _assert_the_title_stands_without_the_guest(client, retitled)


def test_an_episode_title_correction_stands_when_its_entry_is_deleted(client, retitled, admin_user):
    interconnect = Entry.objects.get(slug="interconnect")
    carrier = interconnect.live_version
    workflow.delete_entry(interconnect, user=admin_user)
    episode = Episode.objects.get(number=44)
    record = PublicRecord.objects.get(kind="episode", object_id=episode.pk)
    assert record.version_id is None and record.name == RETITLED
    assert carrier is not None and record.published_at == carrier.published_at
    _assert_the_title_stands_without_the_guest(client, retitled)
    publishing.rerender_all()
    _assert_the_title_stands_without_the_guest(client, retitled)


def test_a_later_publish_still_retitles_an_episode(client, retitled, writer, editor):
    workflow.unpublish_entry(
        Entry.objects.get(slug="interconnect"), user=editor, comment="Withdrawn."
    )
    episode = Episode.objects.get(number=44)
    edit_object(writer, "glossary_episode", episode.pk, title="Scale Across, again")
    publish(Entry.objects.get(slug="scale-out-network"), writer=writer, editor=editor)
    for url in SHOWING_44:
        body = client.get(url).content.decode()
        assert "Scale Across, again" in body and RETITLED not in body, url


@pytest.mark.parametrize("withdrawn_first", [False, True])
def test_an_episode_moved_to_another_show_and_back_on_the_desk_breaks_no_withdrawal(
    client, demo, writer, editor, withdrawn_first
):
    """An episode moved to a new show, published so with one entry, then moved back on the
    desk with nothing published: withdrawing that entry (and `rerender`, which every
    deploy runs) renders the pages left, and the desk's move changes nothing readers see.
    An episode's address follows the live versions."""
    episode = Episode.objects.get(number=28)
    home = episode.show
    patel = Person.objects.get(slug="jeetu-patel")
    for slug in ("scale-out-network", "interconnect"):
        entry = Entry.objects.get(slug=slug)
        entry.quotes.create(episode=episode, speaker=patel, start=60, text="Twenty-eight.")
    make_live_unchecked(Entry.objects.get(slug="scale-out-network"), user=editor)
    other = Show.objects.create(name="Other Show", slug="other-show")
    edit_object(writer, "glossary_episode", episode.pk, show=str(other.pk))
    publish(Entry.objects.get(slug="interconnect"), writer=writer, editor=editor)
    assert client.get("/episodes/other-show/2/28/").status_code == 200

    def move_back() -> None:
        edit_object(writer, "glossary_episode", episode.pk, show=str(home.pk))

    if not withdrawn_first:
        move_back()
    workflow.unpublish_entry(
        Entry.objects.get(slug="interconnect"), user=editor, comment="Withdrawn."
    )
    if withdrawn_first:
        move_back()
    publishing.rerender_all()
    # What the live entry states: the episode in its own show, at its own address.
    assert client.get(f"/episodes/{home.slug}/2/28/").status_code == 200
    assert client.get("/episodes/other-show/2/28/").status_code == 404
    page = client.get("/glossary/scale-out-network/")
    assert page.status_code == 200 and home.name in page.content.decode()


def test_a_renumbered_episode_gives_its_address_back_with_the_entry_that_carried_it(
    client, demo, writer, editor, admin_user
):
    """Episode 28 renumbered 29 and published with one entry, that entry deleted; the desk
    numbers it 28 again and makes a new episode 29. Two episodes must never share
    /episodes/demo-show/2/29/, whichever address stood."""
    episode = Episode.objects.get(number=28)
    patel = Person.objects.get(slug="jeetu-patel")
    for slug in ("scale-out-network", "interconnect"):
        entry = Entry.objects.get(slug=slug)
        entry.quotes.create(episode=episode, speaker=patel, start=60, text="Twenty-eight.")
    make_live_unchecked(Entry.objects.get(slug="scale-out-network"), user=editor)
    edit_object(writer, "glossary_episode", episode.pk, number="29", title=RETITLED)
    publish(Entry.objects.get(slug="interconnect"), writer=writer, editor=editor)
    workflow.delete_entry(Entry.objects.get(slug="interconnect"), user=admin_user)
    # Its title stands; its address is the live entry's.
    assert RETITLED in client.get("/episodes/demo-show/2/28/").content.decode()
    edit_object(writer, "glossary_episode", episode.pk, number="28")
    new = Episode.objects.create(show=episode.show, season=2, number=29, title="Brand New")
    gpu = Entry.objects.get(slug="gpu")
    gpu.quotes.create(episode=new, speaker=patel, start=30, text="New.")
    make_live_unchecked(gpu, user=editor)
    assert "Brand New" in client.get("/episodes/demo-show/2/29/").content.decode()
    assert RETITLED in client.get("/episodes/demo-show/2/28/").content.decode()
    assert PublicRecord.objects.filter(kind="episode", slug="demo-show/2/29").count() == 1


def test_an_import_believes_no_record_its_versions_do_not_state(
    demo, tmp_path: Path, writer, editor
):
    """An edited export cannot make a draft's facts, or facts no document states, stand."""
    patel = Person.objects.get(slug="jeetu-patel")
    conor = Person.objects.get(slug="conor")
    # Published last, and naming no one.
    gpu = Entry.objects.get(slug="gpu")
    make_live_unchecked(gpu, user=editor)
    gpu.refresh_from_db()
    Person.objects.filter(pk=patel.pk).update(name="Unapproved Patel")
    draft = save_version(Entry.objects.get(slug="interconnect"), user=writer, comment="Draft.")
    path = tmp_path / "export.json"
    call_command("export_glossary", str(path), "--no-progress")
    data = json.loads(path.read_text())
    empty_content()
    User.objects.all().delete()
    records = data["tables"]["public_records"]
    person = next(r for r in records if r["kind"] == "person" and r["object_id"] == patel.pk)
    # Pointed at the draft, as if it had been published later than the live version.
    person.update(version=draft.pk, published_at="2099-01-01T00:00:00+00:00")
    # One pointed at a published version that never named him (read, it has no facts of
    # him: the import failed with a KeyError).
    other = next(r for r in records if r["kind"] == "person" and r["object_id"] == conor.pk)
    gpu_version = next(
        v for v in data["tables"]["entry_versions"] if v["id"] == gpu.live_version_id
    )
    other.update(version=gpu_version["id"], published_at=gpu_version["published_at"])
    # And one that claims a version deleted since, with facts no document states.
    organisation = next(r for r in records if r["kind"] == "organisation")
    forged = {**organisation["data"], "name": "Forged Inc"}
    organisation.update(
        version=None, published_at="2099-01-01T00:00:00+00:00", name="Forged Inc", data=forged
    )

    run_import(write(tmp_path, data))

    reader = Client()
    page = reader.get("/people/jeetu-patel/").content.decode()
    assert "Jeetu Patel" in page and "Unapproved" not in page
    assert reader.get("/people/conor/").status_code == 200
    record = PublicRecord.objects.get(kind="person", object_id=conor.pk)
    assert record.version_id == Entry.objects.get(slug="interconnect").live_version_id
    for url in [f"/organisations/{organisation['slug']}/", "/api/v1/organisations/"]:
        assert "Forged Inc" not in reader.get(url).content.decode(), url
    assert not PublicRecord.objects.filter(name__in=["Unapproved Patel", "Forged Inc"]).exists()


def test_a_deleted_tag_keeps_its_page_while_a_live_entry_shows_it(client, demo, editor):
    """Deleting a tag on the desk takes the versions' index rows with it; the live entry
    carrying it still shows it until published again, and `rerender` (every deploy) must
    not take its page away with nothing published."""
    Tag.objects.get(slug="standards").delete()
    before = client.get("/tags/standards/")
    publishing.rerender_all()
    after = client.get("/tags/standards/")
    assert before.status_code == after.status_code == 200
    assert after.content == before.content and b"Ultra Ethernet" in after.content
    assert 'href="/tags/standards/"' in client.get("/glossary/ultra-ethernet/").content.decode()
    # Published again without it, the entry takes the tag's page with it.
    make_live_unchecked(Entry.objects.get(slug="ultra-ethernet"), user=editor)
    assert client.get("/tags/standards/").status_code == 404


def test_a_new_tag_never_takes_the_address_of_a_deleted_one_still_shown(client, demo, editor):
    """ "standards" deleted (still on a live entry), then two tags merged into a new
    "standards": taggit would give it the freed address, and /tags/ would list
    "standards" twice, both at /tags/standards/."""
    Tag.objects.get(slug="standards").delete()
    merged = Tag.objects.create(name="standards")
    assert merged.slug == "standards_1"
    slugs = [t["slug"] for t in client.get("/api/v1/tags/").json()["results"]]
    assert slugs.count("standards") == 1
    assert b"Ultra Ethernet" in client.get("/tags/standards/").content


def test_the_tag_form_refuses_the_address_of_a_published_tag_and_keeps_what_was_typed(demo, editor):
    Tag.objects.get(slug="standards").delete()
    memory = Tag.objects.get(slug="memory")
    page = client_for(editor).post(
        f"/admin/taggit/tag/{memory.pk}/change/", {"name": "Standards, again", "slug": "standards"}
    )
    assert page.status_code == 200
    html = page.content.decode()
    assert "/tags/standards/ is the address of the published tag “standards”" in html
    assert 'value="Standards, again"' in html
    memory.refresh_from_db()
    assert (memory.name, memory.slug) == ("memory", "memory")
