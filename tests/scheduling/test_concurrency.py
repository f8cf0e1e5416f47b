"""Two schedulers at once publish a due entry exactly once (PostgreSQL row locks).

SQLite locks the whole database, so these run on PostgreSQL, where two runners
really do overlap: the test holds the first runner inside its transaction until
PostgreSQL reports the second one waiting on the row lock, then lets it finish.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.models.signals import post_save

from editorial import scheduling
from editorial.models import ScheduledAction, WorkflowEvent
from glossary.models import Entry
from tests.concurrency import backends_waiting_on_a_lock, in_thread, poll

from .conftest import BEFORE, DUE_UTC

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locking"),
]


def _blocked_backends() -> int:
    return backends_waiting_on_a_lock("%editorial_scheduledaction%")


def test_a_second_runner_waits_on_the_row_and_then_skips_it(
    entry_in_review: Callable[..., Entry], editor: User
) -> None:
    row = scheduling.schedule(
        entry_in_review(), action="publish", due_at=DUE_UTC, user=editor, now=BEFORE
    )
    inside, release = threading.Event(), threading.Event()

    def hold_first_runner(sender: Any, **kwargs: Any) -> None:
        # Runs inside runner "a"'s transaction, after its claim, as its publish makes the
        # entry live.
        if threading.current_thread().name == "a":
            inside.set()
            release.wait(15)

    post_save.connect(hold_first_runner, sender=Entry, weak=False)
    results: dict[str, Any] = {}
    try:
        a = in_thread("a", results, lambda: scheduling.run_one(row.pk, now=DUE_UTC))
        b = in_thread("b", results, lambda: scheduling.run_one(row.pk, now=DUE_UTC))
        a.start()
        poll(inside.is_set, "the first runner to publish")
        b.start()
        poll(lambda: _blocked_backends() >= 1, "the second runner to wait on the row lock")
        release.set()
        a.join(15)
        b.join(15)
    finally:
        release.set()
        post_save.disconnect(hold_first_runner, sender=Entry)
    assert results == {"a": "done", "b": "skipped"}
    assert WorkflowEvent.objects.filter(action=WorkflowEvent.Action.PUBLISH).count() == 1
    assert (
        Entry.objects.get(pk=row.entry_id).versions.filter(published_at__isnull=False).count() == 1
    )
    row.refresh_from_db()
    assert row.state == ScheduledAction.State.DONE


def test_two_schedulers_started_together_publish_each_entry_once(
    entry_in_review: Callable[..., Entry], editor: User
) -> None:
    rows = [
        scheduling.schedule(
            entry_in_review(f"Term {i}"), action="publish", due_at=DUE_UTC, user=editor, now=BEFORE
        )
        for i in range(6)
    ]
    start = threading.Barrier(2)

    def runner() -> scheduling.RunReport:
        start.wait(10)
        return scheduling.run_due(now=DUE_UTC + datetime.timedelta(seconds=1))

    results: dict[str, Any] = {}
    threads = [in_thread(name, results, runner) for name in ("one", "two")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    done = results["one"].done + results["two"].done
    assert sorted(done) == sorted(r.pk for r in rows)
    assert results["one"].failed == results["two"].failed == []
    assert WorkflowEvent.objects.filter(action=WorkflowEvent.Action.PUBLISH).count() == 6
    assert set(ScheduledAction.objects.values_list("state", flat=True)) == {"done"}
