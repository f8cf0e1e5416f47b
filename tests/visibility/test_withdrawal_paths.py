"""Withdrawal by every path beside the workflow's own.

- Deleting a live version on its own (the versions' admin, as an admin) is refused: it
  would leave the page in the cache, the counts a row too high and the entry published
  with no version. A live version goes only with its entry, or once it is withdrawn.
- An edit recorded after an archive or withdrawal it did not see keeps that status.
- `manage.py rerender` (every deploy) and a withdrawal, or edits of many entries (a tag
  merge), at the same moment both finish: each waits for the other instead of deadlocking.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import RestrictedError
from django.db.models.signals import post_save
from django.urls import reverse

from glossary import publishing, selectors
from glossary.models import Entry, EntryVersion, Listing
from tests.concurrency import backends_waiting_on_a_lock, in_thread, poll
from tests.live import make_live_unchecked
from tests.personas import client_for
from tests.visibility.desk import edit_entry


@pytest.mark.django_db
def test_a_live_version_cannot_be_deleted_on_its_own(client, demo, admin_user):
    entry = Entry.objects.get(slug="inference")
    live = entry.live_version
    assert live is not None
    url = reverse("admin:glossary_entryversion_delete", args=[live.pk])
    # No version is deleted from the versions' admin at all (tests/workflow/
    # test_authors_are_kept.py); the database refuses a live one whatever deletes it.
    page = client_for(admin_user).get(url, follow=True)
    assert "is not deleted on its own" in page.content.decode()
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
    make_live_unchecked(entry)
    read_by_the_form = Entry.objects.get(pk=entry.pk)
    publishing.unpublish(Entry.objects.get(pk=entry.pk), archive=True)
    read_by_the_form.body = "Edited as it was archived."
    read_by_the_form.save()
    publishing.record_edit(read_by_the_form, user=None, comment="Saved in the admin.")
    saved = Entry.objects.get(pk=entry.pk)
    assert saved.status == Entry.Status.ARCHIVED
    assert saved.live_version is None and saved.has_unpublished_changes
    assert saved.versions.order_by("-number").first().data["body"] == "Edited as it was archived."


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's locks")
@pytest.mark.django_db(transaction=True)
def test_a_rerender_and_a_withdrawal_at_the_same_moment_both_finish(make_entry):
    """The editor's withdrawal is under way (its entry's row changed, its listing not yet)
    when the deploy's rerender starts: the rerender waits for it, rather than rewriting
    the listing the withdrawal is about to delete and each then waiting for the other
    (PostgreSQL ended one of them with "deadlock detected")."""
    entries = [make_entry(term, slug=term.lower()) for term in ("Alpha", "Beta", "Gamma")]
    for entry in entries:
        make_live_unchecked(entry)
    withdrawn = entries[1]
    inside, go = threading.Event(), threading.Event()

    def pause_the_withdrawal(sender: Any, instance: Entry, **kwargs: Any) -> None:
        if threading.current_thread().name == "editor" and instance.pk == withdrawn.pk:
            inside.set()
            go.wait(15)

    results: dict[str, Any] = {}
    editor = in_thread(
        "editor", results, lambda: publishing.unpublish(Entry.objects.get(pk=withdrawn.pk))
    )
    deploy = in_thread("deploy", results, publishing.rerender_all)
    post_save.connect(pause_the_withdrawal, sender=Entry, weak=False)
    try:
        editor.start()
        poll(inside.is_set, "the withdrawal to change its entry's row")
        deploy.start()
        poll(lambda: backends_waiting_on_a_lock() > 0, "the rerender to wait for the withdrawal")
    finally:
        go.set()
        editor.join(30)
        deploy.join(30)
        post_save.disconnect(pause_the_withdrawal, sender=Entry)
    assert results == {"editor": None, "deploy": 2}
    assert sorted(Listing.objects.values_list("term", flat=True)) == ["Alpha", "Gamma"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's locks")
@pytest.mark.django_db(transaction=True)
def test_a_rerender_and_edits_of_many_entries_at_the_same_moment_both_finish(
    make_entry, monkeypatch
):
    """A tag merge records a version of each entry it touches, locking them one by one in
    A–Z order. A rerender about to commit (which then takes a share of every live entry's
    row, in the order it listed them) and such a merge would deadlock, so the merge waits
    for the rerender before it locks any entry."""
    entries = [make_entry(term, slug=term.lower()) for term in ("Zulu", "Mike", "Alpha")]
    for entry in entries:
        make_live_unchecked(entry)
    # The order the rerender lists the entries in again, so checks them at its commit; the
    # merge's order (A–Z) is another, here the opposite one, whatever the ids.
    relisted = [v.entry_id for v in selectors.live_versions().only("pk", "entry")]
    deploy_inside, deploy_go = threading.Event(), threading.Event()
    merge_inside, merge_go = threading.Event(), threading.Event()
    announce = publishing._readers_see_a_change

    def paused_before_commit(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "deploy":
            deploy_inside.set()
            deploy_go.wait(15)
        return announce(*args, **kwargs)

    def merge() -> None:
        with transaction.atomic():
            for n, entry_id in enumerate(reversed(relisted)):
                publishing.record_edit(Entry.objects.get(pk=entry_id), user=None, comment="Merged.")
                if n == 0:  # holding the first entry's row
                    merge_inside.set()
                    merge_go.wait(15)

    results: dict[str, Any] = {}
    deploy = in_thread("deploy", results, publishing.rerender_all)
    merging = in_thread("merge", results, merge)
    monkeypatch.setattr(publishing, "_readers_see_a_change", paused_before_commit)
    try:
        deploy.start()
        poll(deploy_inside.is_set, "the rerender to be about to commit")
        merging.start()
        poll(
            lambda: merge_inside.is_set() or backends_waiting_on_a_lock() > 0,
            "the merge to hold its first entry or to wait",
        )
        deploy_go.set()
        poll(
            lambda: not deploy.is_alive() or backends_waiting_on_a_lock() > 0,
            "the rerender to commit or to wait",
        )
    finally:
        deploy_go.set()
        merge_go.set()
        deploy.join(30)
        merging.join(30)
    assert results == {"deploy": 3, "merge": None}
    assert all(Entry.objects.get(pk=e.pk).versions.count() == 2 for e in entries)


@pytest.mark.django_db
@pytest.mark.parametrize("withdrawal", ["unpublish", "archive"])
def test_no_new_preview_link_shows_withdrawn_text(entry_in_review, editor, writer, withdrawal):
    """A withdrawal stops the entry's share links, and the writer cannot make a new one
    showing the withdrawn page to anyone with it."""
    from editorial import workflow

    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    if withdrawal == "unpublish":
        workflow.unpublish_entry(entry, user=editor, comment="Withdrawn.")
    else:
        workflow.archive_entry(entry, user=editor, comment="Withdrawn.")
    wanda = client_for(writer)
    url = reverse("admin:glossary_entry_share", args=[entry.pk])
    response = wanda.post(url, follow=True)
    page = response.content.decode()
    assert "no preview link is made" in page and "/preview/s/" not in page
    assert not entry.share_links.exists()
    if withdrawal == "unpublish":
        # Changed and changed back, it says what was withdrawn.
        withdrawn = entry.summary
        edit_entry(writer, entry, summary=withdrawn + " X")
        edit_entry(writer, entry, summary=withdrawn)
        assert "no preview link is made" in wanda.post(url, follow=True).content.decode()
        assert not entry.share_links.exists()
        # Changed since, it is a draft like any other, and its preview is shared.
        edit_entry(writer, entry, summary="Corrected after the withdrawal.")
        assert "/preview/s/" in wanda.post(url).content.decode()
