"""Celery tasks: thin wrappers that take ids, call plain functions, own retries.

Beat runs two of them (config/settings.py, CELERY_BEAT_SCHEDULE):

- `check_due_sources` claims the due sources and enqueues batches of
  `check_sources` after the claim commits. Both are safe to run twice: a claim
  is a conditional UPDATE, and results are recorded only while the claim holds
  (editorial.linkcheck.service).
- `publish_due` carries out scheduled publications (editorial.scheduling.run_due),
  each row claimed with a conditional UPDATE, so two runs at once are safe.
- `refresh_feeds` re-imports the feed of every show with a feed URL, one
  `refresh_feed` task per show (editorial.podcast_feed_import); idempotent by guid.
- `archive_due` (with ARCHIVE_ON_CONFIRM) sends the queued Wayback Machine captures the
  limits allow and polls those under way (editorial.archive); each send and poll is
  claimed first, so two runs at once are safe.
- `prune_presence` removes the presence marks of entry pages closed without saying so
  (editorial.presence); a delete by age, safe to run twice.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from celery import Task, current_app, shared_task
from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from editorial import (
    archive,
    notify,
    podcast_feed_import,
    presence,
    quote_verification_runs,
    scheduling,
)
from editorial.linkcheck import service, state
from editorial.sourcetext import service as sourcetext

# A database hiccup is worth retrying; anything else is a bug and should surface.
RETRY_ON = (DatabaseError,)


@shared_task(
    acks_late=True, autoretry_for=RETRY_ON, retry_backoff=True, retry_backoff_max=600, max_retries=5
)
def check_due_sources() -> dict[str, int]:
    """Claim the sources due now and queue them in batches; prune old history.

    Claimed a part at a time (each part committed, then its batches queued), so
    workers start on the first batches while the rest is claimed.
    """
    now = timezone.now()
    claimed = 0
    for part in service.claim_parts(settings.LINKCHECK_MAX_PER_RUN):
        with transaction.atomic():
            claim = service.claim_due(now, part)
            for batch in service.batches(claim.source_ids):
                transaction.on_commit(partial(check_sources.delay, batch, claim.lease.isoformat()))
        claimed += len(claim.source_ids)
        if len(claim.source_ids) < part:
            break  # nothing more is due
    pruned = state.prune_history(now)
    texts_pruned = sourcetext.prune(now=now)
    return {"claimed": claimed, "pruned": pruned, "texts_pruned": texts_pruned}


@shared_task(
    acks_late=True, autoretry_for=RETRY_ON, retry_backoff=True, retry_backoff_max=600, max_retries=5
)
def check_sources(source_ids: list[int], lease: str) -> dict[str, int]:
    """Check the sources still claimed under `lease` and record the results."""
    claim = service.Claim(lease=datetime.fromisoformat(lease), source_ids=list(source_ids))
    counts: dict[str, int] = {}
    for results in service.iter_check_claimed(
        claim, keep_checker=True, store_text=sourcetext.record_page
    ):
        for result in results:
            counts[str(result.outcome)] = counts.get(str(result.outcome), 0) + 1
    return counts


class QueueUnavailable(Exception):
    """The broker does not answer, so nothing could be queued (and nothing was claimed)."""


def ensure_queue_answers() -> None:
    """Raise QueueUnavailable unless a task can be sent now (always true when eager)."""
    app = current_app
    if app.conf.task_always_eager:
        return
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:  # kombu raises a different error per transport
        raise QueueUnavailable(
            f"The task queue is not answering ({type(exc).__name__}); nothing was queued."
        ) from exc


def queue_check_now(source_ids: list[int]) -> int:
    """Claim sources regardless of schedule and queue their check after commit.

    Asks the broker first: with the queue down nothing is claimed, so the sources
    keep their schedule instead of waiting out a claim no task will ever use.
    """
    ensure_queue_answers()
    with transaction.atomic():
        claim = service.claim_sources(source_ids)
        for batch in service.batches(claim.source_ids):
            transaction.on_commit(partial(check_sources.delay, batch, claim.lease.isoformat()))
    return len(claim.source_ids)


@shared_task(
    acks_late=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=True,
    max_retries=3,
    # A run that waited in the queue past the next one adds nothing; drop it.
    expires=120,
)
def publish_due() -> dict[str, list[int]]:
    """Publish and unpublish what is due now, exactly once each."""
    return scheduling.run_due().as_dict()


@shared_task(acks_late=True, expires=600)
def refresh_feeds() -> int:
    """Queue a refresh of every show with a feed URL; shows without one are never fetched."""
    shows = podcast_feed_import.shows_to_refresh()
    for show_id in shows:
        refresh_feed.delay(show_id)
    return len(shows)


@shared_task(
    acks_late=True, autoretry_for=RETRY_ON, retry_backoff=True, retry_backoff_max=600, max_retries=3
)
def refresh_feed(show_id: int) -> str:
    """Import one show's feed as the system user; a bad feed is recorded on the show."""
    return podcast_feed_import.refresh_show(show_id)


