"""Versions: every admin save is one; compare them as a readable diff; roll back."""

from __future__ import annotations

import pytest
from taggit.models import Tag

from editorial import versions, workflow
from editorial.models import WorkflowEvent
from glossary.document import EntryDocument, build
from glossary.models import Citation, Entry, EntryVersion, Quote, SeeAlso, Source
from glossary.publishing import save_version
from tests.personas import client_for
from tests.workflow.formdata import form_data


def _save_in_admin(client, entry, **changes):
    page = client.get(f"/admin/glossary/entry/{entry.pk}/change/")
    data = form_data(page.content.decode())
    data.update(changes)
    return client.post(f"/admin/glossary/entry/{entry.pk}/change/", data)


def test_every_admin_save_keeps_a_version_with_the_inlines(ready_entry, writer):
    client = client_for(writer)
    response = _save_in_admin(
        client,
        ready_entry,
        body="Second draft.",
        **{
            "citations-0-note": "Defines it, with a diagram.",
        },
    )
    assert response.status_code == 302
    latest = ready_entry.versions.order_by("-number").first()
    assert latest.number == 2
    assert latest.created_by == writer
    assert latest.data["body"] == "Second draft."
    assert latest.data["citations"][0]["note"] == "Defines it, with a diagram."


def test_a_save_that_changes_only_an_inline_is_a_version_too(ready_entry, writer):
    before = Entry.objects.get(pk=ready_entry.pk).updated_at
    _save_in_admin(client_for(writer), ready_entry, **{"citations-0-note": "New note."})
    assert ready_entry.versions.count() == 2
    assert Entry.objects.get(pk=ready_entry.pk).updated_at > before


def test_a_save_that_changes_nothing_adds_no_version(ready_entry, writer):
    response = _save_in_admin(client_for(writer), ready_entry)
    assert response.status_code == 302
    assert ready_entry.versions.count() == 1


def test_editing_a_published_entry_makes_a_draft_and_readers_keep_the_live_version(
    ready_entry, writer, editor
):
    workflow.submit_for_review(ready_entry, user=writer)
    live = workflow.publish_entry(ready_entry, user=editor)
    client = client_for(writer)
    response = _save_in_admin(client, ready_entry, body="Next version.")
    assert response.status_code == 302
    messages = [str(m) for m in client.get(response["Location"]).context["messages"]]
    assert any("Readers still see version 1" in m for m in messages)
    ready_entry.refresh_from_db()
    assert ready_entry.status == Entry.Status.DRAFT
    assert ready_entry.live_version == live
    assert ready_entry.has_unpublished_changes


def _doc(**fields: object) -> EntryDocument:
    """A document with nothing but `fields` (the rest empty)."""
    empty: dict[str, object] = {
        "schema_version": 2,
        "id": 1,
        "term": "",
        "slug": "",
        "summary": "",
        "body": "",
        **{name: [] for name in ("aliases", "tags", "references", "disclosures", "quotes")},
        **{name: [] for name in ("citations", "see_also", "episodes", "shows", "people")},
        **{name: [] for name in ("organisations", "sources")},
    }
    return EntryDocument.model_validate({**empty, **fields})


def test_the_diff_shows_changed_words_side_by_side():
    a = _doc(term="Interconnect", body="Links join chips.\nSecond paragraph.")
    b = _doc(term="Interconnect", body="Fast links join chips.\nSecond paragraph.")
    sections = {s.title: s for s in versions.compare(a, b)}
    assert not sections["Term"].changed
    body = sections["Body"]
    assert body.changed
    changed = [r for r in body.rows if r.kind == "changed"]
    assert len(changed) == 1
    assert changed[0].left == "<del>Links </del>join chips."
    assert changed[0].right == "<ins>Fast links </ins>join chips."


def test_the_diff_escapes_what_editors_typed():
    a = _doc(body="plain")
    b = _doc(body="<script>alert(1)</script>")
    rows = {s.title: s for s in versions.compare(a, b)}["Body"].rows
    html = "".join(r.left + r.right for r in rows)
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def test_the_diff_covers_quotes_citations_disclosures_and_see_also(
    ready_entry, make_entry, episode, person
):
    old = build(ready_entry)
    Quote.objects.create(entry=ready_entry, episode=episode, speaker=person, start=65, text="Hi.")
    SeeAlso.objects.create(entry=ready_entry, target=make_entry("HBM"), note="memory")
    ready_entry.disclosures.create(kind="other", text="We own shares.")
    Citation.objects.filter(entry=ready_entry).update(note="Changed note.")
    sections = {s.title: s for s in versions.compare(old, build(ready_entry))}
    assert sections["Quotes"].rows[0].kind == "added"
    assert "“Hi.” — Ada Guest, episode 7 at 1:05" in sections["Quotes"].rows[0].right
    assert sections["See also"].changed
    assert sections["Disclosures"].changed
    assert sections["Citations"].rows[0].kind == "changed"


def test_the_compare_page_shows_two_versions(ready_entry, writer, editor):
    ready_entry.body = "A much better body."
    ready_entry.save()
    save_version(ready_entry, user=writer)
    page = (
        client_for(editor)
        .get(f"/admin/glossary/entry/{ready_entry.pk}/compare/?a=1&b=2")
        .content.decode()
    )
    assert "Version 1" in page
    assert "Version 2" in page
    assert "<ins>" in page
    assert "better" in page


