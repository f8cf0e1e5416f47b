"""Withdrawal by every path a hostile walk tried beside the workflow's own.

- Deleting a live version on its own (the versions' admin, as an admin) is refused: it
  would leave the page in the cache, the counts a row too high and the entry published
  with no version. A live version goes only with its entry, or once it is withdrawn.
- An edit recorded after an archive or withdrawal it did not see keeps that status.
- `manage.py rerender` (every deploy) and a withdrawal at the same moment both finish.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, connections, transaction
from django.db.models import RestrictedError
from django.urls import reverse

from glossary import publishing
from glossary.models import Entry, EntryVersion, Listing
from tests.personas import client_for


@pytest.mark.django_db
def test_a_live_version_cannot_be_deleted_on_its_own(client, demo, admin_user):
    entry = Entry.objects.get(slug="inference")
    live = entry.live_version
    assert live is not None
    url = reverse("admin:glossary_entryversion_delete", args=[live.pk])
    page = client_for(admin_user).get(url)
    assert page.status_code == 200
    assert "would require deleting the following protected related objects" in (
        page.content.decode()
    )
    client_for(admin_user).post(url, {"post": "yes"})
    assert Entry.objects.get(pk=entry.pk).live_version == live
    with pytest.raises(RestrictedError):
        EntryVersion.objects.filter(pk=live.pk).delete()
    assert client.get("/glossary/inference/").status_code == 200
    # Withdrawn first, the version is history like any other and may go.
    publishing.unpublish(Entry.objects.get(pk=entry.pk))
    EntryVersion.objects.filter(pk=live.pk).delete()
    assert not EntryVersion.objects.filter(pk=live.pk).exists()
    assert client.get("/glossary/inference/").status_code == 404


@pytest.mark.django_db
def test_an_edit_recorded_after_an_archive_it_did_not_see_keeps_it_archived(make_entry):
    entry = make_entry("Widget", slug="widget")
    publishing.publish(entry)
    read_by_the_form = Entry.objects.get(pk=entry.pk)
    publishing.unpublish(Entry.objects.get(pk=entry.pk), archive=True)
    read_by_the_form.body = "Edited as it was archived."
    read_by_the_form.save()
    publishing.record_edit(read_by_the_form, user=None, comment="Saved in the admin.")
    saved = Entry.objects.get(pk=entry.pk)
    assert saved.status == Entry.Status.ARCHIVED
    assert saved.live_version is None and saved.has_unpublished_changes
    assert saved.versions.order_by("-number").first().data["body"] == "Edited as it was archived."


def _poll(condition: Callable[[], bool], what: str, deadline: float = 15.0) -> None:
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return bool(cursor.fetchone()[0])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's row locks")
@pytest.mark.django_db(transaction=True)
def test_a_rerender_and_a_withdrawal_at_the_same_moment_both_finish(make_entry):
    """The editor's withdrawal holds its entry's row when the deploy's rerender starts;
    the rerender waits for it rather than each waiting for the other (PostgreSQL ended the
    rerender with "deadlock detected" at its commit)."""
    entries = [make_entry(term, slug=term.lower()) for term in ("Alpha", "Beta", "Gamma")]
    for entry in entries:
        publishing.publish(entry)
    withdrawn = entries[1]
    locked, go = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def editor() -> None:
        try:
            with transaction.atomic():
                Entry.objects.select_for_update().get(pk=withdrawn.pk)
                locked.set()
                go.wait(15)
                publishing.unpublish(Entry.objects.get(pk=withdrawn.pk))
            results["editor"] = "done"
        except BaseException as exc:  # surfaced by the assertions below
            results["editor"] = exc
        finally:
            connections.close_all()

    def deploy() -> None:
        try:
            results["deploy"] = publishing.rerender_all()
        except BaseException as exc:
            results["deploy"] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=editor), threading.Thread(target=deploy)]
    threads[0].start()
    try:
        _poll(locked.is_set, "the editor to hold the entry's row")
        threads[1].start()
        _poll(_waiting_on_a_lock, "the rerender to wait on the editor's row")
    finally:
        go.set()
        for thread in threads:
            thread.join(30)
    assert results == {"editor": "done", "deploy": 2}
    assert sorted(Listing.objects.values_list("term", flat=True)) == ["Alpha", "Gamma"]
