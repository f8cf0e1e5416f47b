"""Scheduled publishing: an editor asks for a publish or unpublish at a time; beat does it.

Times are entered and shown in the newsroom's zone (settings.NEWSROOM_TIME_ZONE)
and stored in UTC. `run_due` is called every minute by the beat task in
editorial.tasks. It is safe to run any number of times at once:

- each due row is claimed with ``UPDATE … SET state='running' WHERE pk=… AND
  state='pending'`` inside the same transaction that carries out the action.
  A second runner's UPDATE waits on the row lock and then matches nothing (the
  row count says so), so an entry is published exactly once;
- if the process dies before commit, the claim rolls back with the publish and
  the next minute's run takes the row again: nothing is half done.

The publish goes through editorial.workflow.publish_entry, so the publish
gates run again at that moment with the scheduling editor's permissions. A row
whose gates fail ends ``failed`` with the reasons, and the dashboard shows it.
"""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from editorial import notify, workflow
from editorial.models import ScheduledAction, SchedulerHeartbeat
from editorial.newsroom import format_instant, from_local
from editorial.permissions import Action, require
from glossary.models import Entry

log = logging.getLogger(__name__)

HEARTBEAT_NAME = "scheduled-publishing"


def schedule(
    entry: Entry,
    *,
    action: str,
    due_at: datetime.datetime,
    user: Any,
    now: datetime.datetime | None = None,
) -> ScheduledAction:
    """Ask for `action` on `entry` at `due_at` (aware). Editors only; the time must be ahead."""
    require(user, Action.SCHEDULE, entry)
    now = now or timezone.now()
    if timezone.is_naive(due_at):
        due_at = from_local(due_at)
    if due_at <= now:
        raise ValidationError(
            f"{format_instant(due_at)} has already passed; choose a time in the future.",
            code="past",
        )
    if ScheduledAction.objects.filter(
        entry=entry, action=action, state=ScheduledAction.State.PENDING
    ).exists():
        raise ValidationError(
            f"“{entry.term}” already has a {action} waiting; cancel it or change its time.",
            code="duplicate",
        )
    return ScheduledAction.objects.create(
        entry=entry,
        action=action,
        due_at=due_at,
        created_by=user,
        approved_by=user,
        version=approved_version(entry, action),
        seen_event=workflow.last_event_id(entry),
    )


def approved_version(entry: Entry, action: str) -> int | None:
    """The version a scheduled publish puts out: the entry's latest when it is scheduled,
    which the scheduling editor approves. A later save stops the publish."""
    if action != ScheduledAction.Action.PUBLISH:
        return None
    return entry.versions.order_by("-number").values_list("number", flat=True).first()


def cancel(row: ScheduledAction, *, user: Any, now: datetime.datetime | None = None) -> bool:
    """Cancel a waiting row. False when it already ran or was cancelled (nothing changes)."""
    require(user, Action.SCHEDULE, row.entry)
    updated = ScheduledAction.objects.filter(pk=row.pk, state=ScheduledAction.State.PENDING).update(
        state=ScheduledAction.State.CANCELLED,
        cancelled_by=user,
        finished_at=now or timezone.now(),
        result=f"Cancelled by {user.get_username()}.",
    )
    return updated == 1


@dataclass
class RunReport:
    """What one run of the scheduler did, by row id."""

    done: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[int]]:
        return {"done": self.done, "failed": self.failed, "skipped": self.skipped}


def due_ids(now: datetime.datetime) -> list[int]:
    return list(
        ScheduledAction.objects.filter(state=ScheduledAction.State.PENDING, due_at__lte=now)
        .order_by("due_at", "pk")
        .values_list("pk", flat=True)
    )


def run_due(now: datetime.datetime | None = None) -> RunReport:
    """Carry out every scheduled action due at `now`, each exactly once; record a heartbeat."""
    now = now or timezone.now()
    report = RunReport()
    for pk in due_ids(now):
        outcome = run_one(pk, now=now)
        getattr(report, outcome).append(pk)
    record_heartbeat(now, report)
    return report


