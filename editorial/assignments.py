"""Assignments: who writes or fact-checks an entry, by which day, and planned entries.

An editor (anyone who may `Action.ASSIGN`) asks a person to write or to
fact-check an entry by a date in the newsroom's zone; the assignee must hold that
role (a writer is not a fact-checker). An entry has at most one open assignment per
role: assigning again reassigns it. The assignee, or anyone who may assign, marks
it done. Each step is a WorkflowEvent in the entry's history, credited to whoever
took it, and the assignee is told (editorial.notify.tell_assigned).

A *planned* entry is an ordinary draft with a term and no body yet
(`plan_entry`): the publish checks refuse an empty body and no override lets
one through (editorial.gates.BODY_PRESENT), so a plan never reaches readers.

The rule these functions keep: an assignment never changes what readers see. They
write Assignment rows, workflow events and notifications, never the entry, a
version or the site's generation token.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from editorial import newsroom, notify
from editorial.models import Assignment, WorkflowEvent
from editorial.permissions import Action, can, require
from glossary import publishing
from glossary.models import Entry

log = logging.getLogger(__name__)

Role = Assignment.Role

# The action a person must be able to take to hold each role.
ROLE_ACTION = {Role.WRITER: Action.EDIT, Role.FACT_CHECKER: Action.CONFIRM_CITATION}
ROLE_VERB = {Role.WRITER: "write", Role.FACT_CHECKER: "fact-check"}


class AssignmentError(Exception):
    """An assignment that cannot be made or changed; the message names the problem."""


def eligible(role: str) -> QuerySet[User]:
    """The active people who can hold `role`, for the forms' choices."""
    people = notify.content_writers() if role == Role.WRITER else notify.anyone_confirming()
    return people.order_by("username")


def check_assignee(assignee: User, role: str, entry: Entry | None = None) -> None:
    """`assignee` can do `role`'s work (on `entry`'s show, when given)."""
    if not assignee.is_active:
        raise AssignmentError(f"{assignee.get_username()}'s account is deactivated.")
    if not can(assignee, ROLE_ACTION[Role(role)], entry):
        raise AssignmentError(
            f"{assignee.get_username()} cannot {ROLE_VERB[Role(role)]} entries, so they cannot "
            f"be the {Role(role).label.lower()}. Choose someone who holds that role."
        )


def check_due(due_on: datetime.date, *, today: datetime.date | None = None) -> None:
    today = today or newsroom.today()
    if due_on < today:
        raise AssignmentError(
            f"The due date {newsroom.format_date(due_on)} is already past (today is "
            f"{newsroom.format_date(today)} in {newsroom.zone_label()}). Choose today or later."
        )


def _event(entry: Entry, action: str, user: Any, comment: str) -> WorkflowEvent:
    return WorkflowEvent.objects.create(
        entry=entry,
        action=action,
        from_status=entry.status,
        to_status=entry.status,
        actor=user,
        comment=comment,
    )


def _describe(assignment: Assignment) -> str:
    text = (
        f"{assignment.get_role_display()}: {assignment.assignee.get_username()}, due "
        f"{newsroom.format_date(assignment.due_on)}."
    )
    return text + (f" Note: {assignment.note}" if assignment.note else "")


def assign(
    entry: Entry,
    *,
    role: str,
    assignee: User,
    due_on: datetime.date,
    user: User,
    note: str = "",
) -> Assignment:
    """Ask `assignee` to do `role`'s work on `entry` by `due_on`, or change who and when.

    Assigning the same person, day and note again changes nothing and tells no one.
    """
    require(user, Action.ASSIGN)
    role = Role(role)
    check_assignee(assignee, role, entry)
    note = note.strip()
    if entry.status == Entry.Status.ARCHIVED:
        raise AssignmentError(f"“{entry.term}” is archived: restore it before assigning it.")
    with transaction.atomic():
        current = (
            Assignment.objects.select_for_update()
            .filter(entry=entry, role=role, done_at__isnull=True)
            .first()
        )
        if current is None:
            check_due(due_on)
            assignment = Assignment.objects.create(
                entry=entry,
                role=role,
                assignee=assignee,
                due_on=due_on,
                note=note,
                assigned_by=user,
            )
            _event(entry, WorkflowEvent.Action.ASSIGN, user, _describe(assignment))
            notify.tell_assigned(assignment, actor=user)
            return assignment
        if (current.assignee_id, current.due_on, current.note) == (assignee.pk, due_on, note):
            return current
        if due_on != current.due_on:
            check_due(due_on)
        before = _describe(current)
        new_person = current.assignee_id != assignee.pk
        current.assignee, current.due_on, current.note = assignee, due_on, note
        current.assigned_by = user
        current.save(update_fields=["assignee", "due_on", "note", "assigned_by"])
        _event(
            entry,
            WorkflowEvent.Action.REASSIGN,
            user,
            f"{_describe(current)} Was: {before}",
        )
        # A new assignee hears of it; so does the same one when the day or the ask moved.
        notify.tell_assigned(current, actor=user)
        log.info(
            "assignment changed",
            extra={"assignment": current.pk, "entry": entry.pk, "new_person": new_person},
        )
        return current


