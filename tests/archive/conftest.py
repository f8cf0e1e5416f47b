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
def wayback(_archive: FakeArchive, request: pytest.FixtureRequest) -> FakeArchive:
    """The fake, reset, as the archive's base URL (its loopback address allowed, as the
    link checker's tests allow theirs); confirming archives (the product's default, off
    elsewhere in the suite), with keys and small limits."""
    _archive.reset()
    settings: Any = request.getfixturevalue("allow_loopback")
    settings.ARCHIVE_ON_CONFIRM = True
    settings.ARCHIVE_BASE_URL = _archive.base
    settings.ARCHIVE_ACCESS_KEY = "access"
    settings.ARCHIVE_SECRET_KEY = "secret"
    settings.ARCHIVE_RATE_PER_MINUTE = 4
    settings.ARCHIVE_CONCURRENCY = 2
    settings.ARCHIVE_RETRIES = 3
    settings.ARCHIVE_BACKOFF_SECONDS = 60.0
    settings.ARCHIVE_RETRY_AFTER_MAX = 3600.0
    settings.ARCHIVE_POLL_SECONDS = 30
    settings.ARCHIVE_MAX_POLLS = 5
    return _archive
