"""Database tests of stored source texts: the link checker's fence, a changeable local site."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.linkcheck.conftest import (  # noqa: F401 - fixtures and the worker tests' SQLite hook
    allow_loopback,
    fast_checks,
    network_fence,
    no_kept_checkers,
    pytest_collection_modifyitems,
)
from tests.sourcetext.site import ChangingSite


@pytest.fixture(scope="session")
def _site() -> Iterator[ChangingSite]:
    site = ChangingSite()
    site.start()
    yield site
    site.stop()


@pytest.fixture
def site(_site: ChangingSite) -> ChangingSite:
    _site.reset()
    _site.pages.clear()
    return _site
