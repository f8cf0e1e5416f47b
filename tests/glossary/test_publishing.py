"""What readers see changes only when something is published."""

import pytest

from glossary import publishing, signals
from glossary.models import Entry, EntryRedirect, EntryVersion, SeeAlso
from tests.live import make_live_unchecked


@pytest.fixture
def live(make_entry):
    entry = make_entry("Widget", slug="widget", body="The first body.")
    make_live_unchecked(entry)
    entry.refresh_from_db()
    return entry


def test_publishing_makes_the_entry_public(client, live):
    response = client.get("/glossary/widget/")
    assert response.status_code == 200
    assert "The first body." in response.content.decode()


def test_a_draft_is_not_public(client, make_entry):
    make_entry("Hidden", slug="hidden")
    assert client.get("/glossary/hidden/").status_code == 404


def test_editing_a_published_entry_does_not_change_the_public_page(client, live):
    live.body = "A rewritten body."
    live.term = "Renamed"
    live.save()
    page = client.get("/glossary/widget/").content.decode()
    assert "The first body." in page
    assert "A rewritten body." not in page


def test_publishing_the_edit_replaces_the_public_version(client, live):
    live.body = "A rewritten body."
    live.save()
    version = make_live_unchecked(live)
    assert version.number == 2
    page = client.get("/glossary/widget/").content.decode()
    assert "A rewritten body." in page


def test_versions_are_numbered_and_kept(live):
    publishing.save_version(live)
    make_live_unchecked(live)
    assert list(live.versions.values_list("number", flat=True)) == [3, 2, 1]


def test_a_typo_fix_does_not_move_the_significant_change_date(live):
    first = live.significant_change_at
    make_live_unchecked(live, material=False)
    live.refresh_from_db()
    assert live.significant_change_at == first
    assert live.last_published_at > first


def test_a_material_change_moves_the_significant_change_date(live):
    first = live.significant_change_at
    make_live_unchecked(live, material=True, correction_note="We corrected the figure.")
    live.refresh_from_db()
    assert live.significant_change_at > first
    assert live.live_version.correction_note == "We corrected the figure."


def test_unpublishing_takes_the_page_down_but_keeps_history(client, live):
    publishing.unpublish(live)
    assert client.get("/glossary/widget/").status_code == 404
    assert EntryVersion.objects.filter(entry=live).count() == 1
    live.refresh_from_db()
    assert live.status == Entry.Status.DRAFT


def test_archiving_sets_the_archived_state(live):
    publishing.unpublish(live, archive=True)
    live.refresh_from_db()
    assert live.status == Entry.Status.ARCHIVED
    assert not live.is_live


def test_a_changed_slug_answers_301_from_the_old_one_once_published(client, live):
    live.slug = "gadget"
    live.save()
    assert client.get("/glossary/gadget/").status_code == 404
    make_live_unchecked(live)
    response = client.get("/glossary/widget/")
    assert response.status_code == 301
    assert response["Location"] == "/glossary/gadget/"


def test_an_alias_redirects_to_its_entry(client, make_entry):
    entry = make_entry("NVLink fabric", slug="fabric", aliases="NVLink\nNV Link")
    make_live_unchecked(entry)
    response = client.get("/glossary/nvlink/")
    assert response.status_code == 301
    assert response["Location"] == "/glossary/fabric/"


def test_an_alias_shared_by_two_entries_lists_both(client, make_entry):
    for term, slug in [("Alpha", "alpha"), ("Beta", "beta")]:
        make_live_unchecked(make_entry(term, slug=slug, aliases="Shared"))
    response = client.get("/glossary/shared/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/glossary/alpha/" in page and "/glossary/beta/" in page


def test_an_alias_of_an_unpublished_entry_leads_nowhere(client, make_entry):
    entry = make_entry("Gone", slug="gone", aliases="Vanished")
    make_live_unchecked(entry)
    publishing.unpublish(entry)
    assert client.get("/glossary/vanished/").status_code == 404
    assert EntryRedirect.objects.filter(slug="vanished").exists()


def test_see_also_links_only_to_published_entries(client, make_entry):
    source = make_entry("Source term", slug="source-term")
    target = make_entry("Target term", slug="target-term")
    SeeAlso.objects.create(entry=source, target=target, note="read next")
    make_live_unchecked(source)
    page = client.get("/glossary/source-term/").content.decode()
    assert "See also Target term, read next." in page
    assert 'href="/glossary/target-term/"' not in page


def test_publishing_a_see_also_target_links_it_on_pages_already_live(client, make_entry):
    source = make_entry("Source term", slug="source-term")
    target = make_entry("Target term", slug="target-term")
    SeeAlso.objects.create(entry=source, target=target)
    make_live_unchecked(source)
    make_live_unchecked(target)
    page = client.get("/glossary/source-term/").content.decode()
    assert '<a href="/glossary/target-term/">Target term</a>' in page
    publishing.unpublish(target)
    page = client.get("/glossary/source-term/").content.decode()
    assert 'href="/glossary/target-term/"' not in page


def test_the_snapshot_keeps_the_parts_as_they_were_when_published(live, episode, person):
    from glossary.models import Quote

    Quote.objects.create(entry=live, episode=episode, speaker=person, start=10, text="Later.")
    assert live.live_version.data["quotes"] == []
    version = make_live_unchecked(live)
    assert [q["text"] for q in version.data["quotes"]] == ["Later."]


def test_publish_is_signalled_after_commit(live, django_capture_on_commit_callbacks):
    seen = []

    def receiver(sender, entry_id, **kwargs):
        seen.append(entry_id)

    signals.live_content_changed.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            make_live_unchecked(live)
    finally:
        signals.live_content_changed.disconnect(receiver)
    assert seen == [live.pk]
