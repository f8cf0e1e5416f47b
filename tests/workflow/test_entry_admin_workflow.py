"""The entry's admin page: the workflow panel, the publish page and bulk actions."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from editorial import workflow
from editorial.models import WorkflowEvent
from glossary.models import Citation, Entry, Quote
from tests.personas import client_for, reviewed
from tests.visibility.desk import edit_entry
from tests.workflow.formdata import form_data


def _change_page(user, entry) -> str:
    response = client_for(user).get(f"/admin/glossary/entry/{entry.pk}/change/")
    assert response.status_code == 200
    return response.content.decode()


def test_a_writer_sees_submit_but_not_publish(ready_entry, writer):
    page = _change_page(writer, ready_entry)
    assert 'value="Submit for review"' in page
    assert "Review checks and publish" not in page
    assert 'value="Request changes"' not in page
    assert 'value="Archive"' not in page


def test_an_editor_sees_publish_and_request_changes_on_an_entry_in_review(
    ready_entry, writer, editor
):
    workflow.submit_for_review(ready_entry, user=writer)
    page = _change_page(editor, ready_entry)
    assert "Review checks and publish" in page
    assert 'value="Request changes"' in page
    assert 'value="Submit for review"' not in page


def test_the_editor_who_submitted_is_told_another_editor_publishes(ready_entry, editor):
    workflow.submit_for_review(ready_entry, user=editor)
    page = _change_page(editor, ready_entry)
    assert "Review checks and publish" not in page
    assert "another editor publishes it" in page


def test_the_reviewers_comment_is_shown_on_the_entry(ready_entry, writer, editor):
    workflow.submit_for_review(ready_entry, user=writer)
    client_for(editor).post(
        f"/admin/glossary/entry/{ready_entry.pk}/request-changes/",
        {"comment": "Please cite the UEC spec."},
    )
    page = _change_page(writer, ready_entry)
    assert "Changes requested by Ed Editor" in page
    assert "Please cite the UEC spec." in page


def test_a_fact_checker_sees_the_content_read_only_and_confirms_citations(
    ready_entry, fact_checker
):
    Citation.objects.filter(entry=ready_entry).update(checked_on=None)
    client = client_for(fact_checker)
    page = client.get(f"/admin/glossary/entry/{ready_entry.pk}/change/").content.decode()
    data = form_data(page)
    assert "body" not in data
    assert 'value="Submit for review"' not in page
    data["citations-0-checked_on"] = "2026-11-20"
    assert client.post(f"/admin/glossary/entry/{ready_entry.pk}/change/", data).status_code == 302
    citation = Citation.objects.get(entry=ready_entry)
    assert str(citation.checked_on) == "2026-11-20"
    assert citation.checked_by == fact_checker


def test_a_writer_cannot_set_a_citations_check_date(ready_entry, writer):
    Citation.objects.filter(entry=ready_entry).update(checked_on=None)
    client = client_for(writer)
    data = form_data(client.get(f"/admin/glossary/entry/{ready_entry.pk}/change/").content.decode())
    assert "citations-0-checked_on" not in data
    data["citations-0-checked_on"] = "2026-11-20"
    client.post(f"/admin/glossary/entry/{ready_entry.pk}/change/", data)
    assert Citation.objects.get(entry=ready_entry).checked_on is None


def test_the_publish_page_lists_every_check_in_plain_words(unsourced_entry, writer, editor):
    workflow.submit_for_review(unsourced_entry, user=writer)
    page = client_for(editor).get(f"/admin/glossary/entry/{unsourced_entry.pk}/publish/")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-code="has_source"' in html
    assert "Blocks publishing" in html
    assert "Override and publish" in html
    assert 'name="override_reason"' in html


def test_publishing_without_a_reason_is_refused_and_keeps_what_was_typed(
    unsourced_entry, writer, editor
):
    workflow.submit_for_review(unsourced_entry, user=writer)
    response = client_for(editor).post(
        f"/admin/glossary/entry/{unsourced_entry.pk}/publish/",
        {
            "override_reason": "",
            "comment": "My careful comment",
            "material": "1",
            "expected_version": reviewed(unsourced_entry),
        },
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "blocking check(s) failed" in html
    assert 'value="My careful comment"' in html
    unsourced_entry.refresh_from_db()
    assert not unsourced_entry.is_live


def test_an_override_with_a_reason_publishes_and_is_in_the_history(unsourced_entry, writer, editor):
    workflow.submit_for_review(unsourced_entry, user=writer)
    client = client_for(editor)
    response = client.post(
        f"/admin/glossary/entry/{unsourced_entry.pk}/publish/",
        {
            "override_reason": "Sourced from the episode itself.",
            "material": "1",
            "expected_version": reviewed(unsourced_entry),
        },
    )
    assert response.status_code == 302
    unsourced_entry.refresh_from_db()
    assert unsourced_entry.is_live
    history = client.get(f"/admin/glossary/entry/{unsourced_entry.pk}/history/").content.decode()
    assert "Overrode failing checks" in history
    assert "Sourced from the episode itself." in history


def test_publishing_a_change_to_a_live_entry_can_carry_a_public_correction(
    ready_entry, writer, editor, second_editor, client
):
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor)
    Entry.objects.filter(pk=ready_entry.pk).update(body="Corrected.", status="draft")
    workflow.submit_for_review(ready_entry, user=writer)
    page = client_for(second_editor).get(f"/admin/glossary/entry/{ready_entry.pk}/publish/")
    assert 'name="correction_note"' in page.content.decode()
    client_for(second_editor).post(
        f"/admin/glossary/entry/{ready_entry.pk}/publish/",
        {
            "correction_note": "An earlier version misdated the spec.",
            "material": "1",
            "expected_version": reviewed(ready_entry),
        },
    )
    public = client.get(f"/glossary/{ready_entry.slug}/").content.decode()
    assert "An earlier version misdated the spec." in public


def test_a_writer_cannot_open_the_publish_page(ready_entry, writer):
    workflow.submit_for_review(ready_entry, user=writer)
    assert (
        client_for(writer).get(f"/admin/glossary/entry/{ready_entry.pk}/publish/").status_code
        == 403
    )


def test_a_transition_by_get_is_refused(ready_entry, writer):
    response = client_for(writer).get(f"/admin/glossary/entry/{ready_entry.pk}/submit/")
    assert response.status_code == 403
    ready_entry.refresh_from_db()
    assert ready_entry.status == Entry.Status.DRAFT


def test_an_impossible_transition_is_explained(ready_entry, editor):
    client = client_for(editor)
    response = client.post(f"/admin/glossary/entry/{ready_entry.pk}/unpublish/", follow=True)
    assert "is not published, so it cannot be unpublished" in response.content.decode()


def test_the_bulk_publish_action_runs_the_gates_and_the_roles(
    ready_entry, unsourced_entry, writer, editor
):
    for entry in (ready_entry, unsourced_entry):
        workflow.submit_for_review(entry, user=writer)
    client = client_for(editor)
    selected = {
        "action": "publish_selected",
        "_selected_action": [ready_entry.pk, unsourced_entry.pk],
    }
    # First the versions that would go out, to confirm; nothing is published yet.
    asked = client.post("/admin/glossary/entry/", selected)
    assert asked.status_code == 200 and not Entry.objects.published().exists()
    confirmation = form_data(asked.content.decode(), "publish_selected_form")
    assert confirmation["version_" + str(ready_entry.pk)] == reviewed(ready_entry)
    # (The reader keeps one value per name; the page carries every selected entry.)
    confirmation["_selected_action"] = selected["_selected_action"]
    response = client.post("/admin/glossary/entry/", confirmation, follow=True)
    html = response.content.decode()
    assert "Published 1 entry." in html
    assert "Unsourced" in html and "blocking check(s) failed" in html
    assert set(Entry.objects.published()) == {ready_entry}
    assert WorkflowEvent.objects.filter(action="publish").count() == 1


def test_a_save_after_the_bulk_confirmation_was_shown_stops_that_entry(ready_entry, writer, editor):
    workflow.submit_for_review(ready_entry, user=writer)
    client = client_for(editor)
    selected = {"action": "publish_selected", "_selected_action": [ready_entry.pk]}
    asked = client.post("/admin/glossary/entry/", selected).content.decode()
    confirmation = form_data(asked, "publish_selected_form")
    edit_entry(writer, ready_entry, summary="Saved while the editor was reading the list.")
    html = client.post("/admin/glossary/entry/", confirmation, follow=True).content.decode()
    assert "review the new version before publishing" in html
    assert not Entry.objects.published().exists()
    # A hand-made request that names no version publishes nothing either.
    client.post("/admin/glossary/entry/", {**selected, "confirmed": "yes"})
    assert not Entry.objects.published().exists()


def test_writers_are_not_offered_the_bulk_publish_action(ready_entry, writer):
    page = client_for(writer).get("/admin/glossary/entry/").content.decode()
    assert "publish_selected" not in page
    response = client_for(writer).post(
        "/admin/glossary/entry/",
        {"action": "publish_selected", "_selected_action": [ready_entry.pk]},
    )
    assert response.status_code in (200, 302)
    assert not Entry.objects.published().exists()


def test_the_change_page_query_count_does_not_grow_with_versions_or_parts(
    ready_entry, writer, editor, episode, person
):
    from glossary.publishing import save_version

    def add(n: int) -> None:
        for i in range(n):
            Quote.objects.create(
                entry=ready_entry, episode=episode, speaker=person, start=i, text="q"
            )
            save_version(ready_entry, user=writer)
            WorkflowEvent.objects.create(
                entry=ready_entry, action="submit", from_status="draft", to_status="in_review"
            )

    client = client_for(editor)

    def measure() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/admin/glossary/entry/{ready_entry.pk}/change/").status_code == 200
        return len(queries)

    add(1)
    measure()  # the session and content types are loaded once
    small = measure()
    add(14)
    assert measure() == small


def test_the_audit_log_is_readable_and_cannot_be_edited(ready_entry, writer, admin_user):
    workflow.submit_for_review(ready_entry, user=writer)
    event = WorkflowEvent.objects.get()
    page = client_for(writer).get("/admin/editorial/workflowevent/")
    assert page.status_code == 200
    assert "Submitted for review" in page.content.decode()
    admin = client_for(admin_user)
    assert admin.get("/admin/editorial/workflowevent/add/").status_code == 403
    admin.post(f"/admin/editorial/workflowevent/{event.pk}/delete/", {"post": "yes"})
    assert WorkflowEvent.objects.filter(pk=event.pk).exists()


def test_view_on_site_opens_the_preview_until_the_entry_is_published(ready_entry, writer, editor):
    page = _change_page(writer, ready_entry)
    assert f'href="/preview/entry/{ready_entry.pk}/"' in page
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor)
    assert f'href="/glossary/{ready_entry.slug}/" class="viewsitelink"' in _change_page(
        writer, ready_entry
    )


def test_a_publish_form_that_does_not_say_which_version_was_reviewed_publishes_nothing(
    ready_entry, writer, editor
):
    workflow.submit_for_review(ready_entry, user=writer)
    for expected in ["", "abc", "²"]:
        response = client_for(editor).post(
            f"/admin/glossary/entry/{ready_entry.pk}/publish/",
            {"comment": "Looks right.", "material": "1", "expected_version": expected},
        )
        assert response.status_code == 400
        html = response.content.decode()
        assert "did not say which version you reviewed" in html
        assert 'value="Looks right."' in html
        ready_entry.refresh_from_db()
        assert not ready_entry.is_live
