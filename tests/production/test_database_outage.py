"""With the database unreachable: 503 with Retry-After, never a 500; back by itself after.

The app runs in another process whose database is PostgreSQL behind a relay
this test switches off and on: first refusing connections (a stopped server),
then relaying (it is back), then cutting every connection and refusing new
ones (a restart under a kept connection), then relaying again.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import pytest
from django.db import connection

from tests.production.deployfiles import ROOT
from tests.production.postgres import scratch_database, server_url

# The child serves the app over real WSGI (the test client would skip the request
# signals that close a broken connection, which is what recovery relies on).
SERVE = """
import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

from config.wsgi import application


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


server = make_server("127.0.0.1", 0, application, handler_class=Quiet)
print(server.server_port, flush=True)
server.serve_forever()
"""


class DatabaseRelay:
    """A loopback TCP relay to PostgreSQL that can be cut and restored like the server."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # Bound but not listening: a connection is refused, as by a stopped server.
        self.listener.bind(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.relaying = False
        self.accepting: threading.Thread | None = None
        self.links: list[socket.socket] = []
        self.lock = threading.Lock()

    def restore(self) -> None:
        if self.accepting is None:
            self.listener.listen()
            self.accepting = threading.Thread(target=self._accept, daemon=True)
            self.accepting.start()
        self.relaying = True

    def cut(self) -> None:
        """Drop every relayed connection; new ones are accepted and closed at once."""
        self.relaying = False
        with self.lock:
            for sock in self.links:
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self.links.clear()

    def close(self) -> None:
        self.cut()
        with suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.relaying:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.links += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


@pytest.fixture
def database_name(request: pytest.FixtureRequest) -> Iterator[str]:
    """A migrated PostgreSQL database: the suite's own on PostgreSQL, else a scratch one."""
    if connection.vendor == "postgresql":
        request.getfixturevalue("db")
        yield str(connection.settings_dict["NAME"])
        return
    with scratch_database("outage") as url:
        migrate = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert migrate.returncode == 0, migrate.stderr
        yield urlsplit(url).path.lstrip("/")


@pytest.fixture
def relay() -> Iterator[DatabaseRelay]:
    server = urlsplit(server_url())
    relay = DatabaseRelay((server.hostname or "127.0.0.1", server.port or 5432))
    yield relay
    relay.close()


class App:
    """The app served by a child process on a loopback port."""

    def __init__(self, database_url: str, log: IO[str], *, debug: bool = False) -> None:
        self.log = log
        env = {
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": database_url,
            "REDIS_URL": "",
            "DEBUG": "true" if debug else "false",
            "SECRET_KEY": "outage-test-" + "k" * 40,
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_SSL_REDIRECT": "false",
            "STATIC_MANIFEST": "false",
            "LOG_FORMAT": "plain",
        }
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVE],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            # A file, not a pipe: a full pipe would block the child mid-answer.
            stderr=log,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.strip().isdigit(), self.finish()
        self.port = int(line)

    def get(self, *urls: str, cookie: str = "") -> dict[str, dict[str, Any]]:
        answers = {}
        for url in urls:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            conn.request("GET", url, headers={"Cookie": cookie} if cookie else {})
            response = conn.getresponse()
            answers[url] = {
                "url": url,
                "status": response.status,
                "retry_after": response.getheader("Retry-After"),
                "type": response.getheader("Content-Type", ""),
                "cache": response.getheader("Cache-Control", ""),
                "body": response.read().decode(),
            }
            conn.close()
        return answers

    def finish(self) -> str:
        """Stop the child; its log (stderr)."""
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.seek(0)
        return self.log.read()


PAGES = ["/", "/glossary/interconnect/", "/search/?q=memory", "/episodes/"]
API = ["/api/v1/entries/", "/api/v1/search/?q=memory", "/api/v1/entries/interconnect/"]


def assert_unavailable(answer: dict[str, Any], port: int) -> None:
    url = answer["url"]
    assert answer["status"] == 503, answer
    assert answer["retry_after"] == "30", url
    assert "no-store" in answer["cache"], url
    assert "Traceback" not in answer["body"], url
    assert f"{port}" not in answer["body"], url
    if url.startswith("/api/"):
        assert answer["type"] == "application/json", url
        assert json.loads(answer["body"]) == {
            "error": "The glossary cannot reach its database; try again in 30 seconds."
        }
    else:
        assert answer["type"].startswith("text/html"), url
        assert "<h1>Back in a moment</h1>" in answer["body"], url
        assert "The Show Glossary" in answer["body"], url
        assert 'class="site-header"' in answer["body"], url


def test_pages_search_and_the_api_answer_503_while_the_database_is_down_and_recover(
    database_name: str, relay: DatabaseRelay, tmp_path: Path
) -> None:
    log_file = (tmp_path / "app.log").open("w+")
    app = App(f"postgres://postgres@127.0.0.1:{relay.port}/{database_name}", log_file)
    try:
        # Never reached: every page, search, the API and a signed-in admin page.
        down = app.get(*PAGES, *API) | app.get("/admin/", cookie="sessionid=an-editors")
        for answer in down.values():
            assert_unavailable(answer, relay.port)

        relay.restore()
        up = app.get(*PAGES, *API)
        assert {url: a["status"] for url, a in up.items()} == {
            "/": 200,
            "/glossary/interconnect/": 404,
            "/search/?q=memory": 200,
            "/episodes/": 200,
            "/api/v1/entries/": 200,
            "/api/v1/search/?q=memory": 200,
            "/api/v1/entries/interconnect/": 404,
        }

        # A restart under the connection the process kept: pages not yet in the page
        # cache are 503; the home page, cached a moment ago, is still served.
        relay.cut()
        again = app.get("/", "/search/?q=bandwidth", "/api/v1/entries/?page_size=3")
        assert again["/"]["status"] == 200
        assert_unavailable(again["/search/?q=bandwidth"], relay.port)
        assert_unavailable(again["/api/v1/entries/?page_size=3"], relay.port)

        relay.restore()
        back = app.get("/search/?q=bandwidth", "/api/v1/entries/?page_size=3")
        assert [a["status"] for a in back.values()] == [200, 200]
    finally:
        log = app.finish()
    assert "database unavailable: OperationalError" in log


def test_with_debug_on_the_answer_is_still_a_503_not_a_traceback(
    relay: DatabaseRelay, tmp_path: Path
) -> None:
    # DEBUG shows tracebacks for errors (the API's framework does so on its own);
    # an unreachable database is not an error of the code, so it is a 503 there too.
    log_file = (tmp_path / "app.log").open("w+")
    app = App(f"postgres://postgres@127.0.0.1:{relay.port}/gone", log_file, debug=True)
    try:
        answers = app.get("/search/?q=memory", "/api/v1/entries/")
    finally:
        app.finish()
    for answer in answers.values():
        assert_unavailable(answer, relay.port)
