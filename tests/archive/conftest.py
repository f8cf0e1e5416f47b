"""Archived copies against a local fake of Save Page Now, inside the link checker's fence."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.archive.fake_archive import FakeArchive
from tests.linkcheck.conftest import (  # noqa: F401 - fixtures
    allow_loopback,
    fast_checks,
    network_fence,
)


@pytest.fixture(scope="session")
def _archive() -> Iterator[FakeArchive]:
    fake = FakeArchive()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def wayback(_archive: FakeArchive, allow_loopback: Any) -> FakeArchive:
    """The fake, reset, as the archive's base URL; confirming archives (the product's
    default, off elsewhere in the suite), with keys and small limits."""
    _archive.reset()
    allow_loopback.ARCHIVE_ON_CONFIRM = True
    allow_loopback.ARCHIVE_BASE_URL = _archive.base
    allow_loopback.ARCHIVE_ACCESS_KEY = "access"
    allow_loopback.ARCHIVE_SECRET_KEY = "secret"
    allow_loopback.ARCHIVE_RATE_PER_MINUTE = 4
    allow_loopback.ARCHIVE_CONCURRENCY = 2
    allow_loopback.ARCHIVE_RETRIES = 3
    allow_loopback.ARCHIVE_BACKOFF_SECONDS = 60.0
    allow_loopback.ARCHIVE_RETRY_AFTER_MAX = 3600.0
    allow_loopback.ARCHIVE_POLL_SECONDS = 30
    allow_loopback.ARCHIVE_MAX_POLLS = 5
    return _archive
