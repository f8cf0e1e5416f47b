"""The editors' dashboard: everything that needs a person's attention, on one admin page.

Each list is read with one query (capped at DASHBOARD_ROWS rows, one more read to
know there are more), the publish gates of every published entry are run in bulk
(editorial.gates.run_gates_for), and the health chart reads the health changes
the link checker recorded (editorial.models.SourceHealthChange), so the page
costs the same number of queries whether it lists three rows or three thousand
(tests/dashboard/test_dashboard.py pins it).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.admin import site
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, F, JSONField, OuterRef, Q, Subquery
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone

from editorial import gates, newsroom, scheduling, workflow
from editorial.models import (
    Notification,
    ScheduledAction,
    SchedulerHeartbeat,
    SourceHealthChange,
    WorkflowEvent,
)
from editorial.permissions import Action, can, user_shows
from editorial.sourcetext import report
from glossary.models import (
    CHANGED_SINCE_CONFIRMED,
    Citation,
    Entry,
    EntryVersion,
    Source,
)

# Rows shown per list; the rest are one click away in the filtered admin list.
DASHBOARD_ROWS = 50
CHART_WEEKS = 12
# How long a failed scheduled action stays on the dashboard.
FAILED_SCHEDULE_DAYS = 30
# How long an email given up stays on the dashboard (the email log keeps it).
FAILED_EMAIL_DAYS = 30

HEALTH_ORDER = [
    Source.Health.OK,
    Source.Health.MOVED,
    Source.Health.BLOCKED,
    Source.Health.EMPTY,
    Source.Health.FAILING,
    Source.Health.BROKEN,
    Source.Health.UNCHECKED,
]
# Colour-blind-safe (Okabe–Ito); the table below the chart carries the same numbers.
HEALTH_COLOURS = {
    Source.Health.OK: "#009E73",
    Source.Health.MOVED: "#56B4E9",
    Source.Health.BLOCKED: "#CC79A7",
    Source.Health.EMPTY: "#0072B2",
    Source.Health.FAILING: "#E69F00",
    Source.Health.BROKEN: "#D55E00",
    Source.Health.UNCHECKED: "#999999",
}


@dataclass
class Rows:
    """One dashboard list: at most DASHBOARD_ROWS rows, and whether more exist."""

    items: list[Any]
    more: bool

    @classmethod
    def of(cls, queryset: Any) -> Rows:
        items = list(queryset[: DASHBOARD_ROWS + 1])
        return cls(items[:DASHBOARD_ROWS], len(items) > DASHBOARD_ROWS)


@dataclass
class GateFailures:
    entry: Entry
    failures: list[gates.GateResult]


@dataclass
class Chart:
    weeks: list[datetime.date]
    counts: list[dict[str, int]]
    states: list[tuple[str, str, str]] = field(default_factory=list)  # value, label, colour
    bars: list[dict[str, Any]] = field(default_factory=list)
    width: int = 720
    height: int = 260
    plot_top: int = 20
    plot_bottom: int = 210
    max_total: int = 0
    ticks: list[dict[str, Any]] = field(default_factory=list)


def _latest_event(action: str, column: str) -> Subquery:
    return Subquery(
        WorkflowEvent.objects.filter(entry=OuterRef("pk"), action=action)
        .order_by("-at", "-pk")
        .values(column)[:1]
    )


def _of_shows(queryset: Any, shows: set[int] | None, path: str = "show") -> Any:
    """`queryset`'s rows of `shows` (through `path`); all of them when `shows` is None."""
    return queryset if shows is None else queryset.filter(**{f"{path}__in": shows})


