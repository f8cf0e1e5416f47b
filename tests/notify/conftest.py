# The worker test shares the test database with a Celery worker: SQLite goes in a file.
from tests.linkcheck.conftest import pytest_collection_modifyitems  # noqa: F401
