"""Fixtures for the production-shape tests: a real Redis and free loopback ports."""

from __future__ import annotations

import socket

import pytest

from tests.redis_server import shared_redis_url

# This worker's database on the shared Redis (flushed freely): tests.redis_server.
TEST_REDIS_URL = shared_redis_url()


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
