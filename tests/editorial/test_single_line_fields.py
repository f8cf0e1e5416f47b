"""Single-line fields (terms, summaries, names, titles): no line breaks, no silent cuts.

A line break in a term reached the page title, the Atom feed and email subjects
("Hdr Test\\r\\nBcc: …"); a browser cut a long pasted summary at the input's
`maxlength` without a word. Each door that writes these fields refuses both with a
field error: the admin's forms, `import_entries` and `import_glossary`.
"""

from __future__ import annotations

import copy
import importlib
import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from taggit.models import Tag

from editorial import workflow
from glossary.models import Entry, Person, SeeAlso, Show, Source
from tests.editorial.test_entry_admin import add_form, inline_management

pytestmark = pytest.mark.django_db

INJECTED = "Hdr Test\r\nBcc: everyone@example.com"


@pytest.fixture
def staff_client(client: Client, superuser: User) -> Client:
    client.force_login(superuser)
    return client


def input_named(page: str, name: str) -> str:
    found = re.search(rf'<(?:input|textarea)[^>]*name="{name}"[^>]*>', page)
    assert found is not None, name
    return found.group(0)


def test_the_entry_form_refuses_a_term_with_a_line_break_and_keeps_what_was_typed(
    staff_client: Client,
) -> None:
    response = staff_client.post("/admin/glossary/entry/add/", add_form(term=INJECTED))
    assert response.status_code == 200
    page = response.content.decode()
    assert "This field must be one line: remove the line break" in page
    assert "Typed body that must survive." in page
    assert "Bcc: everyone@example.com" in input_named(page, "term")
    assert not Entry.objects.exists()


def test_the_entry_form_refuses_a_summary_with_a_line_break(staff_client: Client) -> None:
    data = add_form(summary="First line.\nSecond line.")
    page = staff_client.post("/admin/glossary/entry/add/", data).content.decode()
    assert "This field must be one line" in page
    assert not Entry.objects.exists()


