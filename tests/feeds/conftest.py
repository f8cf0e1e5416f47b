"""Fixtures for feed imports: a feed served by a real local HTTP server, and the fence.

The network fence from the link checker's tests is reused: any attempt to reach a
non-loopback address fails the test before a packet leaves.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.linkcheck.conftest import (  # noqa: F401  (autouse here too)
    network_fence,
    pytest_collection_modifyitems,
)


@dataclass
class FeedServer:
    """Serves `pages[path] = (status, content type, body)` on 127.0.0.1; records requests."""

    pages: dict[str, tuple[int, str, bytes]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    port: int = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def feed_server() -> Iterator[FeedServer]:
    site = FeedServer()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            site.requests.append(self.path)
            status, content_type, body = site.pages.get(self.path, (404, "text/plain", b"no"))
            self.send_response(status)
            if status in (301, 302):
                self.send_header("Location", body.decode())
                body = b""
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield site
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def allow_loopback(settings: Any) -> Any:
    settings.LINKCHECK_ALLOW_PRIVATE = ["127.0.0.1"]
    settings.LINKCHECK_TOTAL_TIMEOUT = 5.0
    settings.LINKCHECK_SHARED_SPACING_URL = ""
    return settings
