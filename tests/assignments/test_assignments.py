"""Assignments (editorial.assignments): who writes or fact-checks an entry by when, each
step in the entry's history, the assignee told, and who may do it."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.core.exceptions import PermissionDenied

from editorial import assignments, notify
from editorial.models import Assignment, Notification, NotificationPreference, WorkflowEvent
from editorial.permissions import Role as DeskRole
from glossary.models import Entry
from tests.personas import NOW, member

pytestmark = pytest.mark.django_db

# NOW is Monday Nov 30, 2026 at 10:00 in New York.
TODAY = datetime.date(2026, 11, 30)
FRIDAY = datetime.date(2026, 12, 4)


@pytest.fixture(autouse=True)
def frozen():
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def entry(make_entry):
    return make_entry("Interconnect")


def test_an_editor_assigns_a_writer_who_is_told_and_the_history_says_so(entry, editor, writer):
    made = assignments.assign(
        entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor, note="Cover NVLink."
    )

    assert (made.assignee, made.due_on, made.assigned_by, made.done_at) == (
        writer,
        FRIDAY,
        editor,
        None,
    )
    event = WorkflowEvent.objects.get(entry=entry)
    assert (event.action, event.actor, event.from_status, event.to_status) == (
        WorkflowEvent.Action.ASSIGN,
        editor,
        entry.status,
        entry.status,
    )
    assert "wanda_writer" in event.comment and "December 4, 2026" in event.comment
    [note] = Notification.objects.filter(recipient=writer)
    assert note.kind == Notification.Kind.ASSIGNED
    assert "December 4, 2026" in note.subject and "Cover NVLink." in note.text


def test_a_writer_cannot_be_assigned_as_the_fact_checker(entry, editor, writer):
    with pytest.raises(assignments.AssignmentError, match="cannot fact-check"):
        assignments.assign(entry, role="fact_checker", assignee=writer, due_on=FRIDAY, user=editor)
    assert not Assignment.objects.exists()


def test_a_fact_checker_cannot_be_assigned_as_the_writer(entry, editor, fact_checker):
    with pytest.raises(assignments.AssignmentError, match="cannot write"):
        assignments.assign(entry, role="writer", assignee=fact_checker, due_on=FRIDAY, user=editor)


def test_a_fact_checker_can_be_assigned_to_check(entry, editor, fact_checker):
    made = assignments.assign(
        entry, role="fact_checker", assignee=fact_checker, due_on=FRIDAY, user=editor
    )
    assert made.role == Assignment.Role.FACT_CHECKER


@pytest.mark.parametrize("persona", ["writer", "fact_checker", "outsider"])
def test_only_editors_and_admins_may_assign(entry, personas, writer, persona):
    with pytest.raises(PermissionDenied):
        assignments.assign(
            entry, role="writer", assignee=writer, due_on=FRIDAY, user=personas[persona]
        )


def test_an_admin_may_assign(entry, admin_user, writer):
    assert assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=admin_user)


def test_a_due_date_in_the_past_is_refused_naming_today(entry, editor, writer):
    with pytest.raises(assignments.AssignmentError, match="already past.*November 30, 2026"):
        assignments.assign(
            entry,
            role="writer",
            assignee=writer,
            due_on=TODAY - datetime.timedelta(days=1),
            user=editor,
        )


def test_today_is_read_in_the_newsrooms_zone(entry, editor, writer):
    # 03:00 UTC on Dec 1 is still Nov 30 in New York: Nov 30 is due today, not past.
    with time_machine.travel(datetime.datetime(2026, 12, 1, 3, 0, tzinfo=datetime.UTC)):
        made = assignments.assign(entry, role="writer", assignee=writer, due_on=TODAY, user=editor)
    assert made.due_on == TODAY


def test_assigning_a_role_again_reassigns_it_and_logs_who_it_was(entry, editor, roles):
    first = member("walt_writer", DeskRole.WRITER)
    second = member("wendy_writer", DeskRole.WRITER)
    assignments.assign(entry, role="writer", assignee=first, due_on=FRIDAY, user=editor)
    again = assignments.assign(
        entry,
        role="writer",
        assignee=second,
        due_on=FRIDAY + datetime.timedelta(days=3),
        user=editor,
    )

    assert Assignment.objects.get() == again
    assert again.assignee == second
    event = WorkflowEvent.objects.filter(entry=entry).first()
    assert event.action == WorkflowEvent.Action.REASSIGN
    assert "wendy_writer" in event.comment and "Was: Writer: walt_writer" in event.comment
    assert Notification.objects.filter(recipient=second, kind="assigned").count() == 1


def test_assigning_the_same_again_changes_nothing_and_tells_no_one(entry, editor, writer):
    assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)
    assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)

    assert WorkflowEvent.objects.filter(entry=entry).count() == 1
    assert Notification.objects.filter(recipient=writer).count() == 1


def test_an_archived_entry_cannot_be_assigned(make_entry, editor, writer):
    entry = make_entry("Old", status=Entry.Status.ARCHIVED)
    with pytest.raises(assignments.AssignmentError, match="archived"):
        assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)


def test_the_assignee_marks_it_done_once(entry, editor, writer):
    made = assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)
    assignments.mark_done(made, user=writer)
    assignments.mark_done(made, user=writer)

    made.refresh_from_db()
    assert made.done_by == writer and made.done_at == NOW
    done = WorkflowEvent.objects.filter(entry=entry, action=WorkflowEvent.Action.ASSIGNMENT_DONE)
    assert [e.actor for e in done] == [writer]
    # Done, the role is free to assign again.
    assert assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)


def test_someone_else_without_the_right_to_assign_cannot_mark_it_done(
    entry, editor, writer, fact_checker
):
    made = assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)
    with pytest.raises(PermissionDenied):
        assignments.mark_done(made, user=fact_checker)
    made.refresh_from_db()
    assert made.done_at is None


def test_an_assignee_with_email_off_is_not_emailed(entry, editor, writer):
    notify.set_delivery(writer, NotificationPreference.Delivery.OFF)
    assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)
    assert not Notification.objects.filter(recipient=writer).exists()


def test_an_editor_assigning_themselves_is_not_told(entry, editor):
    assignments.assign(entry, role="writer", assignee=editor, due_on=FRIDAY, user=editor)
    assert not Notification.objects.exists()


def test_open_work_lists_the_overdue_first(make_entry, editor, writer):
    later = make_entry("Later")
    sooner = make_entry("Sooner")
    assignments.assign(later, role="writer", assignee=writer, due_on=FRIDAY, user=editor)
    assignments.assign(sooner, role="writer", assignee=writer, due_on=TODAY, user=editor)
    with time_machine.travel(NOW + datetime.timedelta(days=2), tick=False):
        listed = [a.entry.term for a in assignments.open_for(writer)]
    assert listed == ["Sooner", "Later"]
