"""Two shows, each with an episode and an entry, and people on one show's team or both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from editorial.models import ShowMembership
from editorial.permissions import Role
from glossary.models import Entry, Episode, Show
from tests.factories import EpisodeFactory, ShowFactory
from tests.personas import member


def staff(username: str) -> User:
    """A staff account in no group: what it may do comes from its show teams alone."""
    user = member(username, None)
    user.is_staff = True
    user.save()
    return User.objects.get(pk=user.pk)


def on_team(user: User, show: Show, role: str) -> User:
    """`user` put on `show`'s team in `role`, read again so no cache remembers before."""
    ShowMembership.objects.create(user=user, show=show, role=role)
    return User.objects.get(pk=user.pk)


@pytest.fixture
def alpha(db: Any) -> Show:
    return ShowFactory.create(name="Alpha Hour", slug="alpha-hour")


@pytest.fixture
def beta(db: Any) -> Show:
    return ShowFactory.create(name="Beta Talk", slug="beta-talk")


@pytest.fixture
def alpha_episode(alpha: Show) -> Episode:
    return EpisodeFactory.create(show=alpha, number=1, title="Alpha Hour 1")


@pytest.fixture
def beta_episode(beta: Show) -> Episode:
    return EpisodeFactory.create(show=beta, number=2, title="Beta Talk 2")


@pytest.fixture
def alpha_entry(make_entry: Callable[..., Entry], alpha: Show) -> Entry:
    return make_entry("Alpha term", show=alpha)


@pytest.fixture
def beta_entry(make_entry: Callable[..., Entry], beta: Show) -> Entry:
    return make_entry("Beta term", show=beta)


@pytest.fixture
def network_entry(make_entry: Callable[..., Entry], alpha: Show, beta: Show) -> Entry:
    return make_entry("Network term")


@pytest.fixture
def alpha_writer(roles: None, alpha: Show) -> User:
    """A writer on Alpha's team only."""
    return on_team(staff("alma_writer"), alpha, Role.WRITER)


@pytest.fixture
def alpha_editor(roles: None, alpha: Show) -> User:
    return on_team(staff("alex_editor"), alpha, Role.EDITOR)


@pytest.fixture
def alpha_editor2(roles: None, alpha: Show) -> User:
    return on_team(staff("abby_editor"), alpha, Role.EDITOR)


@pytest.fixture
def alpha_checker(roles: None, alpha: Show) -> User:
    return on_team(staff("axel_checker"), alpha, Role.FACT_CHECKER)
