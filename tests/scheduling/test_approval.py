"""A schedule is an approval, given by whoever saves it, of the version its page named:
an editor who wrote a change must not re-save, or re-target, another editor's waiting
schedule and have the scheduler publish their own text under that editor's name; and an
approval given before the entry was withdrawn or sent back does not outlive it, on a
schedule, a publish page or a bulk publish's confirmation."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from editorial import scheduling, workflow
from editorial.models import ScheduledAction
from glossary.models import Entry
from tests.personas import client_for
from tests.visibility.desk import edit_entry
from tests.workflow.formdata import form_data

from .conftest import BEFORE, DUE_UTC

pytestmark = pytest.mark.django_db
AFTER = DUE_UTC + datetime.timedelta(seconds=30)
MARKER = "Written by the editor and approved by nobody else."


@pytest.fixture(autouse=True)
def before_it_is_due() -> Any:
    """The forms are posted while the schedule is still ahead (DUE_UTC)."""
    with time_machine.travel(BEFORE, tick=True):
        yield


def change_url(row: ScheduledAction) -> str:
    return reverse("admin:editorial_scheduledaction_change", args=[row.pk])


def resave(client: Client, row: ScheduledAction, **changes: str) -> tuple[int, str]:
    """Post the row's change form as the page shows it, with `changes`."""
    data = form_data(client.get(change_url(row)).content.decode(), "scheduledaction_form")
    data.update(changes)
    response = client.post(change_url(row), data)
    return response.status_code, response.content.decode()


@pytest.fixture
def scheduled(
    entry_in_review: Callable[..., Entry], second_editor: User
) -> tuple[Entry, ScheduledAction]:
    """An entry in review whose publish the second editor scheduled."""
    entry = entry_in_review()
    row = scheduling.schedule(
        entry, action="publish", due_at=DUE_UTC, user=second_editor, now=BEFORE
    )
    return entry, row


def test_re_saving_another_editors_schedule_after_writing_the_new_version_is_refused(
    scheduled: tuple[Entry, ScheduledAction], editor: User
) -> None:
    entry, row = scheduled
    edit_entry(editor, entry, summary=MARKER)
    status, body = resave(client_for(editor), row)
    assert status == 200
    assert "You wrote part of this change" in body
    row.refresh_from_db()
    assert row.version == 1 and row.approved_by is not None and row.approved_by != editor
    scheduling.run_due(now=AFTER)
    entry.refresh_from_db()
    assert not entry.is_live  # version 2 was never approved; version 1 is not the newest


def test_a_waiting_schedule_cannot_be_pointed_at_another_entry(
    scheduled: tuple[Entry, ScheduledAction],
    entry_in_review: Callable[..., Entry],
    editor: User,
) -> None:
    """A row approves one entry's version, so its entry is read-only once saved: an editor
    cannot point another editor's row at their own change."""
    entry, row = scheduled
    own = entry_in_review("Own change")
    edit_entry(editor, own, summary=MARKER)
    resave(client_for(editor), row, entry=str(own.pk))
    row.refresh_from_db()
    assert row.entry_id == entry.pk
    scheduling.run_due(now=AFTER)
    assert not Entry.objects.get(pk=own.pk).is_live


def test_the_scheduler_publishes_as_whoever_approved_the_row_last(
    scheduled: tuple[Entry, ScheduledAction], editor: User
) -> None:
    """Even a row whose approver wrote the change (made without the form) is refused."""
    entry, row = scheduled
    edit_entry(editor, entry, summary=MARKER)
    ScheduledAction.objects.filter(pk=row.pk).update(
        approved_by=editor, version=workflow.latest_version_number(entry)
    )
    assert scheduling.run_due(now=AFTER).failed == [row.pk]
    row.refresh_from_db()
    assert "another editor has to approve it" in row.result
    entry.refresh_from_db()
    assert not entry.is_live


