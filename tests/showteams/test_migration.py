"""glossary 0038: a single show's entries become its own; with two shows nothing is guessed."""

from __future__ import annotations

import importlib

from django.apps import apps

from editorial import workflow
from glossary.models import Entry, Show

migration = importlib.import_module("glossary.migrations.0038_a_single_shows_entries_are_its")


def test_with_one_show_every_entry_without_a_show_gets_it(make_entry, alpha, client):
    entries = [make_entry(f"Loose {n}") for n in range(3)]
    migration.give_entries_the_only_show(apps, None)
    assert {e.show_id for e in Entry.objects.filter(pk__in=[e.pk for e in entries])} == {alpha.pk}


def test_with_two_shows_entries_stay_the_whole_networks(make_entry, alpha, beta):
    loose = make_entry("Loose")
    filed = make_entry("Filed", show=beta)
    migration.give_entries_the_only_show(apps, None)
    loose.refresh_from_db()
    filed.refresh_from_db()
    assert loose.show_id is None
    assert filed.show_id == beta.pk


def test_with_no_show_nothing_changes(make_entry):
    loose = make_entry("Loose")
    migration.give_entries_the_only_show(apps, None)
    loose.refresh_from_db()
    assert loose.show_id is None
    assert not Show.objects.exists()


def test_filling_the_show_changes_nothing_readers_see(entry_in_review, editor, alpha, client):
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    Entry.objects.filter(pk=entry.pk).update(show=None)
    before = client.get(entry.get_absolute_url()).content
    live = Entry.objects.get(pk=entry.pk).live_version_id
    migration.give_entries_the_only_show(apps, None)
    entry.refresh_from_db()
    assert entry.show_id == alpha.pk
    assert entry.live_version_id == live
    assert not Entry.objects.get(pk=entry.pk).has_unpublished_changes
    assert client.get(entry.get_absolute_url()).content == before
