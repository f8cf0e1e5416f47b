"""The instants the scheduling tests run at; the personas are in tests/conftest.py."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from editorial import workflow
from glossary.models import Entry
from tests.visibility.desk import edit_entry

# Winter in New York: EST, UTC-5.
DUE_LOCAL = "2026-12-01 09:00"
DUE_UTC = datetime.datetime(2026, 12, 1, 14, 0, tzinfo=datetime.UTC)
BEFORE = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)


@pytest.fixture
def live_with_a_change_in_review(
    entry_in_review: Callable[..., Entry], editor: User, writer: User
) -> Entry:
    """A published entry whose writer has since saved and submitted a change."""
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    edit_entry(writer, entry, summary="A later change, in review.")
    workflow.submit_for_review(entry, user=writer)
    entry.refresh_from_db()
    return entry


# Worker tests share the test database with Celery processes: on SQLite that
# needs a file database, which the link checker's hook arranges.
from tests.linkcheck.conftest import pytest_collection_modifyitems  # noqa: E402, F401
