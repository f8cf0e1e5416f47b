"""Plain functions that select, claim, check and record sources.

Celery tasks (editorial.tasks) and the `checklinks` command are thin callers
of these. A source is *claimed* by moving its `next_check_at` to a lease time
with a conditional UPDATE; results are recorded only while the claim still
holds, so a task delivered twice (acks_late) records a check once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Count, F, Field, Q, QuerySet
from django.utils import timezone

from editorial.linkcheck.fetch import Checker, CheckResult, FetchOptions, check_urls
from editorial.linkcheck.state import STATE_FIELDS, Transition, apply_result, tell_editors
from glossary.models import Entry, LinkCheck, Source

log = logging.getLogger(__name__)

ProgressCallback = Callable[[CheckResult], None]

# Sources loaded, checked and recorded together: bounds memory for a big claim,
# and lets one chunk be recorded while the next is fetched.
CHUNK_SIZE = 1000


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


class BackgroundChecker:
    """A Checker on an event loop in its own thread, fed from this (database) thread.

    Checking is network-bound and recording is database-bound; with the loop in
    a background thread the caller's thread records one chunk while the next
    chunk's requests are in flight, on the caller's own database connection
    (so transactions and test databases behave as usual). Progress callbacks
    run in the loop's thread.
    """

    def __init__(self, options: FetchOptions) -> None:
        self.options = options
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="linkcheck-loop", daemon=True
        )
        self._checker = Checker(options)

    def _call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def __enter__(self) -> BackgroundChecker:
        self._thread.start()
        self._call(self._checker.__aenter__())
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self._call(self._checker.__aexit__(*exc_info))
            self._call(self._loop.shutdown_asyncgens())
            self._call(self._loop.shutdown_default_executor())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def submit(
        self, urls: Sequence[str], progress: ProgressCallback | None = None
    ) -> concurrent.futures.Future[list[CheckResult]]:
        """Start checking `urls`; the future gives their results in order."""
        return asyncio.run_coroutine_threadsafe(
            self._checker.check_many(urls, progress), self._loop
        )


def check_claimed(
    claim: Claim,
    options: FetchOptions | None = None,
    progress: ProgressCallback | None = None,
    *,
    keep: bool = True,
) -> list[tuple[Source, CheckResult]]:
    """Check the sources of `claim` still held by it, and record the results.

    Sources go through in chunks of CHUNK_SIZE: while one chunk is recorded the
    next is being fetched. Returns the (source, result) pairs, or with
    `keep=False` an empty list, so a large claim's memory stays bounded.
    """
    pairs: list[tuple[Source, CheckResult]] = []
    for chunk in iter_check_claimed(claim, options, progress):
        if keep:
            pairs.extend(chunk)
    return pairs


def iter_check_claimed(
    claim: Claim,
    options: FetchOptions | None = None,
    progress: ProgressCallback | None = None,
) -> Iterator[list[tuple[Source, CheckResult]]]:
    """check_claimed, yielding each chunk's (source, result) pairs once it is recorded."""
    chunks = batches(claim.source_ids, CHUNK_SIZE)
    if not chunks:
        return
    options = options or FetchOptions.from_settings()

    with BackgroundChecker(options) as checker:

        def start(
            ids: list[int],
        ) -> tuple[list[Source], concurrent.futures.Future[list[CheckResult]] | None]:
            sources = list(Source.objects.filter(pk__in=ids, next_check_at=claim.lease))
            if not sources:
                return sources, None
            return sources, checker.submit([s.url for s in sources], progress)

        pending = start(chunks[0])
        for index in range(len(chunks)):
            sources, future = pending
            if index + 1 < len(chunks):
                # Queue the next chunk now, so the pool never idles while this one records.
                pending = start(chunks[index + 1])
            if future is None:
                continue
            by_url = {r.url: r for r in future.result()}
            chunk_pairs = [(s, by_url[s.url]) for s in sources]
            record(chunk_pairs, claim.lease)
            yield chunk_pairs


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
            checks: list[list[Any]] = []
            for source, result in chunk:
                if source.pk not in still_held:
                    continue
                transition = apply_result(
                    source, result, now, archived_only=source.pk in archived, rng=rng
                )
                to_save.append(source)
                checks.append(_check_values(result, source.pk, now))
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


def _insert_checks(rows: Sequence[Sequence[Any]]) -> None:
    """INSERT LinkCheck rows (values in _CHECK_FIELDS order) with one executemany.

    See _save_state for why not bulk_create; no LinkCheck instances are built.
    """
    if not rows:
        return
    ops = connection.ops
    fields = [LinkCheck._meta.get_field(name) for name in _CHECK_FIELDS]
    preps = [_prepper(f) for f in fields]
    columns = ", ".join(ops.quote_name(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    table = ops.quote_name(LinkCheck._meta.db_table)
    sql = f"INSERT INTO {table} ({columns}) VALUES ({marks})"  # noqa: S608 - our own columns
    _executemany(sql, [[prep(v) for prep, v in zip(preps, row, strict=True)] for row in rows])


def _check_values(result: CheckResult, source_id: int | None, now: datetime) -> list[Any]:
    """A LinkCheck row's values, in _CHECK_FIELDS order."""
    return [
        source_id,
        result.url[:2000],
        now,
        str(result.outcome),
        result.status_code,
        result.final_url[:2000],
        result.redirects,
        result.elapsed_ms,
        result.error,
        result.fingerprint,
    ]


def link_check_row(result: CheckResult, source: Source | None, now: datetime) -> LinkCheck:
    """The LinkCheck a result is recorded as (an unsaved instance)."""
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
    _insert_checks([_check_values(r, known.get(r.url), now) for r in results])


def batches(ids: Sequence[int], size: int | None = None) -> list[list[int]]:
    size = size or settings.LINKCHECK_BATCH_SIZE
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]
