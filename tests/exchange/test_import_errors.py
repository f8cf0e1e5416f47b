"""A bad file is refused with the place it went wrong, and nothing is saved; a database
with content is refused unless --merge, which adds only what is missing."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection

from editorial import exchange, gates
from editorial.models import WorkflowEvent
from glossary.models import Entry, EntryVersion, Person, PublicRecord, Source


@pytest.fixture
def exported(demo: Any, tmp_path: Path, writer: User) -> dict[str, Any]:
    Entry.objects.filter(slug="interconnect").update(created_by=writer)
    path = tmp_path / "export.json"
    call_command("export_glossary", str(path), "--no-progress")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def empty_content() -> None:
    with connection.cursor():
        # Versions go before their entries, and a live version never goes on its own.
        Entry._base_manager.update(live_version=None)
        for table in reversed(exchange.TABLES):
            table.model._base_manager.all().delete()


def write(tmp_path: Path, data: Any, name: str = "in.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def run_import(path: str, *args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command("import_glossary", path, "--no-progress", *args, stdout=out)
    return out.getvalue()


def test_the_format_is_named_and_versioned_and_has_every_table(exported: dict[str, Any]) -> None:
    assert exported["format"] == "glossary-desk-export"
    assert exported["format_version"] == 1
    assert list(exported["tables"]) == [t.name for t in exchange.TABLES]
    # The demo's own accounts are in it: the demo's history is theirs (its writer saved and
    # submitted, its editor published through the workflow).
    users = {u["username"]: u for u in exported["users"]}
    assert list(users) == ["demo-writer", "demo-editor", "wanda_writer"]
    assert users["wanda_writer"]["roles"] == ["writer"]
    assert users["demo-editor"]["roles"] == ["editor"]
    assert not any("password" in u for u in exported["users"])
    entry = next(e for e in exported["tables"]["entries"] if e["slug"] == "interconnect")
    assert entry["created_by"] == "wanda_writer"
    version = exported["tables"]["entry_versions"][0]
    assert isinstance(version["sources"], list) and isinstance(version["data"], dict)


def test_every_model_is_exported_or_deliberately_left_out() -> None:
    from django.apps import apps

    exported = {t.model for t in exchange.TABLES}
    for model in apps.get_models():
        if model._meta.app_label in ("glossary", "editorial"):
            label = f"{model._meta.app_label}.{model.__name__}"
            assert model in exported or label in exchange.NOT_EXPORTED, label


@pytest.mark.parametrize(
    ("damage", "where"),
    [
        (lambda d: d["tables"]["citations"][0].update(source=9999), "$.tables.citations[0].source"),
        (lambda d: d["tables"]["entries"][1].update(status="gone"), "$.tables.entries[1].status"),
        (lambda d: d["tables"]["entries"][2].pop("term"), "$.tables.entries[2].term"),
        (
            lambda d: d["tables"]["entries"][0].update(created_by="nobody"),
            "$.tables.entries[0].created_by",
        ),
        (
            lambda d: d["tables"]["entry_versions"][0].update(episodes=[77]),
            "$.tables.entry_versions[0].episodes[0]",
        ),
        (
            lambda d: d["tables"]["sources"][0].update(created_at="yesterday"),
            "$.tables.sources[0].created_at",
        ),
        (
            lambda d: d["tables"]["people"][1].update(id=d["tables"]["people"][0]["id"]),
            "$.tables.people[1].id",
        ),
        (lambda d: d.update(format_version=2), "$.format_version"),
        (lambda d: d["users"][0].update(password="x"), "$.users[0].password"),
    ],
)
def test_a_bad_file_names_where_and_saves_nothing(
    exported: dict[str, Any], tmp_path: Path, damage: Any, where: str
) -> None:
    empty_content()
    User.objects.all().delete()
    data = copy.deepcopy(exported)
    damage(data)
    with pytest.raises(CommandError) as info:
        run_import(write(tmp_path, data))
    assert where in str(info.value)
    assert "Nothing was imported" in str(info.value)
    assert not Entry.objects.exists() and not Source.objects.exists()
    assert not User.objects.exists()


def test_a_file_that_is_not_json_names_the_line(tmp_path: Path, db: None) -> None:
    with pytest.raises(CommandError, match=r"line 2, column"):
        run_import(write(tmp_path, '{"format":\n  nope}'))


def test_a_database_failure_midway_leaves_nothing(exported: dict[str, Any], tmp_path: Path) -> None:
    empty_content()
    data = copy.deepcopy(exported)
    # Two entries with one address pass the file checks but not the database's.
    data["tables"]["entries"][1]["slug"] = data["tables"]["entries"][0]["slug"]
    with pytest.raises(Exception):  # noqa: B017, PT011 (the database's own error)
        run_import(write(tmp_path, data))
    assert not Entry.objects.exists() and not Person.objects.exists()


def test_a_database_with_content_is_refused(exported: dict[str, Any], tmp_path: Path) -> None:
    before = Entry.objects.count()
    with pytest.raises(CommandError, match="not empty"):
        run_import(write(tmp_path, exported))
    assert Entry.objects.count() == before


def test_merge_dry_run_says_what_it_would_add_and_adds_nothing(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    data = copy.deepcopy(exported)
    extra = copy.deepcopy(next(e for e in data["tables"]["entries"] if e["slug"] == "interconnect"))
    extra.update(id=900, slug="imported-term", term="Imported term", live_version=None)
    data["tables"]["entries"].append(extra)
    citation = copy.deepcopy(data["tables"]["citations"][0])
    citation.update(id=900, entry=900)
    data["tables"]["citations"].append(citation)
    path = write(tmp_path, data)
    entries, versions = Entry.objects.count(), EntryVersion.objects.count()

    out = run_import(path, "--merge", "--dry-run")
    assert "entries added as drafts: imported-term" in out
    assert "entries: add 1, keep 13 already here" in out
    assert "citations: add 1" in out
    assert f"entry_versions: {len(exported['tables']['entry_versions'])} not merged" in out
    assert Entry.objects.count() == entries

    records = PublicRecord.objects.count()
    run_import(path, "--merge")
    assert Entry.objects.count() == entries + 1
    added = Entry.objects.get(slug="imported-term")
    assert added.status == Entry.Status.DRAFT and added.live_version is None
    assert (
        added.citations.get().source.url
        == Source.objects.get(pk=added.citations.get().source_id).url
    )
    assert Source.objects.count() == len(data["tables"]["sources"])  # matched by URL
    # Nothing readers see changed; no history was copied. Its text is saved here, credited
    # to whoever the file says wrote it (tests/workflow/test_authors_are_kept.py).
    assert EntryVersion.objects.exclude(entry=added).count() == versions
    named = {extra["created_by"], extra["updated_by"]} - {None}
    assert set(added.versions.values_list("created_by__username", flat=True)) == named
    assert PublicRecord.objects.count() == records
    assert not WorkflowEvent.objects.filter(entry=added).exists()
    # Its names are kept, as a saved entry's are: a second "Imported term" is a duplicate.
    assert gates.duplicate_names(Entry(term="IMPORTED  term")) == [
        ("imported term", "Imported term")
    ]


def test_both_commands_draw_progress_on_stderr(exported: dict[str, Any], tmp_path: Path) -> None:
    from io import StringIO

    err = StringIO()
    call_command("export_glossary", str(tmp_path / "again.json"), stdout=StringIO(), stderr=err)
    assert "entries" in err.getvalue() and "13/13" in err.getvalue()
    empty_content()
    err = StringIO()
    call_command("import_glossary", str(tmp_path / "again.json"), stdout=StringIO(), stderr=err)
    lines = err.getvalue().splitlines()
    assert any(line.startswith("checking entries") and "13/13" in line for line in lines)
    versions = len(exported["tables"]["entry_versions"])
    assert any(
        line.startswith("entry_versions") and f"{versions}/{versions}" in line for line in lines
    )


def test_rows_made_after_an_import_get_new_ids(exported: dict[str, Any], tmp_path: Path) -> None:
    empty_content()
    run_import(write(tmp_path, exported))
    top = max(e["id"] for e in exported["tables"]["entries"])
    made = Entry.objects.create(term="After", slug="after")
    assert made.pk > top


def test_an_import_keeps_every_entrys_names(exported: dict[str, Any], tmp_path: Path) -> None:
    empty_content()
    run_import(write(tmp_path, exported))
    for entry in Entry.objects.all():
        assert set(entry.name_rows.values_list("name", flat=True)) == entry.name_keys()
    assert gates.duplicate_names(Entry(term="Interconnect")) == [("interconnect", "Interconnect")]