def build(now: datetime.datetime | None = None, shows: set[int] | None = None) -> dict[str, Any]:
    """Everything the dashboard shows, at a fixed number of queries.

    `shows`: the ids of the shows a show member works on (editorial.permissions.user_shows);
    every list then holds their shows' work only. None: the whole network's.
    """
    now = now or timezone.now()
    status = _scheduler_status(now)
    awaiting = _awaiting_review(shows)
    changes = _changes_requested(shows)
    scheduled = _scheduled_actions(now, shows)
    email_failures = _email_failures(now, shows)
    stale, never_checked = _citations_to_check(now, shows)
    sources = _troubled_sources(shows)
    edited = live_with_changes(shows)
    check_dates = Rows.of(check_dates_only_entries(edited))
    failing = _failing_publish_gates(now, shows)
    claims = _claims_of_changed_sources(shows)
    aging = _aging_entries(now, shows)

    return {
        "now": now,
        "scheduler": status,
        "overdue": _overdue(scheduled, now),
        "awaiting": awaiting,
        "changes": changes,
        "scheduled": scheduled,
        "email_failures": email_failures,
        "failed_email_days": FAILED_EMAIL_DAYS,
        "stale": stale,
        "never_checked": never_checked,
        "check_dates": check_dates,
        "live_edited": Rows.of(edited),
        "freshness_days": settings.CITATION_FRESHNESS_DAYS,
        "sources": sources,
        "failing": Rows(failing[:DASHBOARD_ROWS], len(failing) > DASHBOARD_ROWS),
        "claims": Rows(claims[:DASHBOARD_ROWS], len(claims) > DASHBOARD_ROWS),
        "aging": aging,
        "aging_days": settings.DASHBOARD_AGING_DAYS,
        "chart": health_chart(now),
    }


def _scheduler_status(now: datetime.datetime) -> scheduling.SchedulerStatus:
    """Whether the scheduler ran recently enough, from its heartbeat."""
    heartbeat = SchedulerHeartbeat.objects.filter(name=scheduling.HEARTBEAT_NAME).first()
    return scheduling.scheduler_status(now, heartbeat)


def _awaiting_review(shows: set[int] | None) -> Rows:
    """Entries in review, longest waiting first, with who submitted them and when."""
    return Rows.of(
        _of_shows(Entry.objects.filter(status=Entry.Status.IN_REVIEW), shows)
        .select_related("updated_by")
        .annotate(
            submitted_at=_latest_event(WorkflowEvent.Action.SUBMIT, "at"),
            submitted_by=_latest_event(WorkflowEvent.Action.SUBMIT, "actor__username"),
        )
        .order_by(F("submitted_at").asc(nulls_first=True), "updated_at")
    )


def _changes_requested(shows: set[int] | None) -> Rows:
    """Entries sent back for changes, oldest first, with the reviewer's latest comment."""
    return Rows.of(
        _of_shows(Entry.objects.filter(status=Entry.Status.CHANGES_REQUESTED), shows)
        .annotate(
            review_comment=_latest_event(WorkflowEvent.Action.REQUEST_CHANGES, "comment"),
            reviewed_by=_latest_event(WorkflowEvent.Action.REQUEST_CHANGES, "actor__username"),
            reviewed_at=_latest_event(WorkflowEvent.Action.REQUEST_CHANGES, "at"),
        )
        .order_by("updated_at")
    )


def _scheduled_actions(now: datetime.datetime, shows: set[int] | None) -> Rows:
    """Scheduled actions running or pending, and those failed in the last
    FAILED_SCHEDULE_DAYS, each with its due time in the newsroom's zone."""
    scheduled = Rows.of(
        _of_shows(
            ScheduledAction.objects.filter(
                Q(state__in=[ScheduledAction.State.PENDING, ScheduledAction.State.RUNNING])
                | Q(
                    state=ScheduledAction.State.FAILED,
                    finished_at__gte=now - datetime.timedelta(days=FAILED_SCHEDULE_DAYS),
                )
            ),
            shows,
            "entry__show",
        )
        .select_related("entry", "created_by")
        .order_by("-state", "due_at")  # running, pending, then failed
    )
    for row in scheduled.items:
        row.due_local = newsroom.format_instant(row.due_at)
    return scheduled


def _overdue(scheduled: Rows, now: datetime.datetime) -> list[Any]:
    """The pending scheduled actions the scheduler is late with."""
    overdue_cutoff = now - datetime.timedelta(seconds=settings.SCHEDULER_LATE_AFTER_SECONDS)
    return [
        s
        for s in scheduled.items
        if s.state == ScheduledAction.State.PENDING and s.due_at < overdue_cutoff
    ]