def mark_done(assignment: Assignment, *, user: User) -> Assignment:
    """The assignee (or anyone who may assign) says the work is done; twice is once."""
    if assignment.assignee_id != user.pk:
        require(user, Action.ASSIGN)
    with transaction.atomic():
        now = timezone.now()
        claimed = Assignment.objects.filter(pk=assignment.pk, done_at__isnull=True).update(
            done_at=now, done_by=user
        )
        assignment.refresh_from_db()
        if claimed:
            entry = assignment.entry
            _event(
                entry,
                WorkflowEvent.Action.ASSIGNMENT_DONE,
                user,
                f"{assignment.get_role_display()} by {assignment.assignee.get_username()} "
                f"(due {newsroom.format_date(assignment.due_on)}).",
            )
    return assignment


def plan_entry(
    entry: Entry,
    *,
    user: User,
    assignments: list[tuple[str, User, datetime.date]],
    note: str = "",
) -> Entry:
    """Save `entry` (a term and a slug, no body) as a draft and assign it.

    The planned term is a first version credited to `user`, as any entry added in
    the admin is: whoever planned it counts as an author, so someone else publishes it.
    """
    require(user, Action.ADD)
    require(user, Action.ASSIGN)
    for role, person, due_on in assignments:
        check_assignee(person, role, entry)
        check_due(due_on)
    with transaction.atomic():
        entry.status = Entry.Status.DRAFT
        entry.created_by = user
        entry.updated_by = user
        entry.save()
        publishing.record_edit(entry, user=user, comment="Planned: a term to write, no body yet.")
        for role, person, due_on in assignments:
            assign(entry, role=role, assignee=person, due_on=due_on, user=user, note=note)
    return entry


def open_for(user: User) -> QuerySet[Assignment]:
    """`user`'s open assignments, overdue first (the earliest due first)."""
    return (
        Assignment.objects.filter(assignee=user, done_at__isnull=True)
        .select_related("entry", "assigned_by")
        .order_by("due_on", "pk")
    )


def recently_done(user: User, days: int = 14) -> QuerySet[Assignment]:
    since = timezone.now() - datetime.timedelta(days=days)
    return (
        Assignment.objects.filter(assignee=user, done_at__gte=since)
        .select_related("entry")
        .order_by("-done_at")
    )


# The demo's planned entry (docs/demo.md), planned by `editor` for `writer` and `factchecker`.
DEMO_PLANNED = ("Optical circuit switch", "optical-circuit-switch")
DEMO_SEED = "interconnect"


def add_demo_plan(today: datetime.date | None = None) -> bool:
    """Plan the demo's entry and assign the seed's re-check, once; whether they were added.

    Nothing happens without the demo logins (writer, factchecker, editor) or when the
    planned entry's address is already taken.
    """
    today = today or newsroom.today()
    people = {
        u.username: u for u in User.objects.filter(username__in=["writer", "factchecker", "editor"])
    }
    if len(people) < 3 or Entry.objects.filter(slug=DEMO_PLANNED[1]).exists():
        return False
    term, slug = DEMO_PLANNED
    # On the seed entry's show, whose team the demo's writer is on (docs/shows-and-teams.md).
    show_id = Entry.objects.filter(slug=DEMO_SEED).values_list("show_id", flat=True).first()
    with transaction.atomic():
        plan_entry(
            Entry(term=term, slug=slug, show_id=show_id),
            user=people["editor"],
            assignments=[
                (Role.WRITER, people["writer"], today + datetime.timedelta(days=5)),
                (Role.FACT_CHECKER, people["factchecker"], today + datetime.timedelta(days=9)),
            ],
            note="What an optical circuit switch does in a scale-out network, and who makes one.",
        )
        seed = Entry.objects.filter(slug=DEMO_SEED).first()
        if seed is not None:
            assign(
                seed,
                role=Role.FACT_CHECKER,
                assignee=people["factchecker"],
                due_on=today + datetime.timedelta(days=2),
                user=people["editor"],
                note="Re-confirm the citations before the next episode airs.",
            )
    return True
