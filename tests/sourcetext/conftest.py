"""Database tests of stored source texts: the link checker's fence, a changeable local site."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.linkcheck.conftest import (  # noqa: F401 - fixtures and the worker tests' SQLite hook
    allow_loopback,
    fast_checks,
    network_fence,
    no_kept_checkers,
    pytest_collection_modifyitems,
)
from tests.sourcetext.site import ChangingSite


@pytest.fixture(autouse=True)
def fetch_on_confirm(settings: Any) -> None:
    """The product's default; tests elsewhere turn it off (tests/conftest.py): these are
    fenced to loopback and serve the pages they confirm."""
    settings.SOURCETEXT_FETCH_ON_CONFIRM = True


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