def run_one(pk: int, *, now: datetime.datetime | None = None) -> str:
    """Claim row `pk` and carry it out. Returns "done", "failed" or "skipped" (not ours)."""
    now = now or timezone.now()
    with transaction.atomic():
        claimed = ScheduledAction.objects.filter(
            pk=pk, state=ScheduledAction.State.PENDING, due_at__lte=now
        ).update(state=ScheduledAction.State.RUNNING)
        if claimed != 1:
            # Another runner has it (or it was cancelled): its UPDATE matched first.
            return "skipped"
        row = ScheduledAction.objects.select_related("entry", "approved_by").get(pk=pk)
        try:
            # A savepoint: a failed publish rolls back its own writes, not our claim.
            with transaction.atomic():
                result, failures = _carry_out(row, now)
            state = ScheduledAction.State.DONE
        except _Refused as refused:
            result, failures = refused.message, refused.failures
            state = ScheduledAction.State.FAILED
        except Exception as exc:  # noqa: BLE001 - recorded on the row and the dashboard
            # Anything unexpected ends the row as failed, so a poison row is not
            # retried every minute forever; the log has the traceback.
            log.exception("Scheduled action %s failed", pk)
            result, failures = f"It could not be carried out: {exc}", []
            state = ScheduledAction.State.FAILED
        ScheduledAction.objects.filter(pk=pk).update(
            state=state, finished_at=now, result=result, failures=failures
        )
        if state == ScheduledAction.State.FAILED:
            notify.tell_schedule_failed(
                row.entry, action=row.get_action_display().lower(), result=result
            )
    return "done" if state == ScheduledAction.State.DONE else "failed"


class _Refused(Exception):
    def __init__(self, message: str, failures: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.message = message
        self.failures = failures


def _carry_out(row: ScheduledAction, now: datetime.datetime) -> tuple[str, list[dict[str, Any]]]:
    # As whoever approved it last (the self-approval rule is theirs), and only if nothing
    # withdrew or sent back the entry since they did.
    entry, user = row.entry, row.approved_by
    when = format_instant(row.due_at)
    if user is None:
        raise _Refused(
            f"Not carried out at {when}: no approval is on record for this schedule (the "
            "account that approved it was removed, or it came from an older export); "
            "schedule it again.",
            [],
        )
    try:
        if row.action == ScheduledAction.Action.PUBLISH:
            if row.version is None:
                raise _Refused(
                    f"Not published at {when}: this publish was scheduled without naming the "
                    "version to publish; review the entry and schedule it again.",
                    [],
                )
            workflow.publish_entry(
                entry,
                user=user,
                comment="Scheduled publish.",
                expected_version=row.version,
                seen_event=row.seen_event,
                now=now,
            )
            return f"Published version {row.version} as scheduled for {when}.", []
        if not entry.is_live:
            return f"Nothing to do at {when}: “{entry.term}” was not published.", []
        workflow.unpublish_entry(
            entry, user=user, comment=workflow.scheduled_reason(user, row.created_at)
        )
        return f"Unpublished as scheduled for {when}.", []
    except workflow.GateFailed as exc:
        failures = [
            {"code": r.code, "message": r.message, "fix_url": r.fix_url, "fixed_by": r.fixed_by}
            for r in exc.blocking
        ]
        reasons = " ".join(f["message"] for f in failures) or str(exc)
        raise _Refused(
            f"Not published: the publish checks failed at {when}. {reasons}", failures
        ) from None
    except (workflow.WorkflowError, PermissionDenied, ValidationError) as exc:
        text = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
        raise _Refused(f"Not carried out at {when}: {text}", []) from None


def record_heartbeat(now: datetime.datetime, report: RunReport | None = None) -> None:
    summary = ""
    if report is not None:
        summary = f"{len(report.done)} done, {len(report.failed)} failed"
    SchedulerHeartbeat.objects.update_or_create(
        name=HEARTBEAT_NAME, defaults={"last_run_at": now, "last_result": summary}
    )


@dataclass(frozen=True)
class SchedulerStatus:
    last_run_at: datetime.datetime | None
    late: bool
    message: str


def scheduler_status(
    now: datetime.datetime | None = None, heartbeat: SchedulerHeartbeat | None = None
) -> SchedulerStatus:
    """Whether the scheduler ran recently enough; the dashboard warns when it did not.

    Pass `heartbeat` when already read (the dashboard reads it with its other queries).
    """
    now = now or timezone.now()
    if heartbeat is None:
        heartbeat = SchedulerHeartbeat.objects.filter(name=HEARTBEAT_NAME).first()
    tolerance = datetime.timedelta(seconds=settings.SCHEDULER_LATE_AFTER_SECONDS)
    if heartbeat is None:
        return SchedulerStatus(
            None,
            True,
            "The scheduler has never run: scheduled publications will not happen. "
            "Check that Celery beat and a worker are running.",
        )
    age = now - heartbeat.last_run_at
    if age > tolerance:
        minutes = int(age.total_seconds() // 60)
        return SchedulerStatus(
            heartbeat.last_run_at,
            True,
            f"The scheduler last ran {minutes} minutes ago, at "
            f"{format_instant(heartbeat.last_run_at)}; it should run every minute. "
            "Scheduled publications are waiting: check that Celery beat and a worker are "
            "running.",
        )
    return SchedulerStatus(
        heartbeat.last_run_at,
        False,
        f"The scheduler last ran at {format_instant(heartbeat.last_run_at)}.",
    )
