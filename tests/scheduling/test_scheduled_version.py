"""A scheduled publish puts out the version the editor approved when scheduling it, and a
withdrawal cancels what was scheduled."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
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


def test_a_save_after_scheduling_stops_the_publish(
    entry_in_review: Callable[..., Entry], writer: User, editor: User
) -> None:
    entry = entry_in_review()
    row = scheduling.schedule(entry, action="publish", due_at=DUE_UTC, user=editor, now=BEFORE)
    assert row.version == 1
    edit_entry(writer, entry, summary="Changed after the editor scheduled it, never reviewed.")
    entry.refresh_from_db()
    assert entry.status == Entry.Status.IN_REVIEW
    report = scheduling.run_due(now=AFTER)
    assert report.failed == [row.pk]
    row.refresh_from_db()
    assert row.state == ScheduledAction.State.FAILED
    assert "review the new version before publishing" in row.result
    entry.refresh_from_db()
    assert not entry.is_live


def test_the_approved_version_is_what_goes_out(
    client: Client, entry_in_review: Callable[..., Entry], editor: User
) -> None:
    entry = entry_in_review()
    row = scheduling.schedule(entry, action="publish", due_at=DUE_UTC, user=editor, now=BEFORE)
    assert scheduling.run_due(now=AFTER).done == [row.pk]
    entry.refresh_from_db()
    assert entry.live_version is not None and entry.live_version.number == row.version


def test_scheduling_in_the_admin_approves_the_entry_as_it_is_then(
    entry_in_review: Callable[..., Entry], writer: User, editor: User
) -> None:
    entry = entry_in_review()
    edit_entry(writer, entry, summary="A second version, still in review.")
    client = client_for(editor)
    url = reverse("admin:editorial_scheduledaction_add")
    data = form_data(client.get(url).content.decode(), "scheduledaction_form")
    data.update(entry=str(entry.pk), action="publish", due_date="2099-01-05", due_time="09:00")
    response = client.post(url, data, follow=True)
    assert response.status_code == 200
    row = ScheduledAction.objects.get(entry=entry)
    assert row.version == 2
    assert "(version 2)" in response.content.decode()


def test_a_row_that_names_no_version_publishes_nothing(
    entry_in_review: Callable[..., Entry], editor: User
) -> None:
    entry = entry_in_review()
    row = ScheduledAction.objects.create(
        entry=entry, due_at=DUE_UTC, created_by=editor, approved_by=editor
    )
    assert scheduling.run_due(now=AFTER).failed == [row.pk]
    row.refresh_from_db()
    assert "without naming the version" in row.result
    assert not Entry.objects.get(pk=entry.pk).is_live


@pytest.mark.parametrize("withdraw", [workflow.unpublish_entry, workflow.archive_entry])
def test_withdrawing_an_entry_cancels_what_was_scheduled_for_it(
    withdraw: Callable[..., object],
    live_with_a_change_in_review: Entry,
    editor: User,
    second_editor: User,
) -> None:
    entry = live_with_a_change_in_review
    row = scheduling.schedule(
        entry, action="publish", due_at=DUE_UTC, user=second_editor, now=BEFORE
    )
    withdraw(entry, user=editor, comment="Withdrawn.")
    row.refresh_from_db()
    assert row.state == ScheduledAction.State.CANCELLED
    assert row.cancelled_by == editor
    assert "was " in row.result and editor.get_username() in row.result
    assert scheduling.run_due(now=AFTER).done == []
    assert not Entry.objects.get(pk=entry.pk).is_live
