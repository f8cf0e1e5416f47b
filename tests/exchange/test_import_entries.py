"""import_entries: an existing glossary arrives as drafts from CSV and Markdown files."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from glossary.models import Entry, Source

CSV = (
    "term,aliases,summary,tags,sources,body\n"
    "Scale-up fabric,NVLink domain; scale up,The tight network inside a rack.,"
    'networking; hardware,https://a.example/x Page title,"First paragraph.\n\n'
    'Second paragraph."\n'
    "HBM3,,Stacked memory.,memory,,\n"
)

MARKDOWN = """---
term: High bandwidth memory
aliases: [HBM, stacked DRAM]
summary: Memory stacked beside the chip.
tags:
  - memory
sources:
  - url: https://b.example/hbm
    title: The HBM standard
    note: Defines the stack.
  - https://a.example/x
---
HBM puts *memory* next to the processor.
"""


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_entries", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "entries.csv").write_text(CSV)
    (tmp_path / "hbm.md").write_text(MARKDOWN)
    return tmp_path


def test_csv_and_markdown_become_drafts_credited_to_the_named_person(
    folder: Path, writer: User
) -> None:
    out, err = run(str(folder), "--as", writer.username)
    assert err == ""
    assert "Created 3 drafts, credited to wanda_writer" in out
    fabric = Entry.objects.get(slug="scale-up-fabric")
    assert fabric.status == Entry.Status.DRAFT and fabric.live_version is None
    assert fabric.alias_list() == ["NVLink domain", "scale up"]
    assert fabric.body == "First paragraph.\n\nSecond paragraph."
    assert sorted(fabric.tags.names()) == ["hardware", "networking"]
    assert fabric.created_by == writer
    version = fabric.versions.get()
    assert version.created_by == writer
    assert version.comment == "Imported from entries.csv row 2."
    hbm = Entry.objects.get(slug="high-bandwidth-memory")
    assert hbm.alias_list() == ["HBM", "stacked DRAM"]
    assert hbm.body == "HBM puts *memory* next to the processor."
    cites = list(hbm.citations.order_by("order").select_related("source"))
    assert [c.source.url for c in cites] == ["https://b.example/hbm", "https://a.example/x"]
    assert cites[0].source.title == "The HBM standard" and cites[0].note == "Defines the stack."
    # One source row per URL, shared by both entries; nobody here has checked it yet.
    assert Source.objects.filter(url="https://a.example/x").count() == 1
    assert all(c.checked_on is None for c in cites)
    # Nothing imported is public.
    assert not Entry.objects.published().exists()


def test_dry_run_reports_what_it_would_create_and_every_row_it_cannot_read(
    folder: Path, writer: User, make_entry: Any
) -> None:
    make_entry("Interconnect", slug="interconnect")
    (folder / "more.csv").write_text(
        "term,summary,sources\n"
        ",no term,\n"
        "Bad source,x,notaurl\n"
        "Interconnect,already here,\n"
        f"Too long,{'x' * 400},\n"
        "Twice,a,https://c.example/ ; https://c.example/\n"
    )
    (folder / "broken.md").write_text("---\nterm: [unclosed\n---\nbody\n")
    (folder / "plain.md").write_text("Just text.\n")
    (folder / "typo.csv").write_text("term,sumary\nA,b\n")
    before = Entry.objects.count()
    out, err = run(str(folder), "--as", writer.username, "--dry-run")
    assert "Would create draft “Scale-up fabric” /glossary/scale-up-fabric/" in out
    assert "Would create draft “High bandwidth memory”" in out
    assert "Dry run: 3 drafts could be created, 8 rows or files cannot be read." in out
    for expected in (
        "more.csv row 2: term is empty",
        "more.csv row 3: source 'notaurl'",
        "more.csv row 4: an entry at /glossary/interconnect/ already exists",
        "more.csv row 5: summary is 400 characters",
        "more.csv row 6: source 'https://c.example/' is listed twice",
        "broken.md: the front matter is not YAML at line 2",
        "plain.md: no front matter",
        "typo.csv: unknown column 'sumary'",
    ):
        assert expected in err, expected
    assert Entry.objects.count() == before


def test_a_real_run_with_any_unreadable_row_creates_nothing(folder: Path, writer: User) -> None:
    (folder / "more.csv").write_text("term,summary\n,no term\n")
    with pytest.raises(CommandError, match="1 rows or files cannot be read"):
        run(str(folder), "--as", writer.username)
    assert not Entry.objects.exists() and not Source.objects.exists()


def test_two_rows_with_one_address_are_both_named(tmp_path: Path, writer: User) -> None:
    (tmp_path / "a.csv").write_text("term\nScale up\nScale-up\n")
    _, err = run(str(tmp_path / "a.csv"), "--as", writer.username, "--dry-run")
    assert "a.csv row 3: the address 'scale-up' is also used by a.csv row 2" in err


def test_the_person_must_exist(folder: Path, db: None) -> None:
    with pytest.raises(CommandError, match="No active user 'ghost'"):
        run(str(folder), "--as", "ghost")
