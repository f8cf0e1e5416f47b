"""Shows and teams travel: export and import keep each entry's show and the teams; the
importers file drafts under a show the importing person may write for."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from editorial.models import ShowMembership
from glossary.models import Entry, Show
from tests.exchange.test_import_errors import empty_content, run_import


def test_export_and_import_keep_each_entrys_show_and_the_teams(
    tmp_path: Path, alpha_writer, alpha_entry, network_entry
):
    path = tmp_path / "export.json"
    call_command("export_glossary", str(path), "--no-progress")
    data = json.loads(path.read_text())
    assert data["tables"]["show_memberships"] == [
        {
            "id": ShowMembership.objects.get().pk,
            "user": "alma_writer",
            "show": alpha_entry.show_id,
            "role": "writer",
        }
    ]
    empty_content()
    User.objects.all().delete()
    run_import(str(path))
    assert Entry.objects.get(slug=alpha_entry.slug).show.slug == "alpha-hour"
    assert Entry.objects.get(slug=network_entry.slug).show is None
    membership = ShowMembership.objects.get()
    assert (membership.user.username, membership.show.slug, membership.role) == (
        "alma_writer",
        "alpha-hour",
        "writer",
    )


def _import_entries(folder: Path, username: str, *extra: str) -> str:
    err = StringIO()
    call_command(
        "import_entries", str(folder), "--as", username, *extra, stdout=StringIO(), stderr=err
    )
    return err.getvalue()


def test_import_entries_files_drafts_under_the_named_show(tmp_path: Path, writer, alpha, beta):
    (tmp_path / "e.csv").write_text("term,show\nFabric,beta-talk\nLoose,\n")
    _import_entries(tmp_path, writer.username)
    assert Entry.objects.get(term="Fabric").show == beta
    # Two shows here: an entry naming none belongs to the whole network.
    assert Entry.objects.get(term="Loose").show is None


def test_import_entries_with_one_show_files_everything_under_it(tmp_path: Path, writer, alpha):
    (tmp_path / "e.csv").write_text("term\nFabric\n")
    _import_entries(tmp_path, writer.username)
    assert Entry.objects.get(term="Fabric").show == alpha


def test_import_entries_refuses_a_show_the_person_is_not_on_and_an_unknown_one(
    tmp_path: Path, alpha_writer, alpha, beta
):
    (tmp_path / "e.csv").write_text("term,show\nFabric,beta-talk\nTypo,gamma\nLoose,\n")
    with pytest.raises(CommandError):
        _import_entries(tmp_path, alpha_writer.username)
    err = _import_entries(tmp_path, alpha_writer.username, "--dry-run")
    assert "alma_writer may not write entries for the show 'beta-talk'" in err
    assert "show 'gamma' is not a show's slug here (shows: alpha-hour, beta-talk)" in err
    assert "works on some shows only: name the entry's show" in err
    assert not Entry.objects.exists()
    assert Show.objects.count() == 2