def _email_failures(now: datetime.datetime, shows: set[int] | None) -> Rows:
    """Emails waiting to be tried again, and those given up in the last FAILED_EMAIL_DAYS,
    newest failure first, each with its failure time in the newsroom's zone."""
    email_failures = Rows.of(
        _of_shows(Notification.objects.filter(failed_at__isnull=False), shows, "entry__show")
        .filter(
            Q(sent_at__isnull=True)  # waiting to be tried again
            | Q(
                outcome=Notification.Outcome.FAILED,
                sent_at__gte=now - datetime.timedelta(days=FAILED_EMAIL_DAYS),
            )
        )
        .select_related("recipient")
        .order_by("-failed_at", "-pk")
    )
    for row in email_failures.items:
        row.failed_local = newsroom.format_instant(row.failed_at)
    return email_failures


def _citations_to_check(now: datetime.datetime, shows: set[int] | None) -> tuple[Rows, Rows]:
    """Citations of entries not archived: those checked too long ago (oldest first, each
    with its age in days), and those never checked (A–Z)."""
    today = newsroom.today(now)
    citations = _of_shows(
        Citation.objects.exclude(entry__status=Entry.Status.ARCHIVED), shows, "entry__show"
    ).select_related("entry", "source", "checked_by")
    stale = Rows.of(
        citations.stale(today)
        .filter(checked_on__isnull=False)
        .order_by("checked_on", "entry__term")
    )
    never_checked = Rows.of(
        citations.filter(checked_on__isnull=True).order_by("entry__term", "order", "pk")
    )
    for citation in stale.items:
        citation.age_days = (today - citation.checked_on).days if citation.checked_on else None
    return stale, never_checked


def _troubled_sources(shows: set[int] | None) -> Rows:
    """Sources broken, moved, empty or changed since confirmed, with how many citations
    each has; a changed one shown carries what changed (`change`)."""
    troubled = Source.objects.filter(
        Q(health__in=[Source.Health.BROKEN, Source.Health.MOVED, Source.Health.EMPTY])
        | CHANGED_SINCE_CONFIRMED
    )
    if shows is not None:
        # The sources their shows' entries cite (the library itself is the network's).
        cited = Citation.objects.filter(source=OuterRef("pk"), entry__show__in=shows)
        troubled = troubled.filter(Exists(cited))
    sources = Rows.of(troubled.annotate(citing=Count("citations")).order_by("health", "title"))
    # What changed, for the changed sources shown (their texts only: a fixed few queries).
    shown = [s.pk for s in sources.items if s.changed_since_confirmed]
    found = report.changes(Source.objects.filter(pk__in=shown)) if shown else []
    by_source = {c.source.pk: c for c in found}
    for row in sources.items:
        row.change = by_source.get(row.pk)
    return sources


def _failing_publish_gates(now: datetime.datetime, shows: set[int] | None) -> list[GateFailures]:
    """Published entries that now fail a blocking publish check, least recently published
    first, with those failures; at most DASHBOARD_ROWS + 1 entries are checked."""
    # Only the published entries the SQL form of the blocking checks finds are
    # checked for real, and only as many as the list shows: the page costs the
    # same with ten published entries or ten thousand.
    candidates = (
        _of_shows(Entry.objects.published(), shows)
        .filter(gates.may_fail_blocking(now))
        .order_by(F("last_published_at").asc(nulls_first=True), "term", "pk")
    )
    checked = list(candidates.select_related("live_version__published_by")[: DASHBOARD_ROWS + 1])
    # The checks read the shown entries by id, not through the candidate filter
    # again (each of their queries would re-run it). With none shown, an id no
    # row has keeps their query count the same.
    ids = [entry.pk for entry in checked] or [0]
    # Without the transcript checks: they would read every transcript on each view. Nor
    # the comment threads: they never block, and only blocking failures are listed here.
    results = gates.run_gates_for(
        checked, Entry.objects.filter(pk__in=ids), now=now, transcripts=False, comments=False
    )
    return [
        GateFailures(entry, gates.blocking_failures(results[entry.pk]))
        for entry in checked
        if gates.blocking_failures(results[entry.pk])
    ]


