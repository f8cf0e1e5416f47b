"""Personas for the workflow tests: one user per role, and entries ready to publish."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from editorial.permissions import Role, sync_roles
from glossary.models import Citation, Entry, Source

# The day every date-dependent test runs on.
NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    # Real hashing costs about a second per user here; these tests are not about it.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def roles(db: Any) -> None:
    # The data migration creates the groups, but transactional tests flush them.
    sync_roles()


def _member(username: str, role: Role | None) -> User:
    user = User.objects.create_user(
        username, f"{username}@example.com", "pw-" + username, is_staff=role is not None
    )
    user.first_name = username.replace("_", " ").title()
    user.save()
    if role is not None:
        user.groups.add(Group.objects.get(name=role.value))
    return user


@pytest.fixture
def writer(roles: None) -> User:
    return _member("wanda_writer", Role.WRITER)


@pytest.fixture
def fact_checker(roles: None) -> User:
    return _member("fiona_checker", Role.FACT_CHECKER)


@pytest.fixture
def editor(roles: None) -> User:
    return _member("ed_editor", Role.EDITOR)


@pytest.fixture
def second_editor(roles: None) -> User:
    return _member("eve_editor", Role.EDITOR)


@pytest.fixture
def admin_user(roles: None) -> User:
    return _member("ada_admin", Role.ADMIN)


@pytest.fixture
def outsider(roles: None) -> User:
    """Logged in, but in no role and not staff."""
    return _member("otto_outsider", None)


@pytest.fixture
def personas(
    writer: User, fact_checker: User, editor: User, admin_user: User, outsider: User
) -> dict[str, User | None]:
    return {
        "writer": writer,
        "fact_checker": fact_checker,
        "editor": editor,
        "admin": admin_user,
        "outsider": outsider,
        "anonymous": None,
    }


def client_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def ready_entry(make_entry: Callable[..., Entry], writer: User) -> Entry:
    """A draft that passes every publish gate: a healthy source confirmed today."""
    from glossary.publishing import save_version

    entry = make_entry("Interconnect", summary="The links that join AI chips.", created_by=writer)
    source = Source.objects.create(
        url="https://docs.example/interconnect", title="Interconnect explained", health="ok"
    )
    Citation.objects.create(
        entry=entry,
        source=source,
        note="Defines it.",
        # Yesterday: well inside the freshness window in any time zone.
        checked_on=datetime.date.today() - datetime.timedelta(days=1),
    )
    save_version(entry, user=writer, comment="First draft.")
    return entry


@pytest.fixture
def unsourced_entry(make_entry: Callable[..., Entry], writer: User) -> Entry:
    """A draft that fails the blocking "at least one source" gate."""
    from glossary.publishing import save_version

    entry = make_entry("Unsourced", summary="No sources yet.", created_by=writer)
    save_version(entry, user=writer, comment="First draft.")
    return entry