@shared_task(
    name=archive.SWEEP_TASK,
    acks_late=True,
    autoretry_for=RETRY_ON,
    retry_backoff=True,
    max_retries=3,
    # Beat sends another every ARCHIVE_POLL_SECONDS: one that waited past it adds nothing.
    expires=300,
)
def archive_due() -> dict[str, int]:
    """Send queued captures and poll those under way (editorial.archive.run_due)."""
    return archive.run_due()


@shared_task(acks_late=True, autoretry_for=RETRY_ON, retry_backoff=True, max_retries=3)
def verify_all_quotes(run_id: int) -> dict[str, int]:
    """Check every quote against the transcripts, recording progress on the run."""
    return quote_verification_runs.run(run_id)


# Messages the mail server refused for a passing reason are tried again this many times,
# after 1, 2, 4, 8 and 10 minutes; beat's next runs go on trying them until
# editorial.notify.GIVE_UP_AFTER.
MAIL_RETRIES = 5
MAIL_RETRY_MAX_SECONDS = 600


def _retry_passing_failures(task: Task[..., Any], report: notify.DeliveryReport) -> None:
    """Ask Celery to run `task` again later when messages wait after a passing failure.

    Not when the task runs eagerly (no worker: inside a web request or a test), where a
    retry would run again at once and hold the request; the next run tries them.
    """
    if not report.retrying or task.request.is_eager or task.request.retries >= MAIL_RETRIES:
        return
    countdown = min(MAIL_RETRY_MAX_SECONDS, 60 * 2**task.request.retries)
    raise task.retry(countdown=countdown, max_retries=MAIL_RETRIES)


@shared_task(
    bind=True,
    acks_late=True,
    autoretry_for=RETRY_ON,
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=5,
)
def deliver_notifications(self: Task[..., Any], include_coalesced: bool = True) -> dict[str, int]:
    """Email waiting notifications, one email per person (editorial.notify.deliver).

    Each person's message goes on its own: a failure is recorded on its notifications
    and never stops the others; the task itself retries only passing failures.
    """
    report = notify.deliver(include_coalesced=include_coalesced)
    _retry_passing_failures(self, report)
    return report.as_dict()


@shared_task(
    bind=True,
    acks_late=True,
    autoretry_for=RETRY_ON,
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=5,
)
def send_daily_digests(self: Task[..., Any]) -> dict[str, int]:
    """Send the daily digests when it is the digest hour (editorial.notify.send_digests)."""
    report = notify.send_digests()
    _retry_passing_failures(self, report)
    return report.as_dict()


@shared_task(acks_late=True, expires=3600)
def prune_presence() -> int:
    """Remove presence marks of pages closed without saying so (editorial.presence.prune);
    idempotent, so a repeat after a lost acknowledgement removes nothing more."""
    return presence.prune()
