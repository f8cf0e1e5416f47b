"""The people every test can be: one named user per role, and how to act as one."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from editorial.permissions import Role
from tests.factories import UserFactory

# The instant date-dependent tests run at (a Monday afternoon in New York).
NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)


def member(username: str, role: Role | None) -> User:
    """A staff user in `role` (or, with None, a signed-in outsider who is not staff) whose
    password is "pw-" and the username."""
    return UserFactory.create(username=username, role=role)


def client_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def reviewed(entry: Any) -> str:
    """The version number the publish form carries: the latest the editor was shown."""
    return str(entry.versions.order_by("-number").values_list("number", flat=True).first())
