"""Plain functions that select, claim, check and record sources.

Celery tasks (editorial.tasks) and the `checklinks` command are thin callers
of these. A source is *claimed* by moving its `next_check_at` to a lease time
with a conditional UPDATE; results are recorded only while the claim still
holds, so a task delivered twice (acks_late) records a check once.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import random
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from operator import attrgetter
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q, QuerySet
from django.dispatch import Signal
from django.utils import timezone

from editorial.linkcheck.bulk_sql import (
    check_values,
    health_change_values,
    ids_in,
    insert_checks,
    insert_health_changes,
    save_state,
)
from editorial.linkcheck.fetch import (
    Checker,
    CheckResult,
    FetchOptions,
    check_urls,
    new_event_loop,
    run,
)
from editorial.linkcheck.state import (
    ALWAYS_WRITTEN,
    COMPARED_FIELDS,
    SourceRow,
    Transition,
    apply_result,
    tell_editors,
)
from glossary.models import Citation, Entry, Source

log = logging.getLogger(__name__)

# Sent once per recorded batch of checks, after it commits, with `changes`: the
# (Source, Transition) pairs worth telling. editorial.notify listens (connected in
# editorial.apps), so the link checker never imports the people it tells.
sources_changed = Signal()

ProgressCallback = Callable[[CheckResult], None]
# Keeps the words of a page that changed since it was confirmed: (source id, body,
# Content-Type, fingerprint, when), called inside the recording transaction.
# editorial.sourcetext.service.record_page is the one the tasks and `checklinks` pass.
TextSink = Callable[[int, str, str, str, datetime], object]

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
    if connection.vendor == "postgresql":
        return Claim(lease=lease, source_ids=sorted(_claim_due_returning(now, lease, limit)))
    with transaction.atomic():
        candidates = list(
            due_sources(now)
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)[:limit]
        )
        # The WHERE repeats the due condition: only rows still due are claimed.
        Source.objects.filter(ids_in(Source, "id", candidates)).filter(
            Q(next_check_at__isnull=True) | Q(next_check_at__lte=now)
        ).update(next_check_at=lease)
        claimed = list(
            Source.objects.filter(
                ids_in(Source, "id", candidates), next_check_at=lease
            ).values_list("pk", flat=True)
        )
    return Claim(lease=lease, source_ids=sorted(claimed))


def _claim_due_returning(now: datetime, lease: datetime, limit: int) -> list[int]:
    """claim_due in one statement: UPDATE ... WHERE id IN (due, locked, skipping locked
    rows) RETURNING id. The three-statement form sent 100,000 ids to the database
    twice at the largest claims and took seconds."""
    due = due_sources(now).select_for_update(skip_locked=True).values("pk")[:limit]
    select, params = due.query.sql_with_params()
    ops = connection.ops
    table, column = ops.quote_name(Source._meta.db_table), ops.quote_name("next_check_at")
    sql = (
        f"UPDATE {table} SET {column} = %s WHERE id IN ({select}) "  # noqa: S608 - ORM-built
        f"AND ({column} IS NULL OR {column} <= %s) RETURNING id"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [lease, *params, now])
        return [row[0] for row in cursor.fetchall()]


# Batches claimed together by check_due_sources before their tasks are queued.
CLAIM_PART_BATCHES = 10


def claim_parts(total: int) -> Iterator[int]:
    """Sizes of the successive claims that make up a claim of `total` sources.

    The first part is one batch, so the first task is queued after the shortest
    claim (ten batches took ~0.4 s of a 100,000-source run before any check
    began); then CLAIM_PART_BATCHES batches at a time.
    """
    batch = settings.LINKCHECK_BATCH_SIZE
    start, part = 0, batch
    while start < total:
        yield min(part, total - start)
        start += part
        part = CLAIM_PART_BATCHES * batch


def claim_sources(source_ids: Iterable[int], now: datetime | None = None) -> Claim:
    """Claim the given sources whether or not they are due ("check now")."""
    now = now or timezone.now()
    lease = _lease(now)
    ids = list(source_ids)
    with transaction.atomic():
        Source.objects.filter(ids_in(Source, "id", ids)).update(next_check_at=lease)
        claimed = list(
            Source.objects.filter(ids_in(Source, "id", ids), next_check_at=lease).values_list(
                "pk", flat=True
            )
        )
    return Claim(lease=lease, source_ids=sorted(claimed))


def archived_only_ids(source_ids: Sequence[int]) -> set[int]:
    """Sources cited, but only by archived entries: they are re-checked less often."""
    cited: set[int] = set()
    current: set[int] = set()
    # One plain join, grouped here: a COUNT(...) FILTER annotation over a thousand
    # ids cost as much as writing the checks.
    rows = (
        Citation.objects.filter(ids_in(Citation, "source_id", source_ids))
        .order_by()
        .values_list("source_id", "entry__status")
    )
    for source_id, status in rows:
        cited.add(source_id)
        if status != Entry.Status.ARCHIVED:
            current.add(source_id)
    return cited - current


def run_checks(
    urls: Iterable[str],
    options: FetchOptions | None = None,
    progress: ProgressCallback | None = None,
) -> list[CheckResult]:
    """Check URLs (each once) in the foreground with a fresh session."""
    return run(check_urls(urls, options, progress))


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
        self._loop = new_event_loop()
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
        self,
        urls: Sequence[str],
        progress: ProgressCallback | None = None,
        text_unless: Mapping[str, Collection[str]] | None = None,
    ) -> concurrent.futures.Future[list[CheckResult]]:
        """Start checking `urls`; the future gives their results in order."""
        return asyncio.run_coroutine_threadsafe(
            self._checker.check_many(urls, progress, text_unless), self._loop
        )


_kept: dict[FetchOptions, BackgroundChecker] = {}
_kept_lock = threading.Lock()


def kept_checker(options: FetchOptions) -> BackgroundChecker:
    """A BackgroundChecker that lives as long as this process, one per set of options.

    A worker checks batch after batch; with a checker (and so a connection
    pool) per batch, every request to a host opened a new connection, which
    cost CPU on both ends and delayed the request after its politeness slot.
    Kept, the connections are reused from one batch to the next. Closed at exit.
    """
    with _kept_lock:
        checker = _kept.get(options)
        if checker is None:
            checker = _kept[options] = BackgroundChecker(options)
            checker.__enter__()
            if len(_kept) == 1:
                atexit.register(close_kept_checkers)
        return checker


def close_kept_checkers() -> None:
    with _kept_lock:
        checkers = list(_kept.values())
        _kept.clear()
    for checker in checkers:
        checker.__exit__(None, None, None)


def check_claimed(
    claim: Claim,
    options: FetchOptions | None = None,
    progress: ProgressCallback | None = None,
    *,
    keep: bool = True,
    keep_checker: bool = False,
    store_text: TextSink | None = None,
) -> list[CheckResult]:
    """Check the sources of `claim` still held by it, and record the results.

    Sources go through in chunks of CHUNK_SIZE: while one chunk is recorded the
    next is being fetched. Returns the results, or with `keep=False` an empty
    list, so a large claim's memory stays bounded. With `store_text`, the body of
    each page whose words changed since confirmed goes to it (see `record`).
    """
    results: list[CheckResult] = []
    for chunk in iter_check_claimed(
        claim, options, progress, keep_checker=keep_checker, store_text=store_text
    ):
        if keep:
            results.extend(chunk)
    return results


def iter_check_claimed(
    claim: Claim,
    options: FetchOptions | None = None,
    progress: ProgressCallback | None = None,
    *,
    keep_checker: bool = False,
    store_text: TextSink | None = None,
) -> Iterator[list[CheckResult]]:
    """check_claimed, yielding each chunk's results once they are recorded.

    With `keep_checker` (a worker's tasks) the checks go through `kept_checker`,
    whose connections outlive this call.
    """
    chunks = batches(claim.source_ids, CHUNK_SIZE)
    if not chunks:
        return
    options = options or FetchOptions.from_settings()

    context: contextlib.AbstractContextManager[BackgroundChecker] = (
        contextlib.nullcontext(kept_checker(options))
        if keep_checker
        else BackgroundChecker(options)
    )
    with context as checker:

        def start(
            ids: list[int],
        ) -> tuple[list[SourceRow], concurrent.futures.Future[list[CheckResult]] | None]:
            rows = [
                SourceRow(values)
                for values in Source.objects.filter(
                    ids_in(Source, "id", ids), next_check_at=claim.lease
                )
                .order_by()  # not the model's by-title ordering: a sort for nothing
                .values_list(*SourceRow.LOAD_FIELDS)
            ]
            if not rows:
                return rows, None
            wanted = texts_wanted(rows) if store_text is not None else None
            return rows, checker.submit([r.url for r in rows], progress, wanted)

        pending = start(chunks[0])
        for index in range(len(chunks)):
            rows, future = pending
            if index + 1 < len(chunks):
                # Queue the next chunk now, so the pool never idles while this one records.
                pending = start(chunks[index + 1])
            if future is None:
                continue
            results = future.result()
            by_url = {r.url: r for r in results}
            record([(row, by_url[row.url]) for row in rows], claim.lease, store_text=store_text)
            yield results


def texts_wanted(rows: Iterable[Source | SourceRow]) -> dict[str, frozenset[str]]:
    """Which pages' body a check should keep: confirmed sources, unless the words are known.

    A confirmed source's page is read when its fingerprint is neither the
    confirmed one nor the last one seen (whose text an earlier check stored), so
    a page that stays changed is read once, not at every check, and an unchanged
    page never: a check costs a fingerprint, not a read of the page.
    """
    return {
        row.url: frozenset({row.confirmed_fingerprint, row.last_fingerprint} - {""})
        for row in rows
        if row.confirmed_fingerprint
    }


def record(
    pairs: Sequence[tuple[Source | SourceRow, CheckResult]],
    lease: datetime | None,
    now: datetime | None = None,
    rng: random.Random | None = None,
    store_text: TextSink | None = None,
) -> list[tuple[Source, Transition]]:
    """Write a LinkCheck per result, fold it into its source's state, and write a
    SourceHealthChange for each source whose health it changed (same transaction).

    With a lease, only sources still claimed by it are written (checked again
    under a row lock), so a redelivered task never records a check twice.
    Editors are told (after commit) about the returned transitions, with the
    saved Source.
    """
    now = now or timezone.now()
    rng = rng or random.Random()  # noqa: S311 - scheduling jitter
    archived = archived_only_ids([s.pk for s, _ in pairs])
    compared = attrgetter(*COMPARED_FIELDS)
    told_rows: list[tuple[Source | SourceRow, Transition]] = []
    for start in range(0, len(pairs), 500):
        chunk = pairs[start : start + 500]
        with transaction.atomic():
            ids = [s.pk for s, _ in chunk]
            held = Source.objects.filter(ids_in(Source, "id", ids))
            if lease is not None:
                held = held.filter(next_check_at=lease)
            still_held = set(held.order_by().select_for_update().values_list("pk", flat=True))
            # Sources grouped by the columns their check changed: one UPDATE per group.
            to_save: dict[tuple[str, ...], list[Source | SourceRow]] = {}
            checks: list[list[Any]] = []
            health_changes: list[list[Any]] = []
            texts: list[tuple[int, CheckResult]] = []
            for source, result in chunk:
                if source.pk not in still_held:
                    continue
                before = compared(source)
                transition = apply_result(
                    source, result, now, archived_only=source.pk in archived, rng=rng
                )
                after = compared(source)
                changed = tuple(
                    n for n, b, a in zip(COMPARED_FIELDS, before, after, strict=True) if b != a
                )
                to_save.setdefault(changed, []).append(source)
                checks.append(check_values(result, source.pk, now))
                if transition.health_changed:
                    health_changes.append(health_change_values(result, source.pk, transition, now))
                if result.body and store_text is not None:
                    texts.append((source.pk, result))
                if transition.worth_telling:
                    told_rows.append((source, transition))
            for changed, sources in to_save.items():
                save_state(sources, (*ALWAYS_WRITTEN, *changed))
            insert_checks(checks)
            insert_health_changes(health_changes)
            # Only pages whose words changed since confirmed carry a text: usually none.
            for source_id, result in texts:
                assert store_text is not None  # noqa: S101 - texts is filled only then
                store_text(source_id, result.body, result.content_type, result.fingerprint, now)
                result.body = ""  # stored: callers that keep results need not hold the page
    # Receivers get real Source instances: load the (few) that changed.
    loaded = Source.objects.in_bulk([s.pk for s, _ in told_rows if not isinstance(s, Source)])
    told = [(s if isinstance(s, Source) else loaded[s.pk], t) for s, t in told_rows]
    for source, transition in told:
        transaction.on_commit(partial(tell_editors, source, transition))
    if told:
        transaction.on_commit(partial(sources_changed.send, sender=Source, changes=told))
    return told


def record_urls(results: Sequence[CheckResult], now: datetime | None = None) -> None:
    """Record ad hoc URL checks (no source state changes), linking known sources."""
    now = now or timezone.now()
    known = dict(Source.objects.filter(url__in=[r.url for r in results]).values_list("url", "pk"))
    insert_checks([check_values(r, known.get(r.url), now) for r in results])


def batches(ids: Sequence[int], size: int | None = None) -> list[list[int]]:
    size = size or settings.LINKCHECK_BATCH_SIZE
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]
