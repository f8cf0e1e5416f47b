"""glossary 0010: stored versions get the citation fields a document now has, and lose them
when the migration is reversed."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from glossary import document
from glossary.models import EntryVersion

migration = importlib.import_module("glossary.migrations.0010_source_texts")

pytestmark = pytest.mark.django_db

NEW_KEYS = {"excerpt", "excerpt_on", "source_changed"}


def test_a_version_saved_before_the_excerpt_compares_equal_to_the_same_working_copy(
    ready_entry,
) -> None:
    version = EntryVersion.objects.get(entry=ready_entry)
    old = version.data
    for citation in old["citations"]:
        for key in NEW_KEYS:
            del citation[key]
    EntryVersion.objects.filter(pk=version.pk).update(data=old)
    migration.fill_citation_fields(apps, None)
    version.refresh_from_db()
    assert version.data == document.build(ready_entry).dump()
    migration.drop_citation_fields(apps, None)
    version.refresh_from_db()
    assert all(NEW_KEYS.isdisjoint(c) for c in version.data["citations"])
