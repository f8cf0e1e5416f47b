"""Hostile files through import_glossary and import_entries: nesting past the parser's
recursion, parser failures outside its own error type, and NUL (which PostgreSQL text
cannot store) end in a CommandError naming the place, never a traceback, and nothing
is saved."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError

from glossary.models import Entry, EntryVersion, Source
from tests.exchange.test_import_entries import run
from tests.exchange.test_import_errors import empty_content, exported, run_import, write

__all__ = ["exported"]  # the fixture, shared with test_import_errors


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"format":\n' + "[" * 100_000, '{"a": ' + "9" * 5000 + "}"],
)
def test_a_file_the_json_parser_cannot_read_is_a_command_error(
    text: str, tmp_path: Path, db: None
) -> None:
    with pytest.raises(CommandError) as info:
        run_import(write(tmp_path, text))
    message = str(info.value)
    assert message.startswith("Nothing was imported.")
    assert "is not JSON we can read:" in message
    assert ("nested too deeply" in message) or ("Exceeds the limit" in message)


def test_nesting_the_parser_reads_but_nothing_downstream_could_is_refused(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    empty_content()
    User.objects.all().delete()
    data = copy.deepcopy(exported)
    deep: Any = "x"
    for _ in range(900):
        deep = [deep]
    data["tables"]["entry_versions"][0]["data"]["summary"] = deep
    with pytest.raises(CommandError, match="nested too deeply"):
        run_import(write(tmp_path, data))
    assert not Entry.objects.exists() and not User.objects.exists()


def test_nul_anywhere_in_the_file_is_refused_naming_the_place(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    empty_content()
    User.objects.all().delete()
    data = copy.deepcopy(exported)
    data["tables"]["entries"][1]["body"] = "hi\x00there"
    with pytest.raises(CommandError) as info:
        run_import(write(tmp_path, data))
    assert "$.tables.entries[1].body: holds the character U+0000 (NUL)" in str(info.value)
    data = copy.deepcopy(exported)
    data["tables"]["entry_versions"][0]["data"]["summary"] = "hi\x00there"
    with pytest.raises(CommandError, match=r"\$\.tables\.entry_versions\[0\]\.data\.summary"):
        run_import(write(tmp_path, data))
    assert not Entry.objects.exists() and not EntryVersion.objects.exists()
    assert not User.objects.exists()


FRONT = "---\nterm: Nested\nsummary: {}\n---\nBody.\n"


@pytest.mark.parametrize(
    ("front", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "the front matter is nested too deeply"),
        ("2025-02-30", "the front matter has a value YAML cannot read: day is out of range"),
        ("!!int " + "1" * 5000, "the front matter has a value YAML cannot read: Exceeds"),
        ("!!timestamp x", "the front matter has a value YAML cannot read"),
    ],
)
def test_front_matter_yaml_cannot_read_is_reported_not_raised(
    tmp_path: Path, writer: User, front: str, reason: str
) -> None:
    (tmp_path / "bad.md").write_text(FRONT.format(front))
    with pytest.raises(CommandError, match="nothing was created"):
        run(str(tmp_path), "--as", writer.username)
    _, err = run(str(tmp_path), "--as", writer.username, "--dry-run")
    assert f"Cannot read bad.md: {reason}" in err
    assert not Entry.objects.exists()


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        (
            "nul.csv",
            "term,summary\nFine,ok\nBad,hi\x00there\n",
            "nul.csv line 3: the control character U+0000 (NUL) cannot be stored",
        ),
        (
            "nul.md",
            "---\nterm: Bad\n---\nFirst line.\nhi\x00there\n",
            "nul.md line 5: the control character U+0000 (NUL) cannot be stored",
        ),
        (
            "esc.md",
            '---\nterm: "Bad\\0term"\n---\nBody.\n',
            "esc.md: term holds the control character U+0000 (NUL), which cannot be stored",
        ),
        (
            "bell.csv",
            "term,summary\nBell,ring\x07\n",
            "bell.csv line 2: the control character U+0007 cannot be stored",
        ),
    ],
)
def test_import_entries_refuses_control_characters_naming_the_line(
    tmp_path: Path, writer: User, name: str, text: str, problem: str
) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(CommandError, match="nothing was created"):
        run(str(tmp_path), "--as", writer.username)
    _, err = run(str(tmp_path), "--as", writer.username, "--dry-run")
    assert f"Cannot read {problem}" in err
    assert not Entry.objects.exists() and not Source.objects.exists()
