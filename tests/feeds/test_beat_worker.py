"""Real Celery beat and a worker, on Redis, refresh a show's feed from a local server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from glossary.models import Episode, Show
from tests.feeds.conftest import FeedServer
from tests.feeds.feeds import feed, item
from tests.linkcheck.test_worker import Processes, wait_for
from tests.redis_server import shared_redis_url

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# This worker's database on the shared Redis (flushed freely): tests.redis_server.
REDIS_URL = shared_redis_url()


@pytest.fixture
def celery(tmp_path: Path, transactional_db: None) -> Iterator[Processes]:
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    procs = Processes(tmp_path)
    procs.env.update(
        {
            "REDIS_URL": REDIS_URL,
            "CELERY_BROKER_URL": REDIS_URL,
            "FEED_REFRESH_SECONDS": "1",
            "LINKCHECK_SCHEDULE_SECONDS": "3600",
            "LINKCHECK_ALLOW_PRIVATE": "127.0.0.1",
        }
    )
    yield procs
    procs.stop_all()
    client.flushdb()


def test_beat_refreshes_a_show_with_a_feed_url_and_leaves_one_without(
    celery: Processes, feed_server: FeedServer
) -> None:
    feed_server.pages["/feed.xml"] = (200, "application/rss+xml", feed(item(1, "On air")))
    show = Show.objects.create(name="Fed", slug="fed", feed_url=feed_server.url("/feed.xml"))
    Show.objects.create(name="Unfed", slug="unfed")
    celery.worker()
    celery.beat()
    try:
        episode = wait_for(
            lambda: Episode.objects.filter(show=show, number=1).first(),
            60,
            "beat and the worker to import the feed",
        )
        # Beat keeps firing every second; later runs find nothing new.
        wait_for(lambda: len(feed_server.requests) >= 3, 30, "two more refreshes")
    except AssertionError:
        print(celery.logs())
        raise
    assert episode.title == "On air"
    assert Episode.objects.filter(show=show).count() == 1
    assert not Episode.objects.filter(show__slug="unfed").exists()
    assert set(feed_server.requests) == {"/feed.xml"}
    show.refresh_from_db()
    assert show.feed_refreshed_at is not None and show.feed_error == ""
