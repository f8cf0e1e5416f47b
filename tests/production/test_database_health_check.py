"""The kept connection's health check (config/postgresql): no round trip while all is well,
and a connection the server ended is still replaced before a request uses it.

On a scratch database of the real server, through the backend config.settings names
for PostgreSQL (`POSTGRESQL_ENGINE`, with `CONN_HEALTH_CHECKS` as it sets them), and
Django's own request-start hook (`close_if_unusable_or_obsolete`).
The server's own view of each connection (pg_stat_activity) says what it last ran.
"""

from __future__ import annotations

import select
import time
from collections.abc import Iterator
from typing import Any

import dj_database_url
import psycopg
import pytest
from django.conf import settings
from django.db import connections
from django.db.utils import load_backend

from tests.production.postgres import scratch_database

MARKER = "SELECT 42 AS health_check_marker"


@pytest.fixture
def scratch_url() -> Iterator[str]:
    with scratch_database("health_check") as url:
        yield url


@pytest.fixture
def kept(scratch_url: str, django_db_blocker: Any) -> Iterator[Any]:
    """A Django connection to the scratch database, configured as config.settings does."""
    parsed: dict[str, Any] = dict(dj_database_url.parse(scratch_url, conn_max_age=60))
    assert parsed["ENGINE"] == "django.db.backends.postgresql"
    parsed.update(ENGINE=settings.POSTGRESQL_ENGINE, CONN_HEALTH_CHECKS=True)
    alias = "health_check"
    configured = connections.configure_settings({"default": parsed})["default"]
    wrapper = load_backend(configured["ENGINE"]).DatabaseWrapper(configured, alias)
    # Registered for what looks connections up by alias (django.contrib.postgres's type
    # handlers); not the test database, so unblocked (pytest-django refuses by default).
    connections[alias] = wrapper
    with django_db_blocker.unblock():
        try:
            yield wrapper
        finally:
            wrapper.close()
            del connections[alias]


def last_statement(url: str, pid: int) -> str | None:
    with psycopg.connect(url, autocommit=True) as other:
        row = other.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()
    return None if row is None else str(row[0])


def backend_pid(wrapper: Any) -> int:
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def test_a_healthy_kept_connection_is_used_without_asking_the_server(
    kept: Any, scratch_url: str
) -> None:
    pid = backend_pid(kept)
    with kept.cursor() as cursor:
        cursor.execute(MARKER)
    kept.close_if_unusable_or_obsolete()
    kept.close_if_health_check_failed()
    # Still the same connection, and the server was sent nothing since the marker.
    assert kept.connection is not None
    assert last_statement(scratch_url, pid) == MARKER
    assert backend_pid(kept) == pid


def test_a_connection_the_server_ended_is_replaced_before_the_request_uses_it(
    kept: Any, scratch_url: str
) -> None:
    pid = backend_pid(kept)
    with psycopg.connect(scratch_url, autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)
        # Until the server has ended it (its reason is then on the kept socket).
        deadline = time.monotonic() + 30
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone():
            assert time.monotonic() < deadline, "the server did not end the connection"
    # What Django does when a request starts; then the request's first statement works,
    # on a new connection: the ended one was noticed and replaced.
    kept.close_if_unusable_or_obsolete()
    assert backend_pid(kept) != pid


def test_anything_waiting_on_the_socket_is_checked_the_way_django_does(
    kept: Any, scratch_url: str
) -> None:
    pid = backend_pid(kept)
    with kept.cursor() as cursor:
        cursor.execute("LISTEN health_check")
    with psycopg.connect(scratch_url, autocommit=True) as other:
        other.execute("NOTIFY health_check")
    # Once the notification is on the socket, unread, Django's own check runs, and passes.
    waiting = select.poll()
    waiting.register(kept.connection.pgconn.socket, select.POLLIN)
    assert waiting.poll(30_000), "the notification did not arrive"
    kept.close_if_unusable_or_obsolete()
    kept.close_if_health_check_failed()
    assert last_statement(scratch_url, pid) == "SELECT 1"
    assert backend_pid(kept) == pid
