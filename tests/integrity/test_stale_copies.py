"""A copy of an entry read before a publish, a withdrawal or a deletion, saved after it.

The admin reads the entry, applies the form and saves it; another editor's withdrawal
can commit in between. Saving the working copy never writes what publishing set
(`glossary.models.PUBLISHING_STATE`), so nothing withdrawn comes back that way, and the copy of a
deleted entry is not inserted again.
"""

from __future__ import annotations

import pytest
from django.db import DatabaseError, transaction

from glossary import publishing
from glossary.models import Entry, Listing


def test_a_copy_read_before_a_withdrawal_and_saved_after_it_does_not_bring_the_page_back(
    client, make_entry
):
    entry = make_entry("Widget", slug="widget")
    publishing.publish(entry)
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
    publishing.publish(entry)
    first = Entry.objects.get(pk=entry.pk)
    fresh = Entry.objects.get(pk=entry.pk)
    fresh.summary = "The second summary."
    fresh.save()
    publishing.publish(fresh)
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
    publishing.publish(entry)
    copy = Entry.objects.get(pk=entry.pk)
    Entry.objects.get(pk=entry.pk).delete()
    copy.summary = "Saved after the deletion."
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        with transaction.atomic():
            copy.save()
    assert not Entry.objects.filter(pk=entry.pk).exists()
