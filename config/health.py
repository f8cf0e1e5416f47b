"""`/healthz` (the process answers) and `/readyz` (it can do its job).

Both are answered by a middleware that sits near the top of MIDDLEWARE, before
host validation, the HTTPS redirect, sessions and any page cache: container
probes call them as ``http://localhost:8000/readyz`` without the proxy's
headers, and a health answer must never come from a cache.

`/readyz` is ready when the database answers, every migration on disk is
recorded as applied, and each Redis the app uses (the Celery broker, the
cache) answers PING. It costs one small query and one PING per Redis URL, each
with a short timeout, and names what failed without echoing any URL (they may
hold passwords).
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.loader import MigrationLoader
from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers
from redis.backoff import NoBackoff
from redis.retry import Retry

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"

_redis_clients: dict[str, redis.Redis] = {}


@functools.cache
def expected_migrations() -> frozenset[tuple[str, str]]:
    """The leaf migration of every app, read from disk once per process.

    The code on disk cannot change under a running process, so this is safe
    to cache; what is applied in the database is read on every call.
    """
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return frozenset(loader.graph.leaf_nodes())


def check_database() -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the database check and the migrations check (one query for both)."""
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT app, name FROM django_migrations")
            applied = {(app, name) for app, name in cursor.fetchall()}
    except DatabaseError as exc:
        # A missing django_migrations table means the database answered but
        # was never migrated; anything else means we could not talk to it.
        elapsed = _ms(started)
        if _is_missing_table(exc):
            return (
                {"ok": True, "ms": elapsed},
                {"ok": False, "error": "no migrations applied"},
            )
        connection.close_if_unusable_or_obsolete()
        return (
            {"ok": False, "ms": elapsed, "error": type(exc).__name__},
            {"ok": False, "error": "database unreachable"},
        )
    missing = sorted(f"{app}.{name}" for app, name in expected_migrations() - applied)
    database = {"ok": True, "ms": _ms(started)}
    if missing:
        return database, {"ok": False, "error": "unapplied migrations", "missing": missing}
    return database, {"ok": True}


def _is_missing_table(exc: DatabaseError) -> bool:
    text = str(exc).lower()
    return "django_migrations" in text and ("does not exist" in text or "no such table" in text)


def redis_urls() -> dict[str, str]:
    """The Redis URLs this process depends on, by role."""
    urls: dict[str, str] = {}
    broker = getattr(settings, "CELERY_BROKER_URL", "") or ""
    if broker.startswith(("redis://", "rediss://", "unix://")):
        urls["broker"] = broker
    cache: dict[str, Any] = settings.CACHES.get("default", {})
    if "redis" in str(cache.get("BACKEND", "")).lower():
        location = cache.get("LOCATION")
        if isinstance(location, list | tuple):
            location = location[0]
        if location:
            urls["cache"] = str(location)
    return urls


def _client(url: str) -> redis.Redis:
    client = _redis_clients.get(url)
    if client is None:
        timeout = float(getattr(settings, "HEALTH_CHECK_TIMEOUT", 2.0))
        client = redis.Redis.from_url(
            url,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )
        _redis_clients[url] = client
    return client


def check_redis(url: str) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        _client(url).ping()
    except (redis.RedisError, OSError) as exc:
        return {"ok": False, "ms": _ms(started), "error": type(exc).__name__}
    return {"ok": True, "ms": _ms(started)}


def readiness() -> dict[str, Any]:
    """Run every readiness check; ``ready`` is true only if all of them pass."""
    database, migrations = check_database()
    checks: dict[str, Any] = {"database": database, "migrations": migrations}
    results: dict[str, dict[str, Any]] = {}
    for role, url in redis_urls().items():
        if url not in results:
            results[url] = check_redis(url)
        checks[role] = results[url]
    ready = all(check["ok"] for check in checks.values())
    return {"status": "ready" if ready else "not ready", "checks": checks}


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def _json(payload: dict[str, Any], status: int) -> HttpResponse:
    response = HttpResponse(json.dumps(payload), status=status, content_type="application/json")
    add_never_cache_headers(response)
    return response


class HealthCheckMiddleware:
    """Answer GET/HEAD on /healthz and /readyz before anything else runs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == HEALTH_PATH and request.method in ("GET", "HEAD"):
            return _json({"status": "ok"}, 200)
        if request.path_info == READY_PATH and request.method in ("GET", "HEAD"):
            report = readiness()
            ready = report["status"] == "ready"
            if not ready:
                failed = sorted(name for name, c in report["checks"].items() if not c["ok"])
                logger.warning("not ready: %s", ", ".join(failed), extra={"failed": failed})
            return _json(report, 200 if ready else 503)
        return self.get_response(request)
