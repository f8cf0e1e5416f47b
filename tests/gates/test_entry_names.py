"""The duplicate-name check at any size: each entry's names are rows of their own
(glossary.EntryName), kept in step with its term and aliases, and the check reads only
the rows that match, never every entry."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editorial import gates
from glossary.models import Entry, EntryName, name_keys


def stored(entry: Entry) -> set[str]:
    return set(EntryName.objects.filter(entry=entry).values_list("name", flat=True))


def test_names_are_folded_as_the_check_compares_them() -> None:
    assert name_keys("Straße", "  NV   link \n\nStrasse") == {"strasse", "nv link"}


def test_saving_an_entry_writes_its_names_and_only_when_they_change(
    make_entry: Callable[..., Entry],
) -> None:
    entry = make_entry("Interconnect", aliases="NVLink\nNV link")
    assert stored(entry) == {"interconnect", "nvlink", "nv link"}
    entry.aliases = "Fabric"
    entry.save()
    assert stored(entry) == {"interconnect", "fabric"}

    fresh = Entry.objects.get(pk=entry.pk)
    fresh.summary = "Changed."
    with CaptureQueriesContext(connection) as saved:
        fresh.save()
    assert not [q for q in saved.captured_queries if "glossary_entryname" in q["sql"]]

    fresh.term = "Chip fabric"
    fresh.save(update_fields=["term"])
    assert stored(fresh) == {"chip fabric", "fabric"}
    fresh.delete()
    assert not EntryName.objects.filter(entry_id=entry.pk).exists()


def test_a_renamed_entry_is_no_longer_a_duplicate(make_entry: Callable[..., Entry]) -> None:
    first = make_entry("Interconnect")
    second = make_entry("NVLink", aliases="interconnect")
    assert gates.duplicate_names(second) == [("interconnect", "Interconnect")]
    first.term = "Fabric"
    first.save()
    assert gates.duplicate_names(second) == []


def test_an_unsaved_name_is_checked_against_the_others(make_entry: Callable[..., Entry]) -> None:
    make_entry("Interconnect")
    draft = make_entry("Chiplet")
    draft.aliases = "Inter connect"  # a form's values, not yet saved
    assert gates.duplicate_names(draft) == []
    draft.aliases = "Fabric\n  INTERCONNECT "
    assert gates.duplicate_names(draft) == [("interconnect", "Interconnect")]


def test_an_archived_entry_is_not_a_duplicate(make_entry: Callable[..., Entry]) -> None:
    make_entry("Interconnect", status=Entry.Status.ARCHIVED)
    assert gates.duplicate_names(make_entry("Interconnect")) == []


def test_the_check_reads_only_the_matching_names_at_size(
    make_entry: Callable[..., Entry],
) -> None:
    others = Entry.objects.bulk_create(
        Entry(term=f"Other {n}", slug=f"other-{n}", aliases=f"alias {n}") for n in range(2_000)
    )
    EntryName.write(others, fresh=True)
    entry = make_entry("Widget", aliases="Other 7")
    rows: list[Any] = []

    def keep(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        result = execute(sql, params, many, context)
        if "glossary_entryname" in sql:
            rows.append(sql)
        return result

    with connection.execute_wrapper(keep):
        assert gates.duplicate_names(entry) == [("other 7", "Other 7")]
    assert len(rows) == 1
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE glossary_entryname")
            sql, params = (
                EntryName.objects.filter(name__in=sorted(entry.name_keys()))
                .values_list("entry_id")
                .query.sql_with_params()
            )
            cursor.execute("EXPLAIN " + sql, params)
            plan = " ".join(row[0] for row in cursor.fetchall())
        assert "Seq Scan" not in plan, plan


def test_the_migration_writes_the_names_of_the_entries_kept(
    make_entry: Callable[..., Entry],
) -> None:
    entry = make_entry("Interconnect", aliases="NVLink")
    EntryName.objects.all().delete()
    migration = importlib.import_module("glossary.migrations.0019_entry_names")
    migration.write_names(apps, None)
    assert stored(entry) == {"interconnect", "nvlink"}


def test_names_changed_elsewhere_then_changed_back_are_written(
    make_entry: Callable[..., Entry],
) -> None:
    entry = make_entry("Interconnect")
    elsewhere = Entry.objects.get(pk=entry.pk)  # another editor's copy
    elsewhere.term = "Fabric"
    elsewhere.save()
    entry.refresh_from_db()
    entry.term = "Interconnect"
    entry.save()
    assert stored(entry) == {"interconnect"}
    entry.refresh_from_db(fields=["term"])  # only part of the names reread
    entry.save()
    assert stored(entry) == {"interconnect"}
