"""The workflow's transitions: states, the audit log, self-approval and the gates."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from editorial import workflow
from editorial.models import WorkflowEvent
from glossary.models import Entry
from glossary.publishing import save_version

Status = Entry.Status


def _events(entry: Entry) -> list[tuple[str, str, str, str]]:
    return list(
        WorkflowEvent.objects.filter(entry=entry)
        .order_by("at", "pk")
        .values_list("action", "from_status", "to_status", "actor__username")
    )


def test_a_draft_goes_through_review_to_published_and_every_step_is_logged(
    ready_entry, writer, editor
):
    workflow.submit_for_review(ready_entry, user=writer, comment="Ready.")
    assert ready_entry.status == Status.IN_REVIEW
    version = workflow.publish_entry(ready_entry, user=editor, comment="Looks right.")
    ready_entry.refresh_from_db()
    assert ready_entry.status == Status.PUBLISHED
    assert ready_entry.live_version == version
    assert _events(ready_entry) == [
        ("submit", "draft", "in_review", "wanda_writer"),
        ("publish", "in_review", "published", "ed_editor"),
    ]
    publish = WorkflowEvent.objects.get(entry=ready_entry, action="publish")
    assert publish.version == version
    assert publish.comment == "Looks right."
    assert publish.at is not None


def test_publishing_reuses_the_reviewed_version_instead_of_copying_it(ready_entry, writer, editor):
    workflow.submit_for_review(ready_entry, user=writer)
    version = workflow.publish_entry(ready_entry, user=editor)
    assert version.number == 1
    assert ready_entry.versions.count() == 1


def test_changes_requested_carries_the_comment_back_to_the_writer(ready_entry, writer, editor):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.request_changes(ready_entry, user=editor, comment="Cite the spec, please.")
    assert ready_entry.status == Status.CHANGES_REQUESTED
    comment = workflow.open_review_comment(ready_entry)
    assert comment is not None
    assert comment.comment == "Cite the spec, please."
    assert comment.actor == editor
    workflow.submit_for_review(ready_entry, user=writer)
    assert workflow.open_review_comment(ready_entry) is None


def test_requesting_changes_needs_a_comment(ready_entry, writer, editor):
    workflow.submit_for_review(ready_entry, user=writer)
    with pytest.raises(workflow.WorkflowError, match="Write what needs to change"):
        workflow.request_changes(ready_entry, user=editor, comment="  ")
    ready_entry.refresh_from_db()
    assert ready_entry.status == Status.IN_REVIEW


def test_a_draft_cannot_be_published_without_review(ready_entry, editor):
    with pytest.raises(workflow.InvalidTransition, match="only an entry that is in review"):
        workflow.publish_entry(ready_entry, user=editor)
    ready_entry.refresh_from_db()
    assert not ready_entry.is_live
    assert not WorkflowEvent.objects.exists()


def test_publishing_twice_publishes_once(ready_entry, writer, editor, second_editor):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor)
    with pytest.raises(workflow.InvalidTransition):
        workflow.publish_entry(ready_entry, user=second_editor)
    assert WorkflowEvent.objects.filter(action="publish").count() == 1


def test_the_writer_of_a_change_cannot_approve_it(ready_entry, editor, second_editor):
    # The editor edits the draft, so the change is partly theirs.
    save_version(ready_entry, user=editor, comment="Tightened the summary.")
    workflow.submit_for_review(ready_entry, user=editor)
    with pytest.raises(workflow.SelfApprovalRefused, match="another editor"):
        workflow.publish_entry(ready_entry, user=editor)
    workflow.publish_entry(ready_entry, user=second_editor)
    ready_entry.refresh_from_db()
    assert ready_entry.is_live


def test_submitting_counts_as_authoring_the_change(ready_entry, editor, second_editor):
    workflow.submit_for_review(ready_entry, user=editor)
    with pytest.raises(PermissionDenied):
        workflow.publish_entry(ready_entry, user=editor)


def test_a_setting_allows_self_approval_for_one_person_teams(ready_entry, editor, settings):
    settings.WORKFLOW_ALLOW_SELF_APPROVAL = True
    save_version(ready_entry, user=editor)
    workflow.submit_for_review(ready_entry, user=editor)
    workflow.publish_entry(ready_entry, user=editor)
    ready_entry.refresh_from_db()
    assert ready_entry.is_live


def test_authors_of_earlier_published_changes_may_approve_the_next_one(
    ready_entry, writer, editor, second_editor
):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor)
    save_version(ready_entry, user=second_editor, comment="A fix.")
    Entry.objects.filter(pk=ready_entry.pk).update(status=Status.DRAFT)
    workflow.submit_for_review(ready_entry, user=second_editor)
    # writer wrote version 1, which is already published: not part of this change.
    assert workflow.change_authors(ready_entry) == {second_editor.pk}


def test_blocking_gates_stop_publishing(unsourced_entry, writer, editor):
    workflow.submit_for_review(unsourced_entry, user=writer)
    with pytest.raises(workflow.GateFailed) as failed:
        workflow.publish_entry(unsourced_entry, user=editor)
    assert "has_source" in {r.code for r in failed.value.blocking}
    unsourced_entry.refresh_from_db()
    assert not unsourced_entry.is_live
    assert unsourced_entry.status == Status.IN_REVIEW
    assert not WorkflowEvent.objects.filter(action="publish").exists()


def test_an_override_needs_a_reason_and_logs_it_with_the_checks(unsourced_entry, writer, editor):
    workflow.submit_for_review(unsourced_entry, user=writer)
    with pytest.raises(workflow.GateFailed):
        workflow.publish_entry(unsourced_entry, user=editor, override_reason="   ")
    workflow.publish_entry(
        unsourced_entry, user=editor, override_reason="The source is the episode itself."
    )
    unsourced_entry.refresh_from_db()
    assert unsourced_entry.is_live
    event = WorkflowEvent.objects.get(action="publish")
    assert event.override_reason == "The source is the episode itself."
    assert "has_source" in {c["code"] for c in event.overridden_checks}
    assert all(c["message"] for c in event.overridden_checks)


def test_a_passing_publish_logs_no_override(ready_entry, writer, editor):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor, override_reason="Not needed.")
    event = WorkflowEvent.objects.get(action="publish")
    assert event.override_reason == ""
    assert event.overridden_checks == []


def test_a_correction_note_is_published_with_a_change_to_a_live_entry(
    ready_entry, writer, editor, second_editor
):
    workflow.submit_for_review(ready_entry, user=writer)
    with pytest.raises(workflow.WorkflowError, match="first publication"):
        workflow.publish_entry(ready_entry, user=editor, correction_note="Fixed a date.")
    workflow.publish_entry(ready_entry, user=editor)
    ready_entry.body = "Corrected body."
    ready_entry.save()
    save_version(ready_entry, user=writer)
    Entry.objects.filter(pk=ready_entry.pk).update(status=Status.DRAFT)
    workflow.submit_for_review(ready_entry, user=writer)
    version = workflow.publish_entry(
        ready_entry, user=second_editor, correction_note="We had the year wrong."
    )
    assert version.correction_note == "We had the year wrong."
    assert version.number == 2


def test_a_publish_is_refused_when_someone_saved_after_the_review_began(
    ready_entry, writer, editor
):
    workflow.submit_for_review(ready_entry, user=writer)
    save_version(ready_entry, user=writer, comment="A late change.")
    with pytest.raises(workflow.InvalidTransition, match="saved version 2 after you opened"):
        workflow.publish_entry(ready_entry, user=editor, expected_version=1)
    ready_entry.refresh_from_db()
    assert not ready_entry.is_live


def test_unpublish_takes_the_entry_off_the_site_and_keeps_its_versions(ready_entry, writer, editor):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor)
    workflow.unpublish_entry(ready_entry, user=editor, comment="Legal asked.")
    assert not ready_entry.is_live
    assert ready_entry.status == Status.DRAFT
    assert ready_entry.versions.count() == 1
    assert _events(ready_entry)[-1] == ("unpublish", "published", "draft", "ed_editor")
    with pytest.raises(workflow.InvalidTransition, match="not published"):
        workflow.unpublish_entry(ready_entry, user=editor, comment="Withdrawn.")


@pytest.mark.parametrize("reason", ["", "   \n "])
def test_an_unpublish_without_a_reason_is_refused_from_any_caller(
    ready_entry, writer, editor, reason
):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor)
    with pytest.raises(workflow.WorkflowError, match="Write why the entry is coming down"):
        workflow.unpublish_entry(ready_entry, user=editor, comment=reason)
    ready_entry.refresh_from_db()
    assert ready_entry.is_live
    assert _events(ready_entry)[-1][0] == "publish"


def test_archive_and_restore(ready_entry, writer, editor):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor)
    workflow.archive_entry(ready_entry, user=editor)
    assert ready_entry.status == Status.ARCHIVED
    assert not ready_entry.is_live
    with pytest.raises(workflow.InvalidTransition):
        workflow.submit_for_review(ready_entry, user=writer)
    workflow.restore_entry(ready_entry, user=editor)
    assert ready_entry.status == Status.DRAFT
    assert [e[0] for e in _events(ready_entry)] == ["submit", "publish", "archive", "restore"]


def test_a_status_change_does_not_make_open_edit_forms_stale(ready_entry, writer):
    before = Entry.objects.get(pk=ready_entry.pk).updated_at
    workflow.submit_for_review(ready_entry, user=writer)
    assert Entry.objects.get(pk=ready_entry.pk).updated_at == before
