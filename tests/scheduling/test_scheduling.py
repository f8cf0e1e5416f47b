"""editorial.scheduling: due actions run once, through the workflow, with the gates again."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError

from editorial import scheduling
from editorial.models import ScheduledAction, SchedulerHeartbeat, WorkflowEvent
from editorial.tasks import publish_due
from glossary.models import Citation, Entry

from .conftest import BEFORE, DUE_UTC


@pytest.fixture
def scheduled(entry_in_review: Callable[..., Entry], editor: User) -> ScheduledAction:
    entry = entry_in_review()
    return scheduling.schedule(entry, action="publish", due_at=DUE_UTC, user=editor, now=BEFORE)


def test_it_publishes_a_due_entry_as_the_editor_who_scheduled_it(
    scheduled: ScheduledAction, editor: User
) -> None:
    report = scheduling.run_due(now=DUE_UTC + datetime.timedelta(seconds=30))
    assert report.done == [scheduled.pk]
    scheduled.refresh_from_db()
    assert scheduled.state == ScheduledAction.State.DONE
    assert scheduled.result == "Published version 1 as scheduled for Dec 1, 2026, 09:00 EST."
    entry = Entry.objects.get(pk=scheduled.entry_id)
    assert entry.is_live
    assert entry.live_version.published_by == editor
    assert entry.last_published_at == DUE_UTC + datetime.timedelta(seconds=30)
    event = WorkflowEvent.objects.get(entry=entry, action=WorkflowEvent.Action.PUBLISH)
    assert event.actor == editor


def test_it_leaves_an_action_that_is_not_due_yet(scheduled: ScheduledAction) -> None:
    report = scheduling.run_due(now=DUE_UTC - datetime.timedelta(seconds=1))
    assert report.done == report.failed == []
    scheduled.refresh_from_db()
    assert scheduled.state == ScheduledAction.State.PENDING
    assert not Entry.objects.get(pk=scheduled.entry_id).is_live


def test_a_second_run_does_not_publish_again(scheduled: ScheduledAction) -> None:
    scheduling.run_due(now=DUE_UTC)
    again = scheduling.run_due(now=DUE_UTC + datetime.timedelta(minutes=1))
    assert again.done == again.failed == []
    assert scheduling.run_one(scheduled.pk, now=DUE_UTC) == "skipped"
    assert WorkflowEvent.objects.filter(action=WorkflowEvent.Action.PUBLISH).count() == 1


def test_the_gates_run_again_when_due_and_a_failure_is_recorded(
    scheduled: ScheduledAction,
) -> None:
    # Fine when scheduled; by the due date the citation has gone stale.
    Citation.objects.filter(entry_id=scheduled.entry_id).update(
        checked_on=datetime.date(2026, 5, 1)
    )
    report = scheduling.run_due(now=DUE_UTC)
    assert report.failed == [scheduled.pk]
    scheduled.refresh_from_db()
    assert scheduled.state == ScheduledAction.State.FAILED
    assert scheduled.result.startswith(
        "Not published: the publish checks failed at Dec 1, 2026, 09:00 EST. "
        "The citation of “Source "
    )
    assert "was last checked 214 days ago; the freshness window is 180 days." in scheduled.result
    assert [f["code"] for f in scheduled.failures] == ["citation_fresh"]
    assert not Entry.objects.get(pk=scheduled.entry_id).is_live
    # A failed row is not retried every minute.
    assert scheduling.run_due(now=DUE_UTC + datetime.timedelta(minutes=1)).failed == []


def test_an_entry_no_longer_in_review_fails_with_the_reason(
    scheduled: ScheduledAction, editor: User
) -> None:
    from editorial import workflow

    workflow.request_changes(scheduled.entry, user=editor, comment="Shorter, please.")
    scheduling.run_due(now=DUE_UTC)
    scheduled.refresh_from_db()
    assert scheduled.state == ScheduledAction.State.FAILED
    assert "changes requested" in scheduled.result


def test_a_cancelled_action_never_runs(scheduled: ScheduledAction, editor: User) -> None:
    assert scheduling.cancel(scheduled, user=editor)
    assert not scheduling.cancel(scheduled, user=editor)
    assert scheduling.run_due(now=DUE_UTC).done == []
    scheduled.refresh_from_db()
    assert scheduled.state == ScheduledAction.State.CANCELLED
    assert scheduled.cancelled_by == editor


def test_it_unpublishes_at_the_scheduled_time(
    entry_in_review: Callable[..., Entry], editor: User
) -> None:
    from editorial import workflow

    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor, now=BEFORE)
    row = scheduling.schedule(entry, action="unpublish", due_at=DUE_UTC, user=editor, now=BEFORE)
    assert scheduling.run_due(now=DUE_UTC).done == [row.pk]
    entry.refresh_from_db()
    assert not entry.is_live
    row.refresh_from_db()
    assert row.result == "Unpublished as scheduled for Dec 1, 2026, 09:00 EST."


def test_a_scheduled_unpublish_says_it_was_scheduled_by_whom_and_when(
    entry_in_review: Callable[..., Entry], editor: User
) -> None:
    from editorial import workflow

    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor, now=BEFORE)
    scheduling.schedule(entry, action="unpublish", due_at=DUE_UTC, user=editor, now=BEFORE)
    ScheduledAction.objects.filter(entry=entry).update(created_at=BEFORE)
    scheduling.run_due(now=DUE_UTC)
    event = WorkflowEvent.objects.filter(entry=entry).order_by("-pk").first()
    assert event.action == WorkflowEvent.Action.UNPUBLISH
    assert event.comment == (
        f"Scheduled unpublish. Scheduled by {editor.get_username()} on Nov 30, 2026, 10:00 EST."
    )
    # Not a reason written for readers: the next publish page offers no correction note.
    assert workflow.withdrawal_reason(entry) == ""


def test_only_people_who_may_schedule_can_schedule_or_cancel(
    entry_in_review: Callable[..., Entry], writer: User, editor: User, fact_checker: User
) -> None:
    entry = entry_in_review()
    for user in (writer, fact_checker):
        with pytest.raises(PermissionDenied):
            scheduling.schedule(entry, action="publish", due_at=DUE_UTC, user=user, now=BEFORE)
    row = scheduling.schedule(entry, action="publish", due_at=DUE_UTC, user=editor, now=BEFORE)
    with pytest.raises(PermissionDenied):
        scheduling.cancel(row, user=writer)
    row.refresh_from_db()
    assert row.state == ScheduledAction.State.PENDING


def test_it_refuses_a_time_in_the_past_and_a_second_pending_publish(
    scheduled: ScheduledAction, editor: User
) -> None:
    with pytest.raises(ValidationError, match="already has a publish waiting"):
        scheduling.schedule(
            scheduled.entry, action="publish", due_at=DUE_UTC, user=editor, now=BEFORE
        )
    with pytest.raises(ValidationError, match="has already passed"):
        scheduling.schedule(
            scheduled.entry, action="unpublish", due_at=BEFORE, user=editor, now=BEFORE
        )


def test_each_run_records_a_heartbeat_and_the_status_turns_late_without_one(db: None) -> None:
    assert scheduling.scheduler_status(BEFORE).late
    assert "never run" in scheduling.scheduler_status(BEFORE).message
    scheduling.run_due(now=BEFORE)
    assert SchedulerHeartbeat.objects.get().last_run_at == BEFORE
    assert not scheduling.scheduler_status(BEFORE + datetime.timedelta(minutes=5)).late
    late = scheduling.scheduler_status(BEFORE + datetime.timedelta(minutes=6))
    assert late.late
    assert late.message.startswith(
        "The scheduler last ran 6 minutes ago, at Nov 30, 2026, 10:00 EST"
    )


def test_the_beat_task_publishes_what_is_due(scheduled: ScheduledAction) -> None:
    with time_machine.travel(DUE_UTC + datetime.timedelta(seconds=5), tick=False):
        result = publish_due.delay().get()
    assert result == {"done": [scheduled.pk], "failed": [], "skipped": []}
    assert SchedulerHeartbeat.objects.get().last_run_at == DUE_UTC + datetime.timedelta(seconds=5)


def test_beat_runs_the_task_every_minute(settings: object) -> None:
    from django.conf import settings as live

    entry = live.CELERY_BEAT_SCHEDULE["publish-scheduled-entries"]
    assert entry == {"task": "editorial.tasks.publish_due", "schedule": 60.0}
    assert "linkcheck-due-sources" in live.CELERY_BEAT_SCHEDULE
