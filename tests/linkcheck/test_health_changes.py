"""SourceHealthChange: a row per change of a source's health, written with its check."""

from __future__ import annotations

import datetime
import importlib
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editorial.linkcheck import service
from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fetch import CheckResult
from editorial.models import SourceHealthChange
from glossary.models import Source
from tests.factories import SourceFactory

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)
DAY = datetime.timedelta(days=1)


def check(source: Source, outcome: Outcome, at: datetime.datetime, **result: Any) -> None:
    source.refresh_from_db()
    service.record([(source, CheckResult(url=source.url, outcome=outcome, **result))], None, at)


def changes(source: Source) -> list[tuple[str, str, str]]:
    rows = SourceHealthChange.objects.filter(source=source).order_by("at", "pk")
    return list(rows.values_list("from_health", "to_health", "outcome"))


def test_each_check_that_changes_a_sources_health_writes_one_row() -> None:
    source = SourceFactory.create()
    check(source, Outcome.OK, NOW - 20 * DAY)
    check(source, Outcome.OK, NOW - 15 * DAY)  # still ok: no row
    check(source, Outcome.BROKEN, NOW - 10 * DAY, status_code=404, error="Not Found")
    check(source, Outcome.BROKEN, NOW - 6 * DAY, status_code=404)
    check(source, Outcome.BROKEN, NOW - 2 * DAY, status_code=404)
    assert changes(source) == [
        ("unchecked", "ok", "ok"),
        ("ok", "failing", "broken"),
        ("failing", "broken", "broken"),
    ]
    first_failure = SourceHealthChange.objects.get(source=source, to_health="failing")
    assert (first_failure.at, first_failure.status_code, first_failure.error) == (
        NOW - 10 * DAY,
        404,
        "Not Found",
    )
    assert first_failure.url == source.url


def test_a_check_not_recorded_writes_no_change() -> None:
    """A redelivered task (the claim's lease gone) records nothing, health changes included."""
    source = SourceFactory.create()
    service.record(
        [(source, CheckResult(url=source.url, outcome=Outcome.BROKEN))], lease=NOW, now=NOW
    )
    assert not SourceHealthChange.objects.exists()


def test_a_chunk_writes_its_health_changes_with_one_statement() -> None:
    sources = SourceFactory.create_batch(40)
    pairs = [(s, CheckResult(url=s.url, outcome=Outcome.OK)) for s in sources]
    with CaptureQueriesContext(connection) as queries:
        service.record(pairs, None, NOW)
    table = SourceHealthChange._meta.db_table
    inserts = [q for q in queries.captured_queries if f'INSERT INTO "{table}"' in q["sql"]]
    assert len(inserts) == 1
    assert SourceHealthChange.objects.count() == 40


def _fill_migration() -> Any:
    folder = Path(apps.get_app_config("editorial").path) / "migrations"
    (path,) = folder.glob("*_fill_source_health_changes_from_checks.py")
    return importlib.import_module(f"editorial.migrations.{path.stem}")


def test_the_migration_fills_the_rows_the_checker_would_have_written() -> None:
    outcomes = [
        Outcome.OK,
        Outcome.TLS_ERROR,
        Outcome.RATE_LIMITED,
        Outcome.EMPTY,
        Outcome.EMPTY,
        Outcome.EMPTY,
        Outcome.MOVED,
        Outcome.TRANSIENT,
        Outcome.BROKEN,
        Outcome.BROKEN,
        Outcome.BLOCKED,
        Outcome.OK,
        Outcome.REFUSED,
        Outcome.BROKEN,
    ]
    sources = SourceFactory.create_batch(4)
    for s, source in enumerate(sources):
        for i, outcome in enumerate(outcomes[s:]):
            # Some failures closer together than the spacing, so some do not count.
            check(source, outcome, NOW - (100 - i * (2 + s)) * DAY)
    columns = ("source_id", "url", "at", "from_health", "to_health", "outcome", "status_code")
    written = list(SourceHealthChange.objects.order_by("source_id", "at").values_list(*columns))
    assert len(written) > 20
    SourceHealthChange.objects.all().delete()
    _fill_migration().fill(apps, None)
    filled = list(SourceHealthChange.objects.order_by("source_id", "at").values_list(*columns))
    assert filled == written


def test_a_health_change_changes_nothing_readers_see(demo: Any, client: Any) -> None:
    source = Source.objects.filter(citations__entry__slug="interconnect").earliest("pk")
    pages = ["/glossary/interconnect/", "/api/entries/interconnect", "/glossary/"]
    before = [client.get(url).content for url in pages]
    outcome = Outcome.BLOCKED if source.health != Source.Health.BLOCKED else Outcome.OK
    check(source, outcome, NOW)
    assert SourceHealthChange.objects.filter(source=source).exists()
    assert [client.get(url).content for url in pages] == before
