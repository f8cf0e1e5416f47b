"""Plain functions that select, claim, check and record sources.

Celery tasks (editorial.tasks) and the `checklinks` command are thin callers
of these. A source is *claimed* by moving its `next_check_at` to a lease time
with a conditional UPDATE; results are recorded only while the claim still
holds, so a task delivered twice (acks_late) records a check once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Count, F, Field, Q, QuerySet
from django.utils import timezone

from editorial.linkcheck.fetch import CheckResult, FetchOptions, check_urls
from editorial.linkcheck.state import STATE_FIELDS, Transition, apply_result, tell_editors
from glossary.models import Entry, LinkCheck, Source

log = logging.getLogger(__name__)

ProgressCallback = Callable[[CheckResult], None]


@dataclass(frozen=True)
class Claim:
    """Sources reserved for one check run until `lease` (their next_check_at)."""

    lease: datetime
    source_ids: list[int]


def due_sources(now: datetime) -> QuerySet[Source]:
    """Sources whose next check is due, never-checked ones first."""
    return Source.objects.filter(
        Q(next_check_at__isnull=True) | Q(next_check_at__lte=now)
    ).order_by(F("last_checked_at").asc(nulls_first=True), "next_check_at", "pk")


def _lease(now: datetime) -> datetime:
    return now + timedelta(seconds=settings.LINKCHECK_CLAIM_SECONDS)


def claim_due(now: datetime | None = None, limit: int | None = None) -> Claim:
    """Claim up to `limit` due sources; a concurrent claimer gets different ones."""
    now = now or timezone.now()
    limit = limit or settings.LINKCHECK_MAX_PER_RUN
    lease = _lease(now)
    with transaction.atomic():
        candidates = list(
            due_sources(now)
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)[:limit]
        )
        # The WHERE repeats the due condition: only rows still due are claimed.
        Source.objects.filter(pk__in=candidates).filter(
            Q(next_check_at__isnull=True) | Q(next_check_at__lte=now)
        ).update(next_check_at=lease)
        claimed = list(
            Source.objects.filter(pk__in=candidates, next_check_at=lease).values_list(
                "pk", flat=True
            )
        )
    return Claim(lease=lease, source_ids=sorted(claimed))


def claim_sources(source_ids: Iterable[int], now: datetime | None = None) -> Claim:
    """Claim the given sources whether or not they are due ("check now")."""
    now = now or timezone.now()
    lease = _lease(now)
    ids = list(source_ids)
    with transaction.atomic():
        Source.objects.filter(pk__in=ids).update(next_check_at=lease)
        claimed = list(
            Source.objects.filter(pk__in=ids, next_check_at=lease).values_list("pk", flat=True)
        )
    return Claim(lease=lease, source_ids=sorted(claimed))


def archived_only_ids(source_ids: Sequence[int]) -> set[int]:
    """Sources cited, but only by archived entries: they are re-checked less often."""
    rows = (
        Source.objects.filter(pk__in=source_ids)
        .annotate(
            citing=Count("citations"),
            current=Count("citations", filter=~Q(citations__entry__status=Entry.Status.ARCHIVED)),
        )
        .filter(citing__gt=0, current=0)
        .values_list("pk", flat=True)
    )
    return set(rows)


def run_checks(
    urls: Iterable[str],
    options: FetchOptions | None = None,
    progress: ProgressCallback | None = None,
) -> list[CheckResult]:
    """Check URLs (each once) in the foreground with a fresh session."""
    return asyncio.run(check_urls(urls, options, progress))


def check_claimed(
    claim: Claim,
    options: FetchOptions | None = None,
    progress: ProgressCallback | None = None,
) -> list[tuple[Source, CheckResult]]:
    """Check the sources of `claim` still held by it, and record the results."""
    sources = list(Source.objects.filter(pk__in=claim.source_ids, next_check_at=claim.lease))
    if not sources:
        return []
    results = run_checks([s.url for s in sources], options, progress)
    by_url = {r.url: r for r in results}
    pairs = [(s, by_url[s.url]) for s in sources]
    record(pairs, claim.lease)
    return pairs


def record(
    pairs: Sequence[tuple[Source, CheckResult]],
    lease: datetime | None,
    now: datetime | None = None,
    rng: random.Random | None = None,
) -> list[tuple[Source, Transition]]:
    """Write a LinkCheck per result and fold it into its source's state.

    With a lease, only sources still claimed by it are written (checked again
    under a row lock), so a redelivered task never records a check twice.
    """
    now = now or timezone.now()
    rng = rng or random.Random()  # noqa: S311 - scheduling jitter
    archived = archived_only_ids([s.pk for s, _ in pairs])
    told: list[tuple[Source, Transition]] = []
    for start in range(0, len(pairs), 500):
        chunk = pairs[start : start + 500]
        with transaction.atomic():
            ids = [s.pk for s, _ in chunk]
            held = Source.objects.filter(pk__in=ids)
            if lease is not None:
                held = held.filter(next_check_at=lease)
            still_held = set(held.select_for_update().values_list("pk", flat=True))
            to_save: list[Source] = []
            checks: list[LinkCheck] = []
            for source, result in chunk:
                if source.pk not in still_held:
                    continue
                transition = apply_result(
                    source, result, now, archived_only=source.pk in archived, rng=rng
                )
                to_save.append(source)
                checks.append(link_check_row(result, source, now))
                if transition.worth_telling:
                    told.append((source, transition))
            _save_state(to_save)
            _insert_checks(checks)
    for source, transition in told:
        transaction.on_commit(lambda s=source, t=transition: tell_editors(s, t))
    return told


def _prepper(field: Field[Any, Any]) -> Callable[[Any], Any]:
    """A fast value adapter for raw executemany (Field.get_db_prep_save costs ~10 µs a value).

    Only the field types the checker writes get a shortcut; anything else falls
    back to Django's own preparation.
    """
    if isinstance(field, models.DateTimeField):
        if connection.vendor == "sqlite":
            # Exactly what Django's SQLite backend stores: naive UTC via str().
            return lambda v: None if v is None else str(v.astimezone(UTC).replace(tzinfo=None))
        if connection.vendor == "postgresql":
            return lambda v: v
    if isinstance(field, models.JSONField):
        return lambda v: json.dumps(v)
    if isinstance(field, models.CharField | models.TextField | models.IntegerField):
        return lambda v: v
    if isinstance(field, models.ForeignKey):
        return lambda v: v
    return lambda v: field.get_db_prep_save(v, connection)


def _executemany(sql: str, rows: list[list[Any]]) -> None:
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def _save_state(sources: Sequence[Source]) -> None:
    """UPDATE the state columns of `sources` with one executemany.

    bulk_update builds a CASE expression per field and row in Python, which
    cost more CPU than the HTTP checks themselves at a few thousand sources.
    """
    if not sources:
        return
    ops = connection.ops
    fields = [Source._meta.get_field(name) for name in STATE_FIELDS]
    preps = [(f.attname, _prepper(f)) for f in fields]
    assignments = ", ".join(f"{ops.quote_name(f.column)} = %s" for f in fields)
    table = ops.quote_name(Source._meta.db_table)
    sql = f"UPDATE {table} SET {assignments} WHERE id = %s"  # noqa: S608 - our own columns
    _executemany(sql, [[prep(getattr(s, name)) for name, prep in preps] + [s.pk] for s in sources])


_CHECK_FIELDS = (
    "source",
    "url",
    "checked_at",
    "outcome",
    "status_code",
    "final_url",
    "redirects",
    "elapsed_ms",
    "error",
    "fingerprint",
)


def _insert_checks(checks: Sequence[LinkCheck]) -> None:
    """INSERT LinkCheck rows with one executemany (see _save_state for why)."""
    if not checks:
        return
    ops = connection.ops
    fields = [LinkCheck._meta.get_field(name) for name in _CHECK_FIELDS]
    preps = [(f.attname, _prepper(f)) for f in fields]
    columns = ", ".join(ops.quote_name(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    table = ops.quote_name(LinkCheck._meta.db_table)
    sql = f"INSERT INTO {table} ({columns}) VALUES ({marks})"  # noqa: S608 - our own columns
    _executemany(sql, [[prep(getattr(c, name)) for name, prep in preps] for c in checks])


def link_check_row(result: CheckResult, source: Source | None, now: datetime) -> LinkCheck:
    return LinkCheck(
        source=source,
        url=result.url[:2000],
        checked_at=now,
        outcome=str(result.outcome),
        status_code=result.status_code,
        final_url=result.final_url[:2000],
        redirects=result.redirects,
        elapsed_ms=result.elapsed_ms,
        error=result.error,
        fingerprint=result.fingerprint,
    )


def record_urls(results: Sequence[CheckResult], now: datetime | None = None) -> None:
    """Record ad hoc URL checks (no source state changes), linking known sources."""
    now = now or timezone.now()
    known = dict(Source.objects.filter(url__in=[r.url for r in results]).values_list("url", "pk"))
    rows = []
    for result in results:
        row = link_check_row(result, None, now)
        row.source_id = known.get(result.url)
        rows.append(row)
    _insert_checks(rows)


def batches(ids: Sequence[int], size: int | None = None) -> list[list[int]]:
    size = size or settings.LINKCHECK_BATCH_SIZE
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]
