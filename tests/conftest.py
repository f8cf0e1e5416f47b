"""Shared fixtures: the demo, entry factories and named users per role."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from glossary.models import Entry, Episode, Person, Show, Source

# A fixed "today" for anything that depends on dates.
TODAY = datetime.date(2026, 11, 30)


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """The cache outlives each test's database: a page cached by one test must not serve
    the next."""
    from django.core.cache import cache

    from glossary.cache import invalidate

    cache.clear()
    invalidate()  # also forgets the pages this process keeps in memory


@pytest.fixture
def demo(db: Any) -> dict[str, int]:
    from glossary.demo import load_demo

    return load_demo()


@pytest.fixture
def superuser(db: Any) -> User:
    return User.objects.create_superuser("root", "root@example.com", "pw-root-123")


@pytest.fixture
def show(db: Any) -> Show:
    return Show.objects.create(name="Test Show", slug="test-show")


@pytest.fixture
def episode(show: Show) -> Episode:
    return Episode.objects.create(
        show=show,
        season=1,
        number=7,
        title="Seven",
        duration=3600,
        url="https://podcast.example/7",
    )


@pytest.fixture
def person(db: Any) -> Person:
    return Person.objects.create(name="Ada Guest", slug="ada-guest")


@pytest.fixture
def make_entry(db: Any) -> Callable[..., Entry]:
    counter = iter(range(1, 10_000))

    def make(term: str | None = None, **fields: Any) -> Entry:
        n = next(counter)
        term = term or f"Term {n}"
        fields.setdefault("slug", f"term-{n}-{term.lower().replace(' ', '-')}"[:200])
        fields.setdefault("summary", f"Summary of {term}.")
        fields.setdefault("body", f"{term} is explained here.")
        return Entry.objects.create(term=term, **fields)

    return make


@pytest.fixture
def make_source(db: Any) -> Callable[..., Source]:
    counter = iter(range(1, 10_000))

    def make(**fields: Any) -> Source:
        n = next(counter)
        fields.setdefault("url", f"https://docs.example/{n}")
        fields.setdefault("title", f"Source {n}")
        return Source.objects.create(**fields)

    return make


@pytest.fixture
def browser() -> Any:
    """A headless Debian chromium (see tests/browser.py); closed after the test."""
    from tests.browser import chromium

    with chromium() as launched:
        yield launched


@pytest.fixture(scope="session", autouse=True)
def _no_lingering_sessions(django_db_setup: Any, django_db_blocker: Any) -> Any:
    """End sessions the live server's request threads kept open (CONN_MAX_AGE), so the
    PostgreSQL test database can be dropped at the end of the run."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
