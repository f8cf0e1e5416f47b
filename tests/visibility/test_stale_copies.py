"""A copy of an entry read before a publish, a withdrawal or a deletion, saved after it.

The admin reads the entry, applies the form and saves it; another editor's withdrawal
can commit in between. Saving the working copy never writes what publishing set
(`glossary.models.PUBLISHING_STATE`), so nothing withdrawn comes back that way, and the copy of a
deleted entry is not inserted again.
"""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.urls import reverse

from glossary import publishing
from glossary.models import Entry, Listing
from tests.concurrency import in_thread
from tests.live import make_live_unchecked
from tests.personas import client_for
from tests.workflow.formdata import form_data


def test_a_copy_read_before_a_withdrawal_and_saved_after_it_does_not_bring_the_page_back(
    client, make_entry
):
    entry = make_entry("Widget", slug="widget")
    make_live_unchecked(entry)
    assert client.get("/glossary/widget/").status_code == 200
    read_by_the_form = Entry.objects.get(pk=entry.pk)
    publishing.unpublish(Entry.objects.get(pk=entry.pk))
    read_by_the_form.summary = "A widget, edited while it was withdrawn."
    read_by_the_form.save()
    saved = Entry.objects.get(pk=entry.pk)
    assert saved.summary == "A widget, edited while it was withdrawn."
    assert saved.live_version is None and saved.status == Entry.Status.DRAFT
    assert saved.last_published_at is not None  # kept as publishing left it
    assert client.get("/glossary/widget/").status_code == 404
    assert "Widget" not in client.get("/").content.decode()


def test_a_copy_read_before_a_publish_and_saved_after_it_keeps_the_new_version_live(
    make_entry,
):
    entry = make_entry("Widget", slug="widget")
    make_live_unchecked(entry)
    first = Entry.objects.get(pk=entry.pk)
    fresh = Entry.objects.get(pk=entry.pk)
    fresh.summary = "The second summary."
    fresh.save()
    make_live_unchecked(fresh)
    second = Entry.objects.get(pk=entry.pk).live_version
    assert second is not None and second != first.live_version
    first.body = "Edited on a copy read before the second publish."
    with transaction.atomic():
        first.save()
    saved = Entry.objects.get(pk=entry.pk)
    assert saved.live_version == second
    assert Listing.objects.get().version == second
    assert saved.body == "Edited on a copy read before the second publish."


def test_a_deleted_entrys_copy_is_not_inserted_again(make_entry):
    entry = make_entry("Widget", slug="widget")
    make_live_unchecked(entry)
    copy = Entry.objects.get(pk=entry.pk)
    Entry.objects.get(pk=entry.pk).delete()
    copy.summary = "Saved after the deletion."
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        with transaction.atomic():
            copy.save()
    assert not Entry.objects.filter(pk=entry.pk).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="two connections at once")
@pytest.mark.django_db(transaction=True)
def test_a_form_saved_while_its_entry_is_deleted_says_so_and_keeps_what_was_typed(
    make_entry, editor, admin_user, monkeypatch
):
    """A race: the admin read the entry, then another editor's deletion committed before
    the form's conflict check locked it (both had waited behind a rerender). The check
    finds no row, and the save says so and keeps what was typed, instead of a 500."""
    entry = make_entry("Widget", slug="widget")
    client = client_for(editor)
    url = reverse("admin:glossary_entry_change", args=[entry.pk])
    data = form_data(client.get(url).content.decode())
    data["summary"] = "Typed while someone deleted the entry."
    held_off = publishing.hold_off_rerender
    results: dict[str, object] = {}

    def deleted_first() -> None:
        deleting = in_thread("delete", results, lambda: Entry.objects.get(pk=entry.pk).delete())
        deleting.start()
        deleting.join(15)
        held_off()

    monkeypatch.setattr(publishing, "hold_off_rerender", deleted_first)
    response = client.post(url, data)
    assert "delete" in results and not isinstance(results["delete"], BaseException)
    assert response.status_code == 200
    body = response.content.decode()
    assert "Someone deleted this entry after you opened it, so nothing was saved" in body
    assert "Typed while someone deleted the entry." in body
    assert not Entry.objects.filter(pk=entry.pk).exists()
