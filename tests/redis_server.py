"""A redis-server of a test's own: a free port, its own directory, killed and restarted at will.

Tests that need Redis to die start one of these; the shared Redis is never stopped.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry


def shared_redis_url(env: str = "TEST_REDIS_URL") -> str:
    """This pytest worker's database on the machine's shared Redis, which its tests flush freely.

    The URL is `env`'s, else TEST_REDIS_URL's, else database 15 of 127.0.0.1:6379. `make
    test` runs a worker per core (pytest-xdist); the first takes that database and each
    next one the database below, so workers side by side never flush each other's. A
    worker's own tests run one after another, so one database serves them all.
    """
    url = os.environ.get(env) or os.environ.get("TEST_REDIS_URL") or "redis://127.0.0.1:6379/15"
    parts = urlsplit(url)
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    database = int(parts.path.strip("/") or 0) - worker
    if database < 1:
        raise RuntimeError(
            f"{url} leaves no Redis database for pytest worker {worker} (database 0 is never "
            "flushed): name a higher database, or run fewer workers (pytest -n)."
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A redis-server of this test's own, persisting every write to its append-only file."""

    def __init__(self, workdir: Path, *, fsync: str = "always") -> None:
        # A SIGKILL loses nothing redis-server has written to its file, whatever the
        # fsync policy: "no" leaves flushing to the kernel and is much faster.
        self.workdir = workdir
        self.fsync = fsync
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--bind", "127.0.0.1",
                "--port", str(self.port),
                "--dir", str(self.workdir),
                "--save", "",
                "--appendonly", "yes",
                "--appendfsync", self.fsync,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self._wait(answering=True)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._wait(answering=False)

    def client(self) -> redis.Redis:
        # No retries: a probe must say "down" at once, not back off for seconds.
        return redis.Redis(port=self.port, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))

    def _answers(self) -> bool:
        try:
            return bool(self.client().ping())
        except redis.ConnectionError:
            return False

    def _wait(self, *, answering: bool) -> None:
        deadline = time.monotonic() + 15
        while self._answers() != answering:
            assert time.monotonic() < deadline, (
                f"redis-server never {'started' if answering else 'stopped'}"
            )
            time.sleep(0.05)
