"""Worker tests here share the test database with a Celery worker, so SQLite needs a file
(as in tests/linkcheck/conftest.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connections


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not any(item.get_closest_marker("worker") for item in items):
        return
    db = django_settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.sqlite3":
        return
    test = db.setdefault("TEST", {})
    if not test.get("NAME") or ":memory:" in str(test.get("NAME")):
        path = Path(tempfile.mkdtemp(prefix="transcripts-db-")) / "test.sqlite3"
        test["NAME"] = str(path)
        connections["default"].settings_dict.setdefault("TEST", {})["NAME"] = str(path)
