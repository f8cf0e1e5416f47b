"""Comment threads go out with export_glossary and come back with import_glossary, credited
and logged as they were; a file whose threads the desk could never have made is refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from editorial import comments
from editorial.models import Comment
from glossary.models import Entry
from tests.exchange.test_import_errors import empty_content, run_import, write


def _threads() -> list[tuple[Any, ...]]:
    return list(
        Comment.objects.order_by("pk").values_list(
            "pk",
            "entry__slug",
            "version__number",
            "parent",
            "field",
            "quote",
            "text",
            "author__username",
            "created_at",
            "edited_at",
            "resolved_at",
            "resolved_by__username",
        )
    )


@pytest.fixture
def exported(demo: Any, tmp_path: Path, writer: User, editor: User) -> dict[str, Any]:
    entry = Entry.objects.get(slug="interconnect")
    passage = entry.body.split(".")[0]
    thread = comments.start_thread(
        entry, user=editor, field="body", text="@wanda_writer which keynote?", quote=passage
    )
    comments.reply(thread, user=writer, text="Cisco Live.")
    comments.edit(thread, user=editor, text="@wanda_writer which keynote was it?")
    done = comments.start_thread(entry, user=writer, field="citations", text="Re-checked.")
    comments.resolve(done, user=editor)
    path = tmp_path / "export.json"
    call_command("export_glossary", str(path), "--no-progress")
    data: dict[str, Any] = json.loads(path.read_text())
    data["threads"] = _threads()
    data["logged"] = sorted(
        LogEntry.objects.filter(content_type__model="comment").values_list(
            "object_id", "user__username", "change_message"
        )
    )
    empty_content()
    User.objects.all().delete()
    return data


def test_threads_come_back_whole_credited_and_logged(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    data = copy.deepcopy(exported)
    threads, logged = data.pop("threads"), data.pop("logged")
    assert len(data["tables"]["comments"]) == 3

    run_import(write(tmp_path, data))

    assert [list(t) for t in _threads()] == [list(t) for t in threads]
    assert sorted(
        LogEntry.objects.filter(content_type__model="comment").values_list(
            "object_id", "user__username", "change_message"
        )
    ) == [tuple(row) for row in logged]


def _without_extras(data: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    data.pop("threads")
    data.pop("logged")
    return data


def test_a_comment_naming_another_entrys_version_is_refused(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    data = _without_extras(exported)
    comment = data["tables"]["comments"][0]
    other = next(v for v in data["tables"]["entry_versions"] if v["entry"] != comment["entry"])
    comment["version"] = other["id"]

    with pytest.raises(CommandError, match=r"\$\.tables\.comments\[0\]\.version.*names version"):
        run_import(write(tmp_path, data))
    assert not Comment.objects.exists()


def test_a_reply_to_a_reply_or_to_another_entry_is_refused(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    data = _without_extras(exported)
    root, reply, other = data["tables"]["comments"]
    other["parent"] = reply["id"]

    with pytest.raises(CommandError, match=r"comments\[2\]\.parent.*not the first comment"):
        run_import(write(tmp_path, data))
    assert not Comment.objects.exists()


def test_a_merge_leaves_the_other_desks_threads_out(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    data = _without_extras(exported)
    path = write(tmp_path, data)
    out = run_import(path, "--merge", "--dry-run")

    assert "comments: 3 not merged (the other desk's threads" in out
