"""Per-client limits on the production cache: one Redis round trip a request, a clean 429,
and nobody limited while Redis is away (glossary.throttle, config.cache)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import run_checks
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from glossary.throttle import parse_rate
from tests.redis_server import RedisServer, free_port


def resilient_cache(url: str) -> dict[str, Any]:
    return {
        "default": {
            "BACKEND": "config.cache.ResilientRedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "test-limits",
        }
    }


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path, fsync="no")
    server.start()
    try:
        with override_settings(CACHES=resilient_cache(server.url), PUBLIC_PAGE_CACHE=False):
            yield server
    finally:
        server.kill()


def command_calls(server: RedisServer) -> dict[str, int]:
    stats = server.client().info("commandstats")
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


@pytest.mark.django_db
def test_each_counted_request_is_one_round_trip_and_the_limit_answers_429(
    client: Any, demo: Any, settings: Any, own_redis: RedisServer
) -> None:
    settings.PUBLIC_API_RATE_LIMIT = "3/m"
    own_redis.client().config_resetstat()
    answers = [client.get("/api/v1/entries/interconnect/") for _ in range(4)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert 1 <= int(answers[-1]["Retry-After"]) <= 60
    calls = command_calls(own_redis)
    # INCR and EXPIRE NX, pipelined: no SET NX first, no EXISTS before each INCR.
    assert calls.get("incrby") == 4 and calls.get("expire") == 4
    assert "exists" not in calls and "set" not in calls
    (key,) = own_redis.client().keys("test-limits:*limit:api:*")
    assert 0 < own_redis.client().ttl(key) <= 61


@pytest.mark.django_db
def test_with_redis_away_nobody_is_limited(client: Any, demo: Any, settings: Any) -> None:
    settings.PUBLIC_SEARCH_RATE_LIMIT = "1/m"
    nothing_there = f"redis://127.0.0.1:{free_port()}/0"
    with override_settings(CACHES=resilient_cache(nothing_there), PUBLIC_PAGE_CACHE=False):
        assert [client.get("/search/?q=chip").status_code for _ in range(3)] == [200] * 3


def test_rates_are_read_with_their_period() -> None:
    assert parse_rate("60/m") == (60, 60)
    assert parse_rate("100/5m") == (100, 300)
    assert parse_rate(" 2/h ") == (2, 3600)
    with pytest.raises(ImproperlyConfigured, match="'lots' is not a rate"):
        parse_rate("lots")


def test_a_rate_that_cannot_be_read_stops_the_server_at_start(settings: Any) -> None:
    settings.PUBLIC_SEARCH_RATE_LIMIT = "60 per minute"
    problems = [m for m in run_checks() if m.id == "glossary.E005"]
    assert len(problems) == 1
    assert "PUBLIC_SEARCH_RATE_LIMIT" in problems[0].msg
    assert "'60 per minute' is not a rate" in problems[0].msg
