"""The instants the scheduling tests run at; the personas are in tests/conftest.py."""

from __future__ import annotations

import datetime

# Winter in New York: EST, UTC-5.
DUE_LOCAL = "2026-12-01 09:00"
DUE_UTC = datetime.datetime(2026, 12, 1, 14, 0, tzinfo=datetime.UTC)
BEFORE = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)


# Worker tests share the test database with Celery processes: on SQLite that
# needs a file database, which the link checker's hook arranges.
from tests.linkcheck.conftest import pytest_collection_modifyitems  # noqa: E402, F401