def _claims_of_changed_sources(shows: set[int] | None) -> list[GateFailures]:
    """Published entries whose changed sources no longer say what their notes quote (a
    warning, not a block), A–Z, each with those warnings."""
    # Only the notes citing the first changed sources are compared, so the page
    # costs the same however many sources changed.
    changed_sources = Source.objects.filter(CHANGED_SINCE_CONFIRMED).order_by("pk")[
        : DASHBOARD_ROWS + 1
    ]
    claim_citations = (
        Citation.objects.filter(
            entry__in=_of_shows(Entry.objects.published(), shows), source__in=changed_sources
        )
        .exclude(note="")
        .select_related("source", "entry")
    )
    held: dict[int, GateFailures] = {}
    for warning in report.claim_warnings(claim_citations):
        entry = Entry(pk=warning.entry_id, term=warning.entry_term, slug=warning.entry_slug)
        row = held.setdefault(warning.entry_id, GateFailures(entry, []))
        row.failures.extend(gates.claim_checks([warning]))
    return sorted(held.values(), key=lambda row: (row.entry.term, row.entry.pk))


def _aging_entries(now: datetime.datetime, shows: set[int] | None) -> Rows:
    """Published entries not published again for DASHBOARD_AGING_DAYS, oldest first."""
    aging_cutoff = now - datetime.timedelta(days=settings.DASHBOARD_AGING_DAYS)
    return Rows.of(
        _of_shows(Entry.objects.published(), shows)
        .filter(Q(last_published_at__isnull=True) | Q(last_published_at__lt=aging_cutoff))
        .select_related("live_version__published_by")
        .order_by(F("last_published_at").asc(nulls_first=True), "term", "pk")
    )


def live_with_changes(shows: set[int] | None = None) -> list[Entry]:
    """Live entries (of `shows`, when given) whose working copy has changes readers do not
    see yet, A–Z.

    One query: each entry's live version and newest version's documents side by
    side; `changed_by` is who saved the newest version.
    """
    newest = EntryVersion.objects.filter(entry=OuterRef("pk")).order_by("-number")
    return list(
        _of_shows(
            Entry.objects.filter(live_version__isnull=False, has_unpublished_changes=True),
            shows,
        )
        .exclude(status=Entry.Status.ARCHIVED)
        .select_related("live_version")
        .annotate(
            working_data=Subquery(newest.values("data")[:1], output_field=JSONField()),
            working_number=Subquery(newest.values("number")[:1]),
            changed_by=Subquery(newest.values("created_by__username")[:1]),
        )
        .order_by("term")
    )


def check_dates_only_entries(candidates: list[Entry] | None = None) -> list[Entry]:
    """Live entries whose working copy differs from the live version only in check dates.

    Among `candidates` (by default `live_with_changes()`).
    """
    if candidates is None:
        candidates = live_with_changes()
    found = []
    for entry in candidates:
        live = entry.live_version
        working = getattr(entry, "working_data", None)
        if live is None or working is None or getattr(entry, "working_number", None) == live.number:
            continue
        if workflow.only_check_dates_differ(live.data, working):
            found.append(entry)
    return found


def week_ends(now: datetime.datetime, weeks: int = CHART_WEEKS) -> list[datetime.datetime]:
    """The ends of the last `weeks` weeks, oldest first; the last one is `now`."""
    return [now - datetime.timedelta(weeks=k) for k in range(weeks - 1, -1, -1)]


