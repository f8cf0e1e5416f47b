"""The production cache is Redis, and a Redis outage turns into cache misses, not errors."""

from __future__ import annotations

import logging

import pytest
import redis
from django.core.cache.backends.redis import RedisCache

from config.cache import ResilientRedisCache


def make(url: str, backend: type = ResilientRedisCache) -> RedisCache:
    return backend(url, {"OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}})


def test_it_caches_in_redis_when_redis_is_there(redis_url: str) -> None:
    cache = make(redis_url)
    cache.set("production-test-key", {"a": 1}, 30)
    assert cache.get("production-test-key") == {"a": 1}
    assert cache.get_many(["production-test-key"]) == {"production-test-key": {"a": 1}}
    assert cache.add("production-test-key", "other") is False
    assert cache.delete("production-test-key") is True
    assert cache.get("production-test-key", "gone") == "gone"


def test_when_redis_is_away_reads_miss_and_writes_are_dropped(
    closed_redis_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The warning is said at most every 30 s: an outage an earlier test met must not hide it.
    monkeypatch.setattr(ResilientRedisCache, "_last_warning", 0.0)
    cache = make(closed_redis_url)
    with caplog.at_level(logging.WARNING, logger="config.cache"):
        assert cache.get("key", "default") == "default"
        assert cache.get_many(["a", "b"]) == {}
        cache.set("key", "value", timeout=None)
        assert cache.add("key", "value") is False
        assert cache.has_key("key") is False
        assert cache.delete("key") is False
        cache.delete_many(["a"])
        assert isinstance(cache, ResilientRedisCache)
        assert cache.count_in_window("hits", 60) is None
    assert any("cache unavailable" in r.getMessage() for r in caplog.records)
    assert "sekrit" not in caplog.text


def test_djangos_own_redis_cache_would_fail_the_page(closed_redis_url: str) -> None:
    with pytest.raises(redis.ConnectionError):
        make(closed_redis_url, RedisCache).get("key")


def test_a_bug_is_not_mistaken_for_an_outage(redis_url: str) -> None:
    cache = make(redis_url)
    with pytest.raises((TypeError, AttributeError)):  # pickle's words for "can't"
        cache.set("unpicklable", lambda: None, 30)


def test_one_redis_client_serves_every_call(redis_url: str) -> None:
    # Django builds a new redis.Redis per call; building one cost as much as a round trip.
    cache = make(redis_url)
    client = cache._cache.get_client("a", write=True)
    assert cache._cache.get_client("b", write=True) is client
    cache.set("production-test-reuse", 1, 30)
    assert cache.get("production-test-reuse") == 1
    assert cache._cache.get_client("c") is client
    cache.delete("production-test-reuse")
