"""The people every test can be: one named user per role, and how to act as one."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth.models import Group, User
from django.test import Client

from editorial.permissions import Role

# The instant date-dependent tests run at (a Monday afternoon in New York).
NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)


def member(username: str, role: Role | None) -> User:
    """A staff user in `role` (or, with None, a signed-in outsider who is not staff)."""
    user = User.objects.create_user(
        username, f"{username}@example.com", "pw-" + username, is_staff=role is not None
    )
    user.first_name = username.replace("_", " ").title()
    user.save()
    if role is not None:
        user.groups.add(Group.objects.get(name=role.value))
    # A fresh instance: permission caches start empty.
    return User.objects.get(pk=user.pk)


def client_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def reviewed(entry: Any) -> str:
    """The version number the publish form carries: the latest the editor was shown."""
    return str(entry.versions.order_by("-number").values_list("number", flat=True).first())
