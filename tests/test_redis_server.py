"""Each pytest worker's own database on the shared Redis (tests.redis_server.shared_redis_url)."""

from __future__ import annotations

import pytest

from tests.redis_server import shared_redis_url


@pytest.fixture
def environment(monkeypatch):
    for name in ("TEST_REDIS_URL", "LINKCHECK_TEST_REDIS_URL", "PYTEST_XDIST_WORKER"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_first_worker_takes_the_named_database_and_each_next_the_one_below(environment):
    environment.setenv("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
    assert shared_redis_url() == "redis://127.0.0.1:6379/15"
    environment.setenv("PYTEST_XDIST_WORKER", "gw0")
    assert shared_redis_url() == "redis://127.0.0.1:6379/15"
    environment.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert shared_redis_url() == "redis://127.0.0.1:6379/14"
    environment.setenv("PYTEST_XDIST_WORKER", "gw7")
    assert shared_redis_url() == "redis://127.0.0.1:6379/8"


def test_without_a_url_it_is_database_15_and_a_named_override_comes_first(environment):
    assert shared_redis_url() == "redis://127.0.0.1:6379/15"
    environment.setenv("TEST_REDIS_URL", "redis://:pw@127.0.0.1:6390/12")
    environment.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert shared_redis_url("LINKCHECK_TEST_REDIS_URL") == "redis://:pw@127.0.0.1:6390/11"
    environment.setenv("LINKCHECK_TEST_REDIS_URL", "redis://127.0.0.1:6379/5")
    assert shared_redis_url("LINKCHECK_TEST_REDIS_URL") == "redis://127.0.0.1:6379/4"


def test_a_worker_is_never_handed_database_0(environment):
    environment.setenv("TEST_REDIS_URL", "redis://127.0.0.1:6379/2")
    environment.setenv("PYTEST_XDIST_WORKER", "gw2")
    with pytest.raises(RuntimeError, match="database 0 is never flushed"):
        shared_redis_url()
