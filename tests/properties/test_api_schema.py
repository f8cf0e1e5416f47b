"""The public API against its own OpenAPI document (schemathesis, in process).

schemathesis reads /api/openapi.json as served, generates requests for every
operation from it (valid and invalid parameters alike) and calls the WSGI app
directly: no server, no network. Every answer must be below 500 and match the
document: its status is declared, its content type and its body fit the schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from config.wsgi import application

# Read once at collection: serving the document needs no database.
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", application)


@pytest.fixture
def keep_the_test_connection() -> Iterator[None]:
    """What Django's test client does: the request signals must not close the test's
    database connection (on PostgreSQL it holds the test's open transaction)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.usefixtures("demo", "keep_the_test_connection")
@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_every_api_answer_is_below_500_and_matches_the_document(case: Any) -> None:
    case.call_and_validate()
