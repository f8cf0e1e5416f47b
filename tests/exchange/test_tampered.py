"""An export is as trusted as a database dump, and no more: an import refuses a live version
the desk could never have made live, and what readers get is derived again from each live
version's document, never taken from the file's rendered page or API answer."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from glossary.models import Entry, EntryVersion, PublicRecord, Source
from glossary.publishing import save_version
from tests.exchange.test_import_errors import empty_content, run_import, write

TAMPERED = "<p>TAMPERED</p>"


@pytest.fixture
def exported(demo: Any, tmp_path: Path, writer: User) -> dict[str, Any]:
    """The demo, with a draft version of the interconnect entry saved after its live one."""
    entry = Entry.objects.get(slug="interconnect")
    save_version(entry, user=writer, comment="A draft nobody approved.")
    path = tmp_path / "export.json"
    call_command("export_glossary", str(path), "--no-progress")
    data: dict[str, Any] = json.loads(path.read_text())
    empty_content()
    User.objects.all().delete()
    return data


def _entry(data: dict[str, Any], slug: str) -> dict[str, Any]:
    return next(e for e in data["tables"]["entries"] if e["slug"] == slug)


def _versions(data: dict[str, Any], entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [v for v in data["tables"]["entry_versions"] if v["entry"] == entry["id"]]


def _nothing_saved() -> None:
    assert not Entry.objects.exists()
    assert not EntryVersion.objects.exists()
    assert not Source.objects.exists()
    assert not User.objects.exists()


def test_a_live_version_that_was_never_published_is_refused(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    data = copy.deepcopy(exported)
    entry = _entry(data, "interconnect")
    draft = next(v for v in _versions(data, entry) if v["published_at"] is None)
    entry["live_version"] = draft["id"]
    entry["status"] = "published"
    draft["rendered_html"] += TAMPERED
    where = f"$.tables.entries[{data['tables']['entries'].index(entry)}].live_version"
    with pytest.raises(CommandError) as info:
        run_import(write(tmp_path, data))
    message = str(info.value)
    assert "Nothing was imported" in message
    assert where in message
    assert "'interconnect'" in message and f"version {draft['number']}" in message
    assert "never published" in message
    _nothing_saved()


def test_a_dry_run_refuses_it_too(exported: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(exported)
    entry = _entry(data, "interconnect")
    draft = next(v for v in _versions(data, entry) if v["published_at"] is None)
    entry["live_version"] = draft["id"]
    with pytest.raises(CommandError, match="never published"):
        run_import(write(tmp_path, data), "--dry-run")
    _nothing_saved()


def test_a_live_version_of_another_entry_is_refused(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    data = copy.deepcopy(exported)
    entry = _entry(data, "interconnect")
    other = next(
        e for e in data["tables"]["entries"] if e["live_version"] and e["id"] != entry["id"]
    )
    # The other entry's published version, made interconnect's; the other is withdrawn.
    stolen = next(v for v in data["tables"]["entry_versions"] if v["id"] == other["live_version"])
    other["live_version"] = None
    entry["live_version"] = stolen["id"]
    with pytest.raises(CommandError) as info:
        run_import(write(tmp_path, data))
    message = str(info.value)
    assert "'interconnect'" in message and f"version {stolen['number']}" in message
    assert f"'{other['slug']}'" in message and "another entry" in message
    _nothing_saved()


def test_tampered_rendered_html_and_api_json_never_reach_readers(
    exported: dict[str, Any], tmp_path: Path, settings: Any
) -> None:
    settings.PUBLIC_PAGE_CACHE = False
    data = copy.deepcopy(exported)
    entry = _entry(data, "interconnect")
    live = next(v for v in data["tables"]["entry_versions"] if v["id"] == entry["live_version"])
    assert live["published_at"] is not None
    live["rendered_html"] = live["rendered_html"].replace("</p>", f"</p>{TAMPERED}", 1)
    assert TAMPERED in live["rendered_html"]
    live["api_json"] = live["api_json"].replace('"summary":"', '"summary":"TAMPERED ', 1)
    assert "TAMPERED" in live["api_json"]
    # A public record (what a person's page says) edited in the file too.
    record = next(r for r in data["tables"]["public_records"] if r["kind"] == "person")
    assert record["data"]["name"]
    record["data"] = {**record["data"], "name": "TAMPERED"}

    run_import(write(tmp_path, data))

    client = Client()
    page = client.get("/glossary/interconnect/")
    assert page.status_code == 200
    assert b"TAMPERED" not in page.content
    answer = client.get("/api/v1/entries/interconnect/")
    assert answer.status_code == 200
    assert b"TAMPERED" not in answer.content
    stored = EntryVersion.objects.get(pk=live["id"])
    assert "TAMPERED" not in stored.rendered_html and "TAMPERED" not in stored.api_json
    assert not PublicRecord.objects.filter(data__name="TAMPERED").exists()
