"""Helpers for tests where two transactions really overlap (PostgreSQL's locks)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connection, connections


def poll(condition: Callable[[], bool], what: str, deadline: float = 15.0) -> None:
    """Wait until `condition()` holds, failing with `what` after `deadline` seconds."""
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def backends_waiting_on_a_lock(query_like: str = "%") -> int:
    """How many of this database's connections wait on a lock, running a statement like
    `query_like` (PostgreSQL's own view of them)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock' "
            "AND query ILIKE %s",
            [query_like],
        )
        return int(cursor.fetchone()[0])


def in_thread(name: str, results: dict[str, Any], target: Callable[[], Any]) -> threading.Thread:
    """A thread named `name` running `target` on its own connection; its result (or the
    exception it raised) lands in `results[name]` for the test's assertions."""

    def run() -> None:
        try:
            results[name] = target()
        except BaseException as exc:  # surfaced by the test's assertions
            results[name] = exc
        finally:
            connections.close_all()

    return threading.Thread(target=run, name=name, daemon=True)