def test_re_saving_after_someone_saved_the_entry_names_the_new_version_first(
    scheduled: tuple[Entry, ScheduledAction], writer: User, editor: User
) -> None:
    entry, row = scheduled
    edit_entry(writer, entry, summary="A second version the scheduling editor never saw.")
    client = client_for(editor)
    status, body = resave(client, row)
    assert status == 200
    assert "was saved again since this page showed version 1" in body
    assert "version 2, saved by" in body
    row.refresh_from_db()
    assert row.version == 1  # nothing approved yet
    # The page now names version 2 (and keeps what was typed): saving it approves it.
    data = form_data(body, "scheduledaction_form")
    assert data["shown_version"] == "2"
    assert client.post(change_url(row), data).status_code == 302
    row.refresh_from_db()
    assert (row.version, row.approved_by) == (2, editor)
    assert scheduling.run_due(now=AFTER).done == [row.pk]
    entry.refresh_from_db()
    assert entry.live_version is not None and entry.live_version.number == 2
    assert entry.live_version.published_by == editor


def test_a_new_schedule_opened_for_a_version_keeps_to_it(
    entry_in_review: Callable[..., Entry], writer: User, editor: User
) -> None:
    entry = entry_in_review()
    client = client_for(editor)
    publish_page = client.get(reverse("admin:glossary_entry_publish", args=[entry.pk]))
    link = re.search(
        r'<a href="([^"]+)">Schedule version 1 for a later time instead',
        publish_page.content.decode(),
    )
    assert link, "the publish page offers to schedule the version it shows"
    url = link.group(1).replace("&amp;", "&")
    data = form_data(client.get(url).content.decode(), "scheduledaction_form")
    assert data["shown_version"] == "1"
    edit_entry(writer, entry, summary="Saved while the editor was choosing a time.")
    data.update(action="publish", due_date="2099-01-05", due_time="09:00")
    response = client.post(url, data)
    assert response.status_code == 200
    assert "since this page showed version 1" in response.content.decode()
    assert not ScheduledAction.objects.filter(entry=entry).exists()


def test_a_schedule_does_not_outlive_the_entry_being_sent_back(
    scheduled: tuple[Entry, ScheduledAction], editor: User, writer: User
) -> None:
    entry, row = scheduled
    workflow.request_changes(entry, user=editor, comment="The second claim needs a source.")
    workflow.submit_for_review(entry, user=writer)  # unchanged: still version 1
    assert scheduling.run_due(now=AFTER).failed == [row.pk]
    row.refresh_from_db()
    assert "asked for changes to" in row.result
    entry.refresh_from_db()
    assert not entry.is_live


