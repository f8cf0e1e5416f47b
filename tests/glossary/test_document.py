"""glossary.document: the typed published document, its schema check and its upgrade."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps

from glossary import document, entry_page, publishing
from glossary.models import (
    Entry,
    EntryVersion,
    Episode,
    Organisation,
    Person,
    Source,
    Transcript,
)

# The live version of the demo's "Interconnect" as the schema-1 code wrote it (the code
# on main before the document was typed), with the article it rendered.
V1 = Path(__file__).resolve().parents[1] / "data" / "document_v1_interconnect.json"

upgrade_migration = importlib.import_module(
    "glossary.migrations.0006_upgrade_documents_to_schema_2"
)


def _with_todays_ids(data: Any) -> Any:
    """The old document with ids of the rows as this test database numbered them."""
    if isinstance(data, list):
        return [_with_todays_ids(item) for item in data]
    if not isinstance(data, dict):
        return data
    out = {key: _with_todays_ids(value) for key, value in data.items()}
    if "entry_id" in out:
        out["entry_id"] = Entry.objects.get(slug=out["slug"]).pk
    elif "number" in out and "show" in out:
        out["id"] = Episode.objects.get(number=out["number"], season=out["season"]).pk
        out["show"]["id"] = Episode.objects.get(pk=out["id"]).show_id
    elif "citation_status" in out:
        out["id"] = Source.objects.get(url=out["url"]).pk
    elif set(out) == {"id", "name", "slug", "url"}:
        out["id"] = Organisation.objects.get(slug=out["slug"]).pk
    elif set(out) == {"id", "name", "slug"}:
        out["id"] = Person.objects.get(slug=out["slug"]).pk
    return out


@pytest.fixture
def old_version(demo) -> tuple[EntryVersion, str]:
    """The demo's live Interconnect version, its data put back as schema-1 code wrote it."""
    saved = json.loads(V1.read_text())
    # The demo's episodes as they stood then: placeholder titles, no air dates or audio
    # (today they come from the demo feed).
    for episode in Episode.objects.filter(show__slug="demo-show"):
        Episode.objects.filter(pk=episode.pk).update(
            title=f"Episode {episode.number}", air_date=None, audio_url=""
        )
    entry = Entry.objects.get(slug="interconnect")
    old = _with_todays_ids(saved["data"])
    old["id"] = entry.pk
    live = entry.live_version
    assert live is not None
    EntryVersion.objects.filter(pk=live.pk).update(data=old)
    # The schema-1 code knew no transcripts: without them today's build checks no quote.
    Transcript.objects.all().delete()
    return EntryVersion.objects.get(pk=live.pk), saved["article_html"]


def test_a_version_written_by_the_schema_1_code_is_upgraded_to_what_todays_code_builds(
    old_version,
):
    version, _ = old_version
    with pytest.raises(document.DocumentError, match="schema 1"):
        document.load(version.data)
    upgrade_migration.forwards(apps, None)
    version.refresh_from_db()
    upgraded = document.load(version.data)
    assert upgraded == document.build(version.entry)


def test_the_upgraded_version_renders_the_article_the_schema_1_code_rendered(old_version):
    version, old_html = old_version
    upgrade_migration.forwards(apps, None)
    version.refresh_from_db()
    doc = document.load(version.data)
    article = entry_page.render_article(doc, publishing.live_links(doc))
    # Schema 1 put the structured data inside the article; now it follows it.
    before = old_html.split('<script type="application/ld+json">')[0]
    assert article.split() == before.split()


def test_a_document_of_an_unknown_schema_is_refused_with_a_clear_error(demo):
    data = Entry.objects.get(slug="interconnect").live_version.data
    with pytest.raises(document.DocumentError, match="schema 3.*migrate"):
        document.load({**data, "schema_version": 3})
    with pytest.raises(document.DocumentError, match="does not match schema 2"):
        document.load({**data, "quotes": [{"text": "no speaker"}]})


def test_rollback_writes_back_exactly_what_the_version_says(demo):
    entry = Entry.objects.get(slug="interconnect")
    doc = document.build(entry)
    for part in ("references", "quotes", "citations", "see_also", "disclosures"):
        getattr(entry, part).all().delete()
    entry.tags.clear()
    warnings = document.write_back(entry, doc, user=None)
    assert warnings == []
    assert document.build(entry) == doc


def test_the_document_stores_what_the_editor_wrote_not_the_sentence_made_from_it(demo):
    entry = Entry.objects.get(slug="interconnect")
    doc = document.load(entry.live_version.data)
    derived = [d for d in doc.all_disclosures() if d.derived]
    assert derived and all(d.text == "" and d.at is None for d in derived)
    assert "intro at" not in json.dumps(entry.live_version.data)


def test_building_many_entries_gives_each_its_own_document(demo):
    entries = list(Entry.objects.order_by("pk"))
    together = document.build_many(entries)
    assert list(together) == [e.pk for e in entries]
    for entry in entries:
        alone = document.build(entry)
        assert together[entry.pk] == alone
        # Nothing another entry names leaks into this one's facts.
        assert {e.id for e in alone.episodes} == {r.episode for r in alone.references} | {
            q.episode for q in alone.quotes
        } | {d.episode for d in alone.all_disclosures() if d.episode}
    assert len({d.model_dump_json() for d in together.values()}) == len(entries)


def test_a_version_saved_in_a_batch_is_indexed_by_what_its_document_names(demo):
    entries = list(Entry.objects.order_by("pk"))
    versions = publishing.save_versions([(e, None) for e in entries])
    for version in versions:
        named = document.referenced(document.load(version.data))
        assert set(version.episodes.values_list("pk", flat=True)) == named.episodes
        assert set(version.people.values_list("pk", flat=True)) == named.people
        assert set(version.organisations.values_list("pk", flat=True)) == named.organisations
        assert set(version.sources.values_list("pk", flat=True)) == named.sources
        assert set(version.tags.values_list("pk", flat=True)) == named.tags
        assert set(version.see_also_targets.values_list("pk", flat=True)) == named.see_also
    assert any(document.referenced(document.load(v.data)).people for v in versions)