def test_a_long_summary_is_refused_with_its_length_and_kept_in_full(
    staff_client: Client,
) -> None:
    limit = settings.SUMMARY_MAX_LENGTH
    typed = "word " * (limit // 5) + "and the end the browser used to cut off"
    page = staff_client.post("/admin/glossary/entry/add/", add_form(summary=typed)).content.decode()
    assert (
        f"Ensure this value has at most {limit} characters (it has {len(typed.strip())})." in page
    )
    assert "and the end the browser used to cut off</textarea>" in page
    assert not Entry.objects.exists()


def test_a_long_term_is_refused_with_its_length(staff_client: Client) -> None:
    typed = "T" * 250
    page = staff_client.post("/admin/glossary/entry/add/", add_form(term=typed)).content.decode()
    assert "Ensure this value has at most 200 characters (it has 250)." in page
    assert f'value="{typed}"' in input_named(page, "term")


def test_no_single_line_input_lets_the_browser_cut_what_is_pasted(staff_client: Client) -> None:
    page = staff_client.get("/admin/glossary/entry/add/").content.decode()
    for name in ("term", "summary"):
        assert "maxlength" not in input_named(page, name), name
    show_page = staff_client.get("/admin/glossary/show/add/").content.decode()
    assert "maxlength" not in input_named(show_page, "name")


def test_the_show_form_refuses_a_name_with_a_line_break_or_too_long(
    staff_client: Client,
) -> None:
    base = {"slug": "the-show", "deep_link_style": "fragment"}
    page = staff_client.post(
        "/admin/glossary/show/add/", {**base, "name": "The Show\r\nBcc: x@example.com"}
    ).content.decode()
    assert "This field must be one line" in page
    page = staff_client.post(
        "/admin/glossary/show/add/", {**base, "name": "S" * 201}
    ).content.decode()
    assert "Ensure this value has at most 200 characters (it has 201)." in page
    assert not Show.objects.exists()


def test_a_new_source_title_typed_in_a_citation_is_one_line(staff_client: Client) -> None:
    data = add_form(
        **inline_management("citations", total=1),
        **{
            "citations-0-order": "1",
            "citations-0-new_url": "https://docs.example/new",
            "citations-0-new_title": "A new page\nBcc: x@example.com",
        },
    )
    page = staff_client.post("/admin/glossary/entry/add/", data).content.decode()
    assert "This field must be one line" in page
    assert "give it a title" not in page  # it has one: the error is the line break
    assert not Source.objects.exists() and not Entry.objects.exists()


def import_entries(*args: str) -> str:
    err = StringIO()
    call_command("import_entries", *args, stdout=StringIO(), stderr=err)
    return err.getvalue()


def test_import_entries_names_the_row_and_field_holding_a_line_break(
    tmp_path: Path, writer: User
) -> None:
    (tmp_path / "a.csv").write_text(
        "term,summary,sources\n"
        '"Hdr Test\r\nBcc: x@example.com",Fine.,\n'
        'Fabric,"Two\nlines.",\n'
        "Memory,Fine.,\n",
        newline="",
    )
    (tmp_path / "b.md").write_text(
        "---\nterm: HBM\nsources:\n  - url: https://b.example/hbm\n"
        '    title: "The HBM\\nstandard"\n---\nBody.\n'
    )
    with pytest.raises(CommandError, match="3 rows or files cannot be read"):
        call_command("import_entries", str(tmp_path), "--as", writer.username, stdout=StringIO())
    err = import_entries(str(tmp_path), "--as", writer.username, "--dry-run")
    assert "a.csv row 2: term: This field must be one line" in err
    assert "a.csv row 3 (line 4): summary: This field must be one line" in err
    assert "b.md: title of source 'https://b.example/hbm': This field must be one line" in err
    assert not Entry.objects.exists()


def test_import_glossary_names_the_row_and_field_holding_a_line_break(
    demo: Any, tmp_path: Path
) -> None:
    from tests.exchange.test_import_errors import empty_content

    path = tmp_path / "export.json"
    call_command("export_glossary", str(path), "--no-progress")
    data = json.loads(path.read_text())
    empty_content()
    User.objects.all().delete()
    damaged = copy.deepcopy(data)
    damaged["tables"]["entries"][0]["term"] = INJECTED
    slug = damaged["tables"]["entries"][0]["slug"]
    path.write_text(json.dumps(damaged))
    with pytest.raises(CommandError) as info:
        call_command("import_glossary", str(path), "--no-progress", stdout=StringIO())
    assert "$.tables.entries[0].term: This field must be one line" in str(info.value)
    assert f"(in the row with slug '{slug}')" in str(info.value)
    assert not Entry.objects.exists()


def test_the_data_migration_puts_existing_values_on_one_line(
    make_entry: Any, editor: User, person: Person
) -> None:
    migration = importlib.import_module("glossary.migrations.0033_join_lines_of_single_line_fields")
    entry = make_entry("Plain")
    other = make_entry("Other")
    Entry.objects.filter(pk=entry.pk).update(term=INJECTED, summary="One.\n\nTwo.")
    Person.objects.filter(pk=person.pk).update(name="Ada\r\nGuest")
    SeeAlso.objects.create(entry=entry, target=other, note="Why\u2028read it")
    migration.join_lines(apps, None)
    entry.refresh_from_db()
    assert entry.term == "Hdr Test Bcc: everyone@example.com"
    assert entry.summary == "One. Two."
    assert Person.objects.get(pk=person.pk).name == "Ada Guest"
    assert SeeAlso.objects.get().note == "Why read it"
    assert Entry.objects.get(pk=other.pk).term == "Other"


def test_the_data_migration_marks_a_live_entry_it_changed_for_an_editor_to_publish(
    entry_in_review: Any, editor: User, client: Client
) -> None:
    migration = importlib.import_module("glossary.migrations.0033_join_lines_of_single_line_fields")
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    Entry.objects.filter(pk=entry.pk).update(summary="The links\r\nthat join AI chips.")
    live = Entry.objects.get(pk=entry.pk).live_version_id
    migration.join_lines(apps, None)
    entry.refresh_from_db()
    assert entry.summary == "The links that join AI chips."
    assert entry.has_unpublished_changes
    assert entry.live_version_id == live  # readers keep the version an editor published


def test_a_topic_is_renamed_or_merged_only_into_a_one_line_name(
    staff_client: Client, make_entry: Any
) -> None:
    entry = make_entry("Tagged")
    entry.tags.add("networking", "hardware")
    networking, hardware = (Tag.objects.get(name=n) for n in ("networking", "hardware"))
    page = staff_client.post(
        f"/admin/taggit/tag/{networking.pk}/change/",
        {"name": "Networking\r\nBcc: x@example.com", "slug": "networking"},
    ).content.decode()
    assert "This field must be one line" in page
    assert "maxlength" not in input_named(page, "name")
    page = staff_client.post(
        "/admin/taggit/tag/",
        {
            "action": "merge_tags",
            "_selected_action": [str(networking.pk), str(hardware.pk)],
            "merge": "1",
            "name": "Fabric\nBcc: x@example.com",
        },
    ).content.decode()
    assert "This field must be one line" in page
    assert sorted(Tag.objects.values_list("name", flat=True)) == ["hardware", "networking"]
