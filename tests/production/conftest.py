"""Fixtures for the production-shape tests: a real Redis and free loopback ports."""

from __future__ import annotations

import os
import socket

import pytest

# The Redis DB these tests may use (flushed freely); override with TEST_REDIS_URL.
TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/14")


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def redis_url() -> str:
    return TEST_REDIS_URL


@pytest.fixture
def closed_redis_url() -> str:
    """A Redis URL with a password on a port where nothing answers."""
    return f"redis://:sekrit-password@127.0.0.1:{free_port()}/0"