def test_the_compare_with_live_link_compares_the_working_copy_with_the_live_version(
    ready_entry, writer, editor
):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor)
    Entry.objects.filter(pk=ready_entry.pk).update(body="Unpublished wording.")
    client = client_for(writer)
    change = client.get(f"/admin/glossary/entry/{ready_entry.pk}/change/").content.decode()
    assert "?a=live&amp;b=working" in change
    page = client.get(f"/admin/glossary/entry/{ready_entry.pk}/compare/?a=live&b=working")
    html = page.content.decode()
    assert "Live version 1" in html
    assert "<ins>Unpublished wording.</ins>" in html


def test_comparing_a_missing_version_is_a_404(ready_entry, editor):
    client = client_for(editor)
    assert client.get(f"/admin/glossary/entry/{ready_entry.pk}/compare/?a=1&b=9").status_code == 404
    assert client.get(f"/admin/glossary/entry/{ready_entry.pk}/compare/?a=live").status_code == 404


def test_rollback_makes_a_new_draft_and_never_rewrites_history(
    ready_entry, writer, editor, episode, person
):
    v1 = ready_entry.versions.get(number=1)
    ready_entry.term = "Interconnect (bad edit)"
    ready_entry.body = "Vandalised."
    ready_entry.save()
    Quote.objects.create(entry=ready_entry, episode=episode, speaker=person, start=5, text="x")
    Citation.objects.filter(entry=ready_entry).delete()
    save_version(ready_entry, user=writer)
    v2_data = ready_entry.versions.get(number=2).data

    new = workflow.rollback_to(ready_entry, v1, user=editor)

    assert new.number == 3
    assert new.data == v1.data | {"id": ready_entry.pk}
    assert ready_entry.versions.get(number=2).data == v2_data
    assert ready_entry.versions.get(number=1).data == v1.data
    ready_entry.refresh_from_db()
    assert ready_entry.term == "Interconnect"
    assert ready_entry.status == Entry.Status.DRAFT
    assert not Quote.objects.filter(entry=ready_entry).exists()
    assert Citation.objects.get(entry=ready_entry).source == Source.objects.get()
    event = WorkflowEvent.objects.get(action="rollback")
    assert event.version == v1
    assert event.actor == editor


def test_rollback_restores_everything_the_snapshot_holds(demo, second_editor):
    entry = Entry.objects.get(slug="interconnect")
    original = build(entry)
    live = entry.live_version
    entry.references.all().delete()
    entry.quotes.all().delete()
    entry.see_also.all().delete()
    entry.tags.clear()
    save_version(entry)
    assert live is not None
    workflow.rollback_to(entry, live, user=second_editor)
    assert build(entry) == original


def test_rollback_restores_tags_by_id_and_says_which_were_deleted(demo, editor):
    """A rollback restores tags by id: a tag deleted since does not come back as a new tag,
    nor a renamed one under its old name, and the warnings name them."""
    entry = Entry.objects.get(slug="ai-factory")
    old = entry.live_version
    assert old is not None
    renamed = Tag.objects.get(slug="ai-infrastructure")
    deleted = Tag.objects.get(slug="data-centers")
    renamed.name = "AI infra"
    renamed.save()
    deleted.delete()

    new = workflow.rollback_to(entry, old, user=editor)

    assert set(entry.tags.values_list("name", flat=True)) == {"AI infra"}
    assert not Tag.objects.filter(slug="data-centers").exists()
    assert not Tag.objects.filter(name="ai-infrastructure").exists()
    assert getattr(new, "rollback_warnings", None) == ["Tag “data-centers”: it no longer exists."]


def test_the_rollback_page_previews_the_change_then_rolls_back_on_post(ready_entry, editor):
    Entry.objects.filter(pk=ready_entry.pk).update(body="Changed since.")
    client = client_for(editor)
    url = f"/admin/glossary/entry/{ready_entry.pk}/rollback/1/"
    page = client.get(url).content.decode()
    assert "<del>Changed since.</del>" in page
    assert ready_entry.versions.count() == 1
    response = client.post(url, {"comment": "Back to the reviewed text."})
    assert response.status_code == 302
    assert ready_entry.versions.count() == 2
    ready_entry.refresh_from_db()
    assert ready_entry.body == "Interconnect is explained here."


def test_the_history_page_lists_versions_and_workflow_steps(ready_entry, writer, editor):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.request_changes(ready_entry, user=editor, comment="Add the spec.")
    page = client_for(editor).get(f"/admin/glossary/entry/{ready_entry.pk}/history/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "First draft." in html
    assert "Add the spec." in html
    assert "Changes requested" in html
    assert "roll back to this" in html


def test_the_history_page_does_not_offer_rollback_to_writers(ready_entry, writer):
    html = client_for(writer).get(f"/admin/glossary/entry/{ready_entry.pk}/history/")
    assert "roll back to this" not in html.content.decode()


@pytest.mark.parametrize("count", [1, 12])
def test_the_history_page_query_count_does_not_grow_with_versions(
    ready_entry, writer, editor, count, django_assert_num_queries
):
    for _ in range(count):
        save_version(ready_entry, user=writer)
        WorkflowEvent.objects.create(
            entry=ready_entry,
            action="submit",
            from_status="draft",
            to_status="in_review",
            actor=writer,
            version=EntryVersion.objects.last(),
        )
    client = client_for(editor)
    client.get(f"/admin/glossary/entry/{ready_entry.pk}/history/")  # warm the session
    with django_assert_num_queries(7):
        client.get(f"/admin/glossary/entry/{ready_entry.pk}/history/")
