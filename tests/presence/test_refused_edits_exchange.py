"""Refused edits go out with export_glossary and come back with import_glossary, their
author's and whole (one of a deleted entry too); presence marks are left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management import call_command

from editorial import exchange, presence, refused
from editorial.models import EditingPresence, RefusedEdit
from glossary.models import Entry
from tests.exchange.test_import_errors import empty_content, run_import, write


def _kept() -> list[tuple[Any, ...]]:
    return list(
        RefusedEdit.objects.order_by("pk").values_list(
            "pk",
            "entry__slug",
            "term",
            "author__username",
            "saved_by__username",
            "refused_at",
            "opened_version",
            "conflicting_version",
            "data",
        )
    )


def test_refused_edits_come_back_whole_and_presence_stays_behind(
    demo: Any, tmp_path: Path, writer: User, editor: User
) -> None:
    entry = Entry.objects.get(slug="interconnect")
    refused.keep(
        entry,
        author=editor,
        submitted={"summary": ["Ed's <sharper> summary."], "citations-0-note": ["A note."]},
        opened_version=1,
        conflicting_version=2,
        saved_by=writer,
    )
    gone = refused.keep(
        entry,
        author=writer,
        submitted={"body": ["Lost?"]},
        opened_version=None,
        conflicting_version=None,
        saved_by=None,
    )
    RefusedEdit.objects.filter(pk=gone.pk).update(entry=None, term="A deleted entry")
    presence.mark(entry, writer)
    before = _kept()
    path = tmp_path / "export.json"
    call_command("export_glossary", str(path), "--no-progress")
    data = json.loads(path.read_text())
    assert len(data["tables"]["refused_edits"]) == 2
    assert "editorial.EditingPresence" in exchange.NOT_EXPORTED
    empty_content()
    EditingPresence.objects.all().delete()
    User.objects.all().delete()

    run_import(write(tmp_path, data))

    assert _kept() == before
    assert not EditingPresence.objects.exists()
