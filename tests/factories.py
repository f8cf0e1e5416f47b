"""factory_boy factories for the rows tests build most: `EntryFactory.create()` is a plain draft,
`ReadyEntryFactory.create(created_by=writer)` one the writer wrote that passes every blocking
publish check, `UserFactory.create(role=Role.EDITOR)` a member of the desk (`.create`, typed,
rather than calling the class). The fixtures in tests/conftest.py
(`make_entry`, `make_source`, `make_ready_entry`, `show`, `episode`, `person`) call these.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth.models import Group, User
from factory.declarations import (
    LazyAttribute,
    LazyAttributeSequence,
    LazyFunction,
    Sequence,
    SubFactory,
)
from factory.django import DjangoModelFactory

from editorial import workflow
from editorial.permissions import Role
from glossary.models import Citation, Entry, Episode, Person, Show, Source
from glossary.publishing import save_version


class ShowFactory(DjangoModelFactory[Show]):
    class Meta:
        model = Show

    name = Sequence(lambda n: f"Show {n}")
    slug = Sequence(lambda n: f"show-{n}")


class EpisodeFactory(DjangoModelFactory[Episode]):
    class Meta:
        model = Episode

    show = SubFactory(ShowFactory)
    season = 1
    number = Sequence(lambda n: n + 1)
    title = LazyAttribute(lambda o: f"Episode {o.number}")
    duration = 3600
    url = LazyAttribute(lambda o: f"https://podcast.example/{o.number}")


class PersonFactory(DjangoModelFactory[Person]):
    class Meta:
        model = Person

    name = Sequence(lambda n: f"Guest {n}")
    slug = Sequence(lambda n: f"guest-{n}")


class SourceFactory(DjangoModelFactory[Source]):
    class Meta:
        model = Source

    url = Sequence(lambda n: f"https://docs.example/{n}")
    title = Sequence(lambda n: f"Source {n}")


class EntryFactory(DjangoModelFactory[Entry]):
    """A draft with a term, summary and body; its address carries the sequence number, so
    two entries with one term still differ."""

    class Meta:
        model = Entry

    term = Sequence(lambda n: f"Term {n}")
    slug = LazyAttributeSequence(lambda o, n: f"term-{n}-{o.term.lower().replace(' ', '-')}"[:200])
    summary = LazyAttribute(lambda o: f"Summary of {o.term}.")
    body = LazyAttribute(lambda o: f"{o.term} is explained here.")


class UserFactory(DjangoModelFactory[User]):
    """A staff member in `role` (with None, a signed-in outsider who is not staff) whose
    password is "pw-" and the username, and whose first name is the username spelled out.
    The roles' groups must exist (`sync_roles`, the `roles` fixture)."""

    class Meta:
        model = User

    username = Sequence(lambda n: f"user_{n}")
    email = LazyAttribute(lambda o: f"{o.username}@example.com")
    first_name = LazyAttribute(lambda o: o.username.replace("_", " ").title())
    password = LazyAttribute(lambda o: "pw-" + o.username)
    role: Role | None = Role.WRITER

    @classmethod
    def _create(cls, model_class: type[User], *args: Any, **kwargs: Any) -> User:
        role = kwargs.pop("role")
        user = model_class.objects.create_user(*args, is_staff=role is not None, **kwargs)
        if role is not None:
            user.groups.add(Group.objects.get(name=role.value))
        # A fresh instance: permission caches start empty.
        return model_class.objects.get(pk=user.pk)


class CitationFactory(DjangoModelFactory[Citation]):
    class Meta:
        model = Citation

    entry = SubFactory(EntryFactory)
    source = SubFactory(SourceFactory, health=Source.Health.OK)
    note = "Defines it."
    checked_on = LazyFunction(lambda: datetime.date.today() - datetime.timedelta(days=1))


class ReadyEntryFactory(EntryFactory):
    """An entry its author (`created_by`) wrote that passes every blocking publish check:
    it cites a healthy source confirmed yesterday (inside the freshness window in any time
    zone) or on `checked_on`, and is saved as a version credited to its author; with
    `in_review` the author has also submitted it."""

    summary = LazyAttribute(lambda _: "The links that join AI chips.")
    created_by = SubFactory(UserFactory, role=Role.WRITER)
    checked_on: datetime.date | None = None
    in_review = False

    @classmethod
    def _create(
        cls,
        model_class: type[Entry],
        *args: Any,
        checked_on: datetime.date | None,
        in_review: bool,
        **kwargs: Any,
    ) -> Entry:
        entry = super()._create(model_class, *args, **kwargs)
        author = entry.created_by
        CitationFactory.create(entry=entry, **({"checked_on": checked_on} if checked_on else {}))
        save_version(entry, user=author, comment="First draft.")
        if in_review:
            workflow.submit_for_review(entry, user=author)
        return entry
