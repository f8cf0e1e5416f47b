"""Fill SourceHealthChange from the LinkCheck history that is kept.

Each source's checks (LINKCHECK_RETENTION_DAYS of them; older ones were pruned)
are replayed from "unchecked" with the health rules of editorial.linkcheck.state
as they stand at this migration, written out here rather than imported so that
later changes to the checker cannot change what this migration wrote. That is
what the dashboard's chart did on every view before the changes were rows. A
source whose history was pruned starts from "unchecked" at its oldest kept check,
as the chart's replay did.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import migrations

FAILING_OUTCOMES = {"broken", "transient", "empty"}
BATCH = 5000


def next_health(
    health: str, outcome: str, at: Any, streak: int, last_counted: Any
) -> tuple[str, int, Any]:
    """The health after one check, with the failure streak and its last counted failure."""
    spacing = timedelta(days=settings.LINKCHECK_FAILURE_SPACING_DAYS)
    if outcome in ("ok", "moved"):
        return outcome, 0, None
    if outcome in FAILING_OUTCOMES:
        if last_counted is None or at - last_counted >= spacing:
            streak, last_counted = streak + 1, at
        if streak >= settings.LINKCHECK_BROKEN_AFTER:
            health = "empty" if outcome == "empty" else "broken"
        elif health not in ("broken", "empty"):
            health = "failing"
        return health, streak, last_counted
    if outcome in ("blocked", "refused"):
        return "blocked", streak, last_counted
    if outcome == "tls_error" and health in ("ok", "unchecked", "moved"):
        return "failing", streak, last_counted
    return health, streak, last_counted  # rate limited, or an outcome this version never wrote


def fill(apps: Any, schema_editor: Any) -> None:
    LinkCheck = apps.get_model("glossary", "LinkCheck")
    SourceHealthChange = apps.get_model("editorial", "SourceHealthChange")
    checks = (
        LinkCheck.objects.filter(source__isnull=False)
        .order_by("source_id", "checked_at", "pk")
        .values_list("source_id", "url", "checked_at", "outcome", "status_code", "error")
    )
    pending: list[Any] = []
    source_id = None
    health, streak, last_counted = "unchecked", 0, None
    for sid, url, at, outcome, status_code, error in checks.iterator(chunk_size=BATCH):
        if sid != source_id:
            source_id, health, streak, last_counted = sid, "unchecked", 0, None
        before = health
        health, streak, last_counted = next_health(health, outcome, at, streak, last_counted)
        if health != before:
            pending.append(
                SourceHealthChange(
                    source_id=sid,
                    url=url,
                    at=at,
                    from_health=before,
                    to_health=health,
                    outcome=outcome,
                    status_code=status_code,
                    error=error,
                )
            )
        if len(pending) >= BATCH:
            SourceHealthChange.objects.bulk_create(pending)
            pending = []
    SourceHealthChange.objects.bulk_create(pending)


class Migration(migrations.Migration):
    dependencies = [
        ("editorial", "0024_source_health_changes"),
    ]

    operations = [
        # Reversing drops nothing here: 0024's reverse drops the table.
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
