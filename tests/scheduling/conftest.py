"""People per role, and an entry that passes its publish checks, waiting in review."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from editorial import workflow
from editorial.permissions import Role, sync_roles
from glossary.models import Citation, Entry, Source

# Winter in New York: EST, UTC-5.
DUE_LOCAL = "2026-12-01 09:00"
DUE_UTC = datetime.datetime(2026, 12, 1, 14, 0, tzinfo=datetime.UTC)
BEFORE = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)


@pytest.fixture
def people(db: Any) -> dict[str, User]:
    sync_roles()
    users = {}
    for role in (Role.WRITER, Role.FACT_CHECKER, Role.EDITOR):
        # No password: tests log in with force_login, and hashing would cost seconds.
        user = User.objects.create_user(role.value, f"{role.value}@example.com")
        user.is_staff = True
        user.save()
        user.groups.add(Group.objects.get(name=role.value))
        users[role.value] = User.objects.get(pk=user.pk)  # fresh permission cache
    return users


@pytest.fixture
def writer(people: dict[str, User]) -> User:
    return people["writer"]


@pytest.fixture
def editor(people: dict[str, User]) -> User:
    return people["editor"]


@pytest.fixture
def ready_entry(
    make_entry: Callable[..., Entry], make_source: Callable[..., Source], writer: User
) -> Callable[..., Entry]:
    """An entry in review, written by the writer, that passes every blocking check."""

    def make(term: str = "Interconnect", checked_on: datetime.date | None = None) -> Entry:
        entry = make_entry(term)
        Citation.objects.create(
            entry=entry,
            source=make_source(),
            checked_on=checked_on or datetime.date(2026, 11, 30),
        )
        workflow.submit_for_review(entry, user=writer)
        return entry

    return make


# Worker tests share the test database with Celery processes: on SQLite that
# needs a file database, which the link checker's hook arranges.
from tests.linkcheck.conftest import pytest_collection_modifyitems  # noqa: E402, F401
