"""A show is named by a live version as its published document names it, never through the
desk's episodes.

Were a show's record found "named" by a live version through the desk's current
`Episode.show`, a writer moving an episode to another show, with nothing published, would
change which live versions seemed to name each show: `manage.py rerender` (every deploy
runs it) and the admin's unpublish would fail reading a show from a document that does
not name it, and a show's record could be deleted, leaving its episodes' pages without a
show name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from editorial import workflow
from glossary import publishing
from glossary.models import Entry, EntryVersion, Episode, Person, PublicRecord, Show
from tests.exchange.test_import_errors import empty_content, run_import, write
from tests.live import make_live_unchecked
from tests.visibility.desk import edit_object

pytestmark = pytest.mark.django_db

PAGES = ["/episodes/other-show/1/99/", "/episodes/", "/api/v1/episodes/", "/glossary/gpu/"]


@pytest.fixture
def other_show(demo, editor) -> Episode:
    """A second show whose only episode a live entry (GPU) quotes."""
    other = Show.objects.create(name="Other Show", slug="other-show")
    episode = Episode.objects.create(show=other, season=1, number=99, title="Ninety-nine")
    gpu = Entry.objects.get(slug="gpu")
    gpu.quotes.create(
        episode=episode, speaker=Person.objects.get(slug="jeetu-patel"), start=30, text="Hi."
    )
    make_live_unchecked(gpu, user=editor)
    return episode


def test_a_desk_move_of_an_episode_changes_no_public_page(client, other_show, writer):
    before = {url: client.get(url).content for url in PAGES}
    home = Episode.objects.get(number=28).show
    edit_object(writer, "glossary_episode", other_show.pk, show=str(home.pk))
    publishing.rerender_all()
    for url, body in before.items():
        assert client.get(url).content == body, url
    assert PublicRecord.objects.filter(kind="show", slug="other-show").exists()


def test_a_desk_move_of_an_episode_blocks_no_withdrawal(client, other_show, writer, editor):
    home = Episode.objects.get(number=28).show
    # On the desk, the demo's episode 28 moves to the other show and the other show's
    # episode to the demo's; nothing is published.
    demo_episode = Episode.objects.get(number=28)
    edit_object(writer, "glossary_episode", demo_episode.pk, show=str(other_show.show_id))
    edit_object(writer, "glossary_episode", other_show.pk, show=str(home.pk))
    workflow.unpublish_entry(Entry.objects.get(slug="gpu"), user=editor, comment="Withdrawn.")
    publishing.rerender_all()
    assert client.get("/episodes/other-show/1/99/").status_code == 404
    assert not PublicRecord.objects.filter(kind="show", slug="other-show").exists()
    assert PublicRecord.objects.filter(kind="show", slug=home.slug).exists()
    episodes = client.get("/episodes/").content.decode()
    assert home.name in episodes and "Other Show" not in episodes


def test_an_export_from_before_versions_named_their_shows_imports(tmp_path: Path, other_show):
    path = tmp_path / "export.json"
    call_command("export_glossary", str(path), "--no-progress")
    data = json.loads(path.read_text())
    for row in data["tables"]["entry_versions"]:
        assert "shows" in row
        del row["shows"]
    empty_content()
    User.objects.all().delete()
    run_import(write(tmp_path, data))
    named = EntryVersion.objects.filter(shows__slug="other-show")
    assert named.filter(entry__slug="gpu").exists()
    reader = Client()
    assert reader.get("/episodes/other-show/1/99/").status_code == 200
