"""Nothing withdrawn comes back through the cache: a real Redis killed and restarted from its
append-only file, with an unpublish done while it was down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.cache import cache
from django.test import override_settings

from editorial import workflow
from glossary import cache as public_cache
from glossary.models import Entry
from tests.redis_server import RedisServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            server.process.kill()
            server.process.wait(timeout=10)


PAGES = ["/glossary/interconnect/", "/api/v1/entries/interconnect/", "/"]


def test_an_unpublish_while_redis_is_down_stays_unpublished_after_it_returns(
    client, demo, own_redis, editor
):
    caches = {
        "default": {
            "BACKEND": "config.cache.ResilientRedisCache",
            "LOCATION": own_redis.url,
            "KEY_PREFIX": "restart-test",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    with override_settings(CACHES=caches, PUBLIC_CACHE_SYNC_SECONDS=0):
        public_cache.invalidate()
        for url in PAGES:
            assert client.get(url).status_code == 200, url
        assert "Interconnect" in client.get("/").content.decode()
        stored = own_redis.client().keys("restart-test:*public:page:*")
        assert len(stored) == len(PAGES), "the pages were not stored in Redis"

        own_redis.kill()
        entry = Entry.objects.get(slug="interconnect")
        # Succeeds with the cache away.
        workflow.unpublish_entry(entry, user=editor, comment="Withdrawn.")
        own_redis.start()  # from its append-only file

        # The old pages are back in Redis...
        assert sorted(own_redis.client().keys("restart-test:*public:page:*")) == sorted(stored)
        # ...and none of them is served: the database says they are not current.
        public_cache.invalidate()  # as a process that never saw the unpublish
        assert client.get("/glossary/interconnect/").status_code == 404
        assert client.get("/api/v1/entries/interconnect/").status_code == 404
        assert 'href="/glossary/interconnect/"' not in client.get("/").content.decode()
    cache.clear()
