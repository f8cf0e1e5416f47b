"""The beat task for scheduled publishing: a thin wrapper over editorial.scheduling.run_due.

Beat enqueues it every minute (settings.CELERY_BEAT_SCHEDULE). Running it twice
at once is safe: each row is claimed with a conditional UPDATE.
"""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError

from editorial import scheduling


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
