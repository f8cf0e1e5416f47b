"""A publish puts out exactly the version the editor reviewed, and renaming an entry that
others name by its working term is a change to those entries, credited to who renamed it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from editorial import workflow
from glossary.models import Entry
from tests.integrity.desk import edit_entry
from tests.personas import client_for, reviewed

pytestmark = pytest.mark.django_db


def withdraw_inference(editor) -> Entry:
    """Inference, linked from Training, without a live version: others name it by its
    working term."""
    inference = Entry.objects.get(slug="inference")
    workflow.unpublish_entry(inference, user=editor)
    return inference


def test_the_reviewed_version_goes_out_even_when_the_working_copy_moved_without_one(
    client, demo, writer, editor, second_editor
):
    inference = withdraw_inference(editor)
    training = Entry.objects.get(slug="training")
    edit_entry(writer, training, summary="Teaching a model from data, reviewed.")
    workflow.submit_for_review(training, user=writer)
    shown = int(reviewed(training))
    # The linked entry's name changes behind the desk's back: no version of anything.
    Entry.objects.filter(pk=inference.pk).update(term="Words Nobody Reviewed")
    response = client_for(second_editor).post(
        reverse("admin:glossary_entry_publish", args=[training.pk]),
        {"material": "1", "expected_version": str(shown)},
    )
    assert response.status_code == 302
    training.refresh_from_db()
    assert training.live_version is not None and training.live_version.number == shown
    page = client.get("/glossary/training/").content.decode()
    assert "Teaching a model from data, reviewed." in page
    assert "Words Nobody Reviewed" not in page
    assert "Words Nobody Reviewed" not in client.get("/api/v1/entries/training/").content.decode()


def test_renaming_an_entry_others_name_by_its_working_term_is_a_version_of_them(
    demo, writer, editor
):
    inference = withdraw_inference(editor)
    training = Entry.objects.get(slug="training")
    before = training.versions.count()
    edit_entry(writer, inference, term="Inference at the Edge")
    latest = training.versions.order_by("-number").first()
    assert training.versions.count() == before + 1
    assert latest is not None and latest.created_by == writer
    assert "“Inference”, was renamed “Inference at the Edge”" in latest.comment
    assert [s["term"] for s in latest.data["see_also"] if s["entry"] == inference.pk] == [
        "Inference at the Edge"
    ]
    # A second save with the same name records nothing more in Training.
    edit_entry(writer, inference, summary="Running a trained model.")
    assert training.versions.count() == before + 1


def test_an_editor_who_renamed_the_linked_entry_cannot_publish_the_linking_one(
    client, demo, writer, editor, second_editor
):
    inference = withdraw_inference(editor)
    training = Entry.objects.get(slug="training")
    edit_entry(writer, training, summary="A writer's change for review.")
    workflow.submit_for_review(training, user=writer)
    edit_entry(editor, inference, term="Editor's Own Words")
    training.refresh_from_db()
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(training, user=editor, expected_version=int(reviewed(training)))
    assert "Editor's Own Words" not in client.get("/glossary/training/").content.decode()
    workflow.publish_entry(training, user=second_editor, expected_version=int(reviewed(training)))
    assert "Editor&#x27;s Own Words" in client.get("/glossary/training/").content.decode()


def test_a_rename_after_the_editor_opened_the_publish_page_is_refused_as_unreviewed(
    client, demo, writer, editor, second_editor
):
    inference = withdraw_inference(editor)
    training = Entry.objects.get(slug="training")
    edit_entry(writer, training, summary="A writer's change for review.")
    workflow.submit_for_review(training, user=writer)
    shown = reviewed(training)
    edit_entry(writer, inference, term="Slipped In Late")
    response = client_for(second_editor).post(
        reverse("admin:glossary_entry_publish", args=[training.pk]),
        {"material": "1", "expected_version": shown},
    )
    assert response.status_code == 400
    assert "review the new version before publishing" in response.content.decode()
    assert "Slipped In Late" not in client.get("/glossary/training/").content.decode()