def health_history(now: datetime.datetime, weeks: int = CHART_WEEKS) -> list[dict[str, int]]:
    """Per week end, how many sources were in each health state at that moment.

    The state at a moment is the one the source's latest SourceHealthChange up to
    then moved it to (the link checker writes one with each check that changes a
    source's health); a source with no change yet is "unchecked", and a source
    added later is not counted. Three queries, whatever the length of the history.
    """
    ends = week_ends(now, weeks)
    changes = SourceHealthChange.objects.filter(at__lte=now)
    changed = changes.values("source_id")
    # A source whose health never changed is "unchecked" throughout: counted per
    # week in one aggregate, not read one by one.
    idle = Source.objects.filter(created_at__lte=now).exclude(pk__in=changed)
    idle_counts = idle.aggregate(
        **{f"w{w}": Count("pk", filter=Q(created_at__lte=end)) for w, end in enumerate(ends)}
    )
    state_at_first_week = Subquery(
        SourceHealthChange.objects.filter(source=OuterRef("pk"), at__lte=ends[0])
        .order_by("-at", "-pk")
        .values("to_health")[:1]
    )
    started = (
        Source.objects.filter(created_at__lte=now, pk__in=changed)
        .order_by()
        .annotate(state=state_at_first_week)
        .values_list("pk", "created_at", "state")
    )
    later = (
        changes.filter(at__gt=ends[0])
        .order_by("source_id", "at", "pk")
        .values_list("source_id", "at", "to_health")
    )
    counts: list[dict[str, int]] = [{state.value: 0 for state in HEALTH_ORDER} for _ in ends]
    for w in range(len(ends)):
        counts[w][Source.Health.UNCHECKED] += idle_counts[f"w{w}"] or 0
    by_source: dict[int, list[tuple[Any, ...]]] = {}
    for row in later:
        by_source.setdefault(row[0], []).append(row)
    for source_id, created_at, state in started:
        health = state or Source.Health.UNCHECKED
        history = by_source.get(source_id, [])
        i = 0
        for w, end in enumerate(ends):
            while i < len(history) and history[i][1] <= end:
                health = history[i][2]
                i += 1
            if created_at <= end:
                counts[w][health] += 1
    return counts


def health_chart(now: datetime.datetime) -> Chart:
    """A stacked bar chart of `health_history`, laid out for the SVG template."""
    ends = week_ends(now)
    counts = health_history(now)
    labels = dict(Source.Health.choices)
    chart = Chart(
        weeks=[newsroom.to_local(e).date() for e in ends],
        counts=counts,
        states=[(s.value, labels[s], HEALTH_COLOURS[s]) for s in HEALTH_ORDER],
    )
    chart.max_total = max((sum(c.values()) for c in counts), default=0)
    scale_max = max(chart.max_total, 1)
    plot_h = chart.plot_bottom - chart.plot_top
    left, slot = 50, (chart.width - 60) / len(ends)
    for w, (week, count) in enumerate(zip(chart.weeks, counts, strict=True)):
        x = left + w * slot + slot * 0.15
        y = float(chart.plot_bottom)
        segments = []
        for state in HEALTH_ORDER:
            n = count[state]
            if not n:
                continue
            h = plot_h * n / scale_max
            y -= h
            segments.append(
                {
                    "y": round(y, 1),
                    "height": round(h, 1),
                    "colour": HEALTH_COLOURS[state],
                    "label": f"{labels[state]}: {n}",
                }
            )
        chart.bars.append(
            {
                "x": round(x, 1),
                "width": round(slot * 0.7, 1),
                "label_x": round(x + slot * 0.35, 1),
                "week": week,
                "total": sum(count.values()),
                "segments": segments,
                "cells": [count[s] for s in HEALTH_ORDER],
            }
        )
    for fraction in (0, 0.5, 1):
        value = round(chart.max_total * fraction)
        chart.ticks.append({"value": value, "y": round(chart.plot_bottom - plot_h * fraction, 1)})
    return chart


def dashboard_view(request: HttpRequest) -> HttpResponse:
    """/admin/dashboard/: staff with permission to view entries."""
    if not can(request.user, Action.VIEW):
        raise PermissionDenied("You do not have permission to view entries.")
    context = {
        **site.each_context(request),
        "title": "Editors' dashboard",
        **build(shows=user_shows(request.user)),
        "can_schedule": can(request.user, Action.SCHEDULE),
    }
    return TemplateResponse(request, "admin/dashboard.html", context)
