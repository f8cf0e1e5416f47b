"""A Redis cache that degrades to a miss when Redis is away.

The cache only saves work: a public page rendered without it is slower, not
wrong. Django's RedisCache raises on a lost connection, which would turn a
Redis restart into 500s for readers; this one logs and carries on as if the
key were absent, so the site keeps serving from PostgreSQL.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Connection trouble only; a bug (bad key, unpicklable value) still raises.
_OUTAGE = (redis.ConnectionError, redis.TimeoutError, OSError)
# While Redis is down every request would log; say it at most this often.
_WARN_EVERY = 30.0


class _OneClientPerPool(RedisCacheClient):
    """Django's client makes a new `redis.Redis` for every call, and building one (its
    table of response callbacks) cost 0.15 ms, as much as the round trip itself. A
    `redis.Redis` is safe to share between threads (each command takes a connection
    from the pool), so one per pool serves every call."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # django-stubs declares the client's public methods only.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(  # type: ignore[attr-defined]
                connection_pool=pool
            )
        return client


class ResilientRedisCache(RedisCache):
    _last_warning = 0.0

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _OneClientPerPool

    def _safely(self, operation: str, default: T, call: Callable[[], T]) -> T:
        try:
            return call()
        except _OUTAGE as exc:
            now = time.monotonic()
            if now - ResilientRedisCache._last_warning > _WARN_EVERY:
                ResilientRedisCache._last_warning = now
                logger.warning(
                    "cache unavailable, serving without it (%s: %s)",
                    operation,
                    type(exc).__name__,
                )
            return default

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._safely(
            "get", default, lambda: super(ResilientRedisCache, self).get(key, default, version)
        )

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        return self._safely(
            "get_many", {}, lambda: super(ResilientRedisCache, self).get_many(keys, version)
        )

    def has_key(self, key: Any, version: Any = None) -> bool:
        return self._safely(
            "has_key", False, lambda: super(ResilientRedisCache, self).has_key(key, version)
        )

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        return self._safely(
            "add", False, lambda: super(ResilientRedisCache, self).add(key, value, timeout, version)
        )

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        self._safely(
            "set", None, lambda: super(ResilientRedisCache, self).set(key, value, timeout, version)
        )

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list[Any]:
        return self._safely(
            "set_many",
            list(data),
            lambda: super(ResilientRedisCache, self).set_many(data, timeout, version),
        )

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return self._safely(
            "touch", False, lambda: super(ResilientRedisCache, self).touch(key, timeout, version)
        )

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        # Only rate limits count in the cache: without Redis, nobody is limited.
        return self._safely(
            "incr", 0, lambda: super(ResilientRedisCache, self).incr(key, delta, version)
        )

    def count_in_window(self, key: str, seconds: int) -> int | None:
        """Add one to the counter `key`, which expires `seconds` after its first hit, and
        return the count: one round trip (INCR and EXPIRE NX pipelined), where Django's
        add-then-incr takes three. The per-client limits count with it
        (glossary.throttle). None while Redis is away: nobody is limited then."""

        def call() -> int:
            full = self.make_and_validate_key(key)
            pipe = self._cache.get_client(full, write=True).pipeline(transaction=False)
            pipe.incr(full)
            pipe.expire(full, seconds, nx=True)
            return int(pipe.execute()[0])

        return self._safely("count_in_window", None, call)

    def delete(self, key: Any, version: Any = None) -> bool:
        return self._safely(
            "delete", False, lambda: super(ResilientRedisCache, self).delete(key, version)
        )

    def delete_many(self, keys: Any, version: Any = None) -> None:
        self._safely(
            "delete_many", None, lambda: super(ResilientRedisCache, self).delete_many(keys, version)
        )

    def clear(self) -> None:
        self._safely("clear", None, lambda: super(ResilientRedisCache, self).clear())
