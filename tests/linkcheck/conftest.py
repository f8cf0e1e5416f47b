"""Fixtures for the link checker: a real local web server and a network fence.

The fence is autouse: any attempt in this process to connect to (or resolve a
name that could lead to) a non-loopback address fails the test, and the
attempt itself is stopped before a packet leaves. It guards the tests even if
the SSRF guard under test were broken. libcurl connects its sockets in C, so
for the checker's transport the fence wraps `transport.new_socket`, where every
one of its connections gets its socket, with the address it is for.
"""

from __future__ import annotations

import ipaddress
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connections

from editorial.linkcheck import transport
from tests.linkcheck.server import LocalSite


class OutsideNetworkAttempt(ConnectionRefusedError):
    """Raised instead of letting a packet go to a non-loopback address."""


def _is_loopback(host: Any) -> bool:
    try:
        return ipaddress.ip_address(str(host).split("%", 1)[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def network_fence(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    attempts: list[str] = []
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_sendto = socket.socket.sendto
    real_getaddrinfo = socket.getaddrinfo
    real_new_socket = transport.new_socket

    def fence(address: Any, what: str) -> None:
        if isinstance(address, tuple) and not _is_loopback(address[0]):
            attempts.append(f"{what} to {address!r}")
            raise OutsideNetworkAttempt(f"test tried to reach {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        fence(address, "connect")
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        fence(address, "connect_ex")
        return real_connect_ex(self, address)

    def sendto(self: socket.socket, data: bytes, *args: Any) -> int:
        fence(args[-1], "sendto")
        return real_sendto(self, data, *args)

    def new_socket(family: int, socktype: int, protocol: int, address: Any) -> Any:
        fence(address, "libcurl connect")
        return real_new_socket(family, socktype, protocol, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is None or name == "localhost":
            return real_getaddrinfo(host, *args, **kwargs)
        try:
            # Numeric hosts (including odd forms like 2130706433) need no DNS query.
            real_getaddrinfo(host, None, flags=socket.AI_NUMERICHOST)
        except socket.gaierror:
            pass
        else:
            return real_getaddrinfo(host, *args, **kwargs)
        if name.endswith(".invalid"):  # RFC 6761: guaranteed not to exist
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        attempts.append(f"DNS lookup of {name!r}")
        raise socket.gaierror(socket.EAI_NONAME, f"test fence: no DNS for {name!r}")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket.socket, "sendto", sendto)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(transport, "new_socket", new_socket)
    yield attempts
    if attempts:
        pytest.fail(f"the test tried to leave loopback: {attempts}")


@pytest.fixture(scope="session")
def _server() -> Iterator[LocalSite]:
    server = LocalSite()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def server(_server: LocalSite) -> LocalSite:
    _server.reset()
    return _server


@pytest.fixture
def fast_checks(settings: Any) -> Any:
    """Short timeouts and backoffs so the suite stays fast; no host spacing."""
    settings.LINKCHECK_CONNECT_TIMEOUT = 1.0
    settings.LINKCHECK_READ_TIMEOUT = 0.5
    settings.LINKCHECK_TOTAL_TIMEOUT = 0.5
    settings.LINKCHECK_BACKOFF = 0.01
    settings.LINKCHECK_RETRIES = 2
    settings.LINKCHECK_RETRY_AFTER_MAX = 2.0
    settings.LINKCHECK_HOST_SPACING = 0.0
    settings.LINKCHECK_SHARED_SPACING_URL = ""  # spacing within one checker, unless a test says
    settings.LINKCHECK_PER_HOST_CONCURRENCY = 2
    settings.LINKCHECK_MAX_BYTES = 256 * 1024
    settings.LINKCHECK_ALLOW_PRIVATE = []
    return settings


@pytest.fixture
def allow_loopback(fast_checks: Any) -> Any:
    """The allow-list the issue describes for tests: the IPv4 loopback test server."""
    fast_checks.LINKCHECK_ALLOW_PRIVATE = ["127.0.0.1"]
    return fast_checks


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Worker tests share the test database with a subprocess, so SQLite needs a file.

    An in-memory SQLite test database is invisible to the Celery worker, so when
    worker tests are selected, the SQLite test database is put in a file.
    """
    if not any(item.get_closest_marker("worker") for item in items):
        return
    db = django_settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.sqlite3":
        return
    test = db.setdefault("TEST", {})
    if not test.get("NAME") or ":memory:" in str(test.get("NAME")):
        path = Path(tempfile.mkdtemp(prefix="linkcheck-db-")) / "test.sqlite3"
        test["NAME"] = str(path)
        connections["default"].settings_dict.setdefault("TEST", {})["NAME"] = str(path)


@pytest.fixture(autouse=True)
def no_kept_checkers() -> Iterator[None]:
    """A checker a task kept for the process (and its connections) ends with its test."""
    yield
    from editorial.linkcheck import service

    service.close_kept_checkers()
