"""A publish puts out exactly the version the editor reviewed. A see-also names its target
as readers last saw it; only a target never published is named by its working term, and
renaming it is a version of the entries linking to it, credited to who renamed it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from editorial import workflow
from glossary import publishing
from glossary.models import Entry, SeeAlso
from tests.personas import client_for, reviewed
from tests.visibility.desk import edit_entry

pytestmark = pytest.mark.django_db


def draft_linked_from_training(writer: User) -> tuple[Entry, Entry]:
    """A new entry, never published, that Training's see-also names, and Training with
    that link saved and submitted by the writer."""
    draft = Entry.objects.create(
        term="Speculative Decoding", slug="speculative-decoding", summary="Guessing ahead."
    )
    publishing.record_edit(draft, user=writer, comment="First draft.")
    training = Entry.objects.get(slug="training")
    SeeAlso.objects.create(entry=training, target=draft, order=99)
    publishing.record_edit(training, user=writer, comment="Links the new entry.")
    workflow.submit_for_review(training, user=writer)
    training.refresh_from_db()
    return draft, training


def publish_page(entry: Entry) -> str:
    return reverse("admin:glossary_entry_publish", args=[entry.pk])


def test_the_reviewed_version_goes_out_even_when_the_working_copy_moved_without_one(
    client, demo, writer, second_editor
):
    draft, training = draft_linked_from_training(writer)
    shown = int(reviewed(training))
    # The linked draft's name changes behind the desk's back: no version of anything.
    Entry.objects.filter(pk=draft.pk).update(term="Words Nobody Reviewed")
    response = client_for(second_editor).post(
        publish_page(training), {"material": "1", "expected_version": str(shown)}
    )
    assert response.status_code == 302
    training.refresh_from_db()
    assert training.live_version is not None and training.live_version.number == shown
    page = client.get("/glossary/training/").content.decode()
    assert "Speculative Decoding" in page
    assert "Words Nobody Reviewed" not in page
    assert "Words Nobody Reviewed" not in client.get("/api/v1/entries/training/").content.decode()


def test_renaming_an_entry_never_published_is_a_version_of_the_entries_linking_to_it(
    demo, writer, editor
):
    draft, training = draft_linked_from_training(writer)
    before = training.versions.count()
    edit_entry(editor, draft, term="Speculative Sampling")
    latest = training.versions.order_by("-number").first()
    assert training.versions.count() == before + 1
    assert latest is not None and latest.created_by == editor
    assert "“Speculative Decoding”, was renamed “Speculative Sampling”" in latest.comment
    assert [s["term"] for s in latest.data["see_also"] if s["entry"] == draft.pk] == [
        "Speculative Sampling"
    ]
    # A second save with the same name records nothing more in Training.
    edit_entry(editor, draft, summary="Guessing several tokens ahead.")
    assert training.versions.count() == before + 1


def test_an_editor_who_renamed_the_linked_entry_cannot_publish_the_linking_one(
    client, demo, writer, editor, second_editor
):
    draft, training = draft_linked_from_training(writer)
    edit_entry(editor, draft, term="Editor's Own Words")
    training.refresh_from_db()
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(training, user=editor, expected_version=int(reviewed(training)))
    assert "Editor&#x27;s Own Words" not in client.get("/glossary/training/").content.decode()
    workflow.publish_entry(training, user=second_editor, expected_version=int(reviewed(training)))
    assert "Editor&#x27;s Own Words" in client.get("/glossary/training/").content.decode()


def test_a_rename_after_the_editor_opened_the_publish_page_is_refused_as_unreviewed(
    client, demo, writer, second_editor
):
    draft, training = draft_linked_from_training(writer)
    shown = reviewed(training)
    edit_entry(writer, draft, term="Slipped In Late")
    response = client_for(second_editor).post(
        publish_page(training), {"material": "1", "expected_version": shown}
    )
    assert response.status_code == 400
    assert "review the new version before publishing" in response.content.decode()
    assert "Slipped In Late" not in client.get("/glossary/training/").content.decode()


def test_a_withdrawn_target_keeps_the_name_it_was_published_under(client, demo, writer, editor):
    """An editor renames a published entry in a draft and withdraws it; a writer's later
    save of an entry linking to it must not carry the editor's unpublished name, or the
    editor could publish their own words."""
    inference = Entry.objects.get(slug="inference")
    edit_entry(editor, inference, term="The Editor's Unreviewed Name")
    workflow.unpublish_entry(inference, user=editor, comment="Withdrawn.")
    training = Entry.objects.get(slug="training")
    edit_entry(writer, training, summary="A writer's unrelated change.")
    workflow.submit_for_review(training, user=writer)
    training.refresh_from_db()
    workflow.publish_entry(training, user=editor, expected_version=int(reviewed(training)))
    page = client.get("/glossary/training/").content.decode()
    assert "A writer&#x27;s unrelated change." in page
    assert "Unreviewed Name" not in page
    assert "See also Inference" in page
