"""`manage.py rerender` renders live pages again from their snapshots."""

from django.core.management import call_command

from glossary import publishing
from glossary.models import EntryVersion
from tests.live import make_live_unchecked


def test_it_renders_live_versions_again_and_leaves_drafts_alone(client, make_entry, capsys):
    live = make_entry("Live", slug="live")
    make_live_unchecked(live)
    draft_version = publishing.save_version(make_entry("Draft", slug="draft"))
    EntryVersion.objects.filter(pk=live.live_version_id).update(rendered_html="<p>stale</p>")
    call_command("rerender")
    assert "Re-rendered 1 live entry." in capsys.readouterr().out
    assert "<dfn>Live</dfn>" in client.get("/glossary/live/").content.decode()
    draft_version.refresh_from_db()
    assert draft_version.rendered_html == ""