def hidden(body: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="(\d*)"', body)
    assert found, name
    return found.group(1)


@pytest.mark.parametrize("seen", ["as the page gave it", "", "99999999999"])
def test_a_publish_page_opened_before_a_takedown_cannot_bring_the_page_back(
    seen: str,
    live_with_a_change_in_review: Entry,
    editor: User,
    second_editor: User,
    writer: User,
) -> None:
    """A publish page opened before an objection publishes nothing: a stale page, an old
    one that does not say what it saw (no `seen_event`), and a made-up one."""
    entry = live_with_a_change_in_review
    client = client_for(second_editor)
    url = reverse("admin:glossary_entry_publish", args=[entry.pk])
    page = client.get(url).content.decode()
    data = {"expected_version": hidden(page, "expected_version"), "material": "1"}
    if seen:
        data["seen_event"] = hidden(page, "seen_event") if seen.startswith("as") else seen
    workflow.unpublish_entry(entry, user=editor, comment="Legal takedown.")
    workflow.submit_for_review(entry, user=writer)  # again, unchanged
    response = client.post(url, data)
    assert response.status_code == 400
    if seen.startswith("as"):
        assert f"{editor.get_username()} unpublished “{entry.term}”" in response.content.decode()
    entry.refresh_from_db()
    assert not entry.is_live
    assert client.get(reverse("glossary:entry", args=[entry.slug])).status_code == 404


def test_a_bulk_publish_confirmed_before_an_entry_was_sent_back_leaves_it_out(
    entry_in_review: Callable[..., Entry], editor: User, second_editor: User, writer: User
) -> None:
    sent_back, untouched = entry_in_review("Sent back"), entry_in_review("Untouched")
    client = client_for(second_editor)
    url = reverse("admin:glossary_entry_changelist")
    asked = {
        "action": "publish_selected",
        "_selected_action": [str(sent_back.pk), str(untouched.pk)],
    }
    page = client.post(url, asked).content.decode()
    confirmed: dict[str, Any] = {**asked, "confirmed": "yes"}
    for entry in (sent_back, untouched):
        for field in (f"version_{entry.pk}", f"seen_{entry.pk}"):
            confirmed[field] = hidden(page, field)
    workflow.request_changes(sent_back, user=editor, comment="Not this one.")
    workflow.submit_for_review(sent_back, user=writer)
    response = client.post(url, confirmed, follow=True)
    assert "asked for changes to “Sent back”" in response.content.decode()
    assert Entry.objects.get(pk=untouched.pk).is_live
    assert not Entry.objects.get(pk=sent_back.pk).is_live


def test_a_row_with_no_approval_on_record_publishes_nothing_and_says_why(
    scheduled: tuple[Entry, ScheduledAction],
) -> None:
    """Its approver's account removed, or imported from an export made before approvals
    were recorded: the row's maker is not taken to have approved it."""
    entry, row = scheduled
    ScheduledAction.objects.filter(pk=row.pk).update(approved_by=None)
    assert scheduling.run_due(now=AFTER).failed == [row.pk]
    row.refresh_from_db()
    assert "no approval is on record for this schedule" in row.result
    assert not Entry.objects.get(pk=entry.pk).is_live


def test_a_schedule_page_opened_before_a_takedown_names_it_instead_of_approving(
    live_with_a_change_in_review: Entry, editor: User, second_editor: User, writer: User
) -> None:
    """The publish page's schedule link, followed before an unpublish and saved after the
    writer resubmitted the same version, schedules nothing."""
    entry = live_with_a_change_in_review
    client = client_for(second_editor)
    page = client.get(reverse("admin:glossary_entry_publish", args=[entry.pk])).content
    link = re.search(r'<a href="([^"]+)">Schedule version', page.decode())
    assert link
    url = link.group(1).replace("&amp;", "&")
    data = form_data(client.get(url).content.decode(), "scheduledaction_form")
    workflow.unpublish_entry(entry, user=editor, comment="Legal takedown.")
    workflow.submit_for_review(entry, user=writer)
    data.update(due_date="2026-12-01", due_time="09:00")
    response = client.post(url, data)
    assert response.status_code == 200
    assert f"{editor.get_username()} unpublished “{entry.term}”" in response.content.decode()
    assert not ScheduledAction.objects.filter(entry=entry).exists()


def test_re_saving_a_row_from_a_page_opened_before_changes_were_asked_names_them(
    scheduled: tuple[Entry, ScheduledAction], editor: User, second_editor: User, writer: User
) -> None:
    """A save must not reset what the row had seen, or it would cancel the objection."""
    entry, row = scheduled
    client = client_for(second_editor)
    data = form_data(client.get(change_url(row)).content.decode(), "scheduledaction_form")
    workflow.request_changes(entry, user=editor, comment="The second claim needs a source.")
    workflow.submit_for_review(entry, user=writer)
    response = client.post(change_url(row), data)
    assert response.status_code == 200
    assert "asked for changes to" in response.content.decode()
    assert scheduling.run_due(now=AFTER).failed == [row.pk]
    assert not Entry.objects.get(pk=entry.pk).is_live


def test_the_author_of_a_withdrawn_version_cannot_publish_it_again(
    entry_in_review: Callable[..., Entry], editor: User, second_editor: User, writer: User
) -> None:
    """A withdrawn publication is no baseline of "the change": its author is an author of
    what would come back, and cannot bring it back alone."""
    entry = entry_in_review()
    edit_entry(editor, entry, summary="The editor's own words.")  # still in review
    workflow.publish_entry(entry, user=second_editor)
    workflow.unpublish_entry(entry, user=second_editor, comment="Withdrawn.")
    workflow.submit_for_review(entry, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(entry, user=editor)
    assert not Entry.objects.get(pk=entry.pk).is_live
    workflow.publish_entry(entry, user=second_editor)  # who wrote none of it may
    assert Entry.objects.get(pk=entry.pk).is_live


def test_a_rows_name_gives_its_time_in_newsroom_time_as_the_form_took_it(
    scheduled: tuple[Entry, ScheduledAction],
) -> None:
    """The change message and the admin log name a row by it: in the newsroom's zone, as
    every time on the desk is, whatever zone the instant is held in (09:00 in New York is
    14:00 UTC)."""
    entry, row = scheduled
    for held in (DUE_UTC, DUE_UTC.astimezone(ZoneInfo("Asia/Tokyo"))):
        row.due_at = held
        assert str(row) == f"Publish {entry.term} at Dec 1, 2026, 09:00 EST"


def test_after_two_withdrawals_the_author_still_cannot_and_the_republisher_still_can(
    entry_in_review: Callable[..., Entry], editor: User, second_editor: User, writer: User
) -> None:
    """A republished copy is credited to its text's author, not the publishing editor: after
    a second withdrawal the author cannot publish their withdrawn text alone, and the
    editor who only republished it can."""
    entry = entry_in_review()
    edit_entry(second_editor, entry, summary="The second editor's words.")
    workflow.publish_entry(entry, user=editor)
    for _ in range(2):
        workflow.unpublish_entry(entry, user=editor, comment="Withdrawn.")
        workflow.submit_for_review(entry, user=writer)
        with pytest.raises(workflow.SelfApprovalRefused):
            workflow.publish_entry(entry, user=second_editor)
        workflow.publish_entry(entry, user=editor)  # wrote none of it
        entry.refresh_from_db()
        assert entry.is_live and entry.live_version is not None
        assert entry.live_version.created_by == second_editor  # the copy is their text


def test_a_rollback_to_an_authors_text_does_not_let_them_approve_it(
    live_with_a_change_in_review: Entry,
    editor: User,
    second_editor: User,
    writer: User,
    admin_user: User,
) -> None:
    """A rollback's copy is credited to the old text's author, so on a live entry that
    author is an author of "the change" and cannot publish it."""
    entry = live_with_a_change_in_review
    workflow.publish_entry(entry, user=second_editor)
    edit_entry(editor, entry, summary=MARKER)
    bad = entry.versions.order_by("-number").first()
    assert bad is not None and bad.created_by == editor
    workflow.submit_for_review(entry, user=writer)
    workflow.publish_entry(entry, user=second_editor)
    workflow.unpublish_entry(entry, user=admin_user, comment="Withdrawn.")
    edit_entry(writer, entry, summary="The writer's good text.")
    workflow.submit_for_review(entry, user=writer)
    workflow.publish_entry(entry, user=admin_user)
    workflow.rollback_to(entry, bad, user=second_editor)
    workflow.submit_for_review(entry, user=writer)
    for author in (editor, second_editor):  # who wrote the text, who brought it back
        with pytest.raises(workflow.SelfApprovalRefused):
            workflow.publish_entry(entry, user=author)
    assert MARKER not in Entry.objects.get(pk=entry.pk).live_version.rendered_html
    workflow.publish_entry(entry, user=admin_user)  # who did neither may


def test_a_publish_page_naming_another_entrys_event_publishes_nothing(
    live_with_a_change_in_review: Entry,
    entry_in_review: Callable[..., Entry],
    editor: User,
    second_editor: User,
    writer: User,
) -> None:
    """An event id of another entry (one between this one's unpublish and its
    resubmission) does not pass for what the page saw."""
    entry = live_with_a_change_in_review
    client = client_for(second_editor)
    url = reverse("admin:glossary_entry_publish", args=[entry.pk])
    page = client.get(url).content.decode()
    workflow.unpublish_entry(entry, user=editor, comment="Legal takedown.")
    other = entry_in_review("Other")
    workflow.request_changes(other, user=editor, comment="Another entry's event.")
    workflow.submit_for_review(entry, user=writer)
    borrowed = workflow.last_event_id(other)
    assert borrowed < workflow.last_event_id(entry)
    data = {"expected_version": hidden(page, "expected_version"), "seen_event": str(borrowed)}
    response = client.post(url, data)
    assert response.status_code == 400
    assert "is not one it has had" in response.content.decode()
    assert not Entry.objects.get(pk=entry.pk).is_live
