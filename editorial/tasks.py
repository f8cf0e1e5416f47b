"""Celery tasks: thin wrappers that take ids, call plain functions, own retries.

`check_due_sources` runs on beat: it claims the due sources and enqueues
batches of `check_sources` after the claim commits. Both are safe to run
twice: a claim is a conditional UPDATE, and results are recorded only while
the claim holds (see editorial.linkcheck.service).
"""

from __future__ import annotations

from datetime import datetime
from functools import partial

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from editorial.linkcheck import service, state

# A database hiccup is worth retrying; anything else is a bug and should surface.
_RETRY = {
    "autoretry_for": (DatabaseError,),
    "retry_backoff": True,
    "retry_backoff_max": 600,
    "max_retries": 5,
}


@shared_task(acks_late=True, **_RETRY)
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
    return {"claimed": claimed, "pruned": pruned}


@shared_task(acks_late=True, **_RETRY)
def check_sources(source_ids: list[int], lease: str) -> dict[str, int]:
    """Check the sources still claimed under `lease` and record the results."""
    claim = service.Claim(lease=datetime.fromisoformat(lease), source_ids=list(source_ids))
    counts: dict[str, int] = {}
    for results in service.iter_check_claimed(claim, keep_checker=True):
        for result in results:
            counts[str(result.outcome)] = counts.get(str(result.outcome), 0) + 1
    return counts


def queue_check_now(source_ids: list[int]) -> int:
    """Claim sources regardless of schedule and queue their check after commit."""
    with transaction.atomic():
        claim = service.claim_sources(source_ids)
        for batch in service.batches(claim.source_ids):
            transaction.on_commit(partial(check_sources.delay, batch, claim.lease.isoformat()))
    return len(claim.source_ids)
