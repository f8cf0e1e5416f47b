"""Every public page reaches the server in one piece.

A WSGI server writes each piece the application's answer yields with a system call of
its own: the feed once yielded one for each of the XML writer's writes (about eighty),
which cost more than building it, and halved its throughput through gunicorn, where
the tests' client (which joins the pieces) never showed it.
"""

from typing import Any

from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import RequestFactory

from tests.public.test_query_counts import urls


def pieces(path: str) -> list[bytes]:
    """What a WSGI server is given to write for `path`, piece by piece."""
    environ = RequestFactory().get(path).environ
    statuses: list[str] = []

    def start_response(status: str, headers: list[tuple[str, str]], *_: Any) -> Any:
        statuses.append(status)
        return lambda data: None

    # As the tests' client does: a request's start and end would otherwise close the
    # connection, and with it the test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        answer = WSGIHandler()(environ, start_response)
        try:
            written = [piece for piece in answer if piece]
        finally:
            answer.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    assert statuses == ["200 OK"], (path, statuses)
    return written


def test_every_public_page_is_one_write(rich_entry, no_page_cache):
    many = {name: len(pieces(url)) for name, url in urls(rich_entry(3)).items()}
    assert many == dict.fromkeys(many, 1)
