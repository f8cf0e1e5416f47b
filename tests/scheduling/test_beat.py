"""Real Celery beat and a worker, on Redis, publish a scheduled entry when it is due."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from django.contrib.auth.models import User
from django.utils import timezone

from editorial import scheduling
from editorial.models import ScheduledAction, SchedulerHeartbeat, WorkflowEvent
from glossary.models import Entry, Source
from tests.linkcheck.test_worker import Processes, wait_for
from tests.redis_server import shared_redis_url

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# This worker's database on the shared Redis (flushed freely): tests.redis_server.
REDIS_URL = shared_redis_url()


@pytest.fixture
def celery(tmp_path: Path, transactional_db: None) -> Iterator[Processes]:
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    procs = Processes(tmp_path)
    procs.env.update(
        {
            "REDIS_URL": REDIS_URL,
            "CELERY_BROKER_URL": REDIS_URL,
            "SCHEDULER_INTERVAL_SECONDS": "1",
            # The link checker's beat entry stays quiet: nothing here is checked.
            "LINKCHECK_SCHEDULE_SECONDS": "3600",
        }
    )
    yield procs
    procs.stop_all()
    client.flushdb()


def test_beat_publishes_a_scheduled_entry_once_when_it_is_due(
    celery: Processes, entry_in_review: Callable[..., Entry], editor: User
) -> None:
    entry = entry_in_review()
    # No source is due for a link check, so no process here fetches anything.
    Source.objects.update(next_check_at=timezone.now() + datetime.timedelta(days=365))
    due = timezone.now() + datetime.timedelta(seconds=3)
    row = scheduling.schedule(entry, action="publish", due_at=due, user=editor)
    celery.worker()
    celery.beat()
    try:
        wait_for(
            lambda: ScheduledAction.objects.get(pk=row.pk).state != "pending",
            60,
            "beat to carry out the scheduled publish",
        )
        # Beat keeps firing every second; later runs find nothing to do.
        first = wait_for(
            lambda: SchedulerHeartbeat.objects.values_list("last_run_at", flat=True).first(),
            30,
            "the run's heartbeat",
        )
        wait_for(
            lambda: (
                SchedulerHeartbeat.objects.get().last_run_at > first + datetime.timedelta(seconds=1)
            ),
            30,
            "two more scheduler runs",
        )
    except AssertionError:
        print(celery.logs())
        raise
    row.refresh_from_db()
    assert row.state == ScheduledAction.State.DONE, row.result
    assert row.finished_at is not None and row.finished_at >= due
    entry.refresh_from_db()
    assert entry.is_live
    assert entry.live_version.published_by == editor
    assert WorkflowEvent.objects.filter(entry=entry, action="publish").count() == 1
