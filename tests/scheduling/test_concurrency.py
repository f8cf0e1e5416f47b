"""Two schedulers at once publish a due entry exactly once (PostgreSQL row locks).

SQLite locks the whole database, so these run on PostgreSQL, where two runners
really do overlap: the test holds the first runner inside its transaction until
PostgreSQL reports the second one waiting on the row lock, then lets it finish.
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections
from django.db.models.signals import post_save

from editorial import scheduling
from editorial.models import ScheduledAction, WorkflowEvent
from glossary.models import Entry

from .conftest import BEFORE, DUE_UTC

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locking"),
]


def _poll(condition: Callable[[], bool], what: str, deadline: float = 15.0) -> None:
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _blocked_backends() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock' "
            "AND query ILIKE %s",
            ["%editorial_scheduledaction%"],
        )
        return cursor.fetchone()[0]


def _in_thread(name: str, results: dict[str, Any], target: Callable[[], Any]) -> threading.Thread:
    def run() -> None:
        try:
            results[name] = target()
        except BaseException as exc:  # surfaced by the test's assertions
            results[name] = exc
        finally:
            connections.close_all()

    return threading.Thread(target=run, name=name, daemon=True)


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
        a = _in_thread("a", results, lambda: scheduling.run_one(row.pk, now=DUE_UTC))
        b = _in_thread("b", results, lambda: scheduling.run_one(row.pk, now=DUE_UTC))
        a.start()
        _poll(inside.is_set, "the first runner to publish")
        b.start()
        _poll(lambda: _blocked_backends() >= 1, "the second runner to wait on the row lock")
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
    threads = [_in_thread(name, results, runner) for name in ("one", "two")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    done = results["one"].done + results["two"].done
    assert sorted(done) == sorted(r.pk for r in rows)
    assert results["one"].failed == results["two"].failed == []
    assert WorkflowEvent.objects.filter(action=WorkflowEvent.Action.PUBLISH).count() == 6
    assert set(ScheduledAction.objects.values_list("state", flat=True)) == {"done"}
