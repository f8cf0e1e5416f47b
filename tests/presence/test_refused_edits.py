"""A stale save is kept as a refused edit: its author compares it with the draft, takes
fields back, or discards it; nobody else but admins reads it; readers see none of it."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from editorial import refused, workflow
from editorial.models import RefusedEdit, WorkflowEvent
from glossary.models import Entry, SiteGeneration
from tests.personas import client_for
from tests.workflow.formdata import form_data


def _change(entry):
    return f"/admin/glossary/entry/{entry.pk}/change/"


def _open(client, entry):
    page = client.get(_change(entry))
    assert page.status_code == 200
    return form_data(page.content.decode())


def _refuse(entry, first, second, *, first_body, second_changes):
    """`first` saves `first_body`; `second`, who opened the form before, is refused."""
    a, b = client_for(first), client_for(second)
    a_form, b_form = _open(a, entry), _open(b, entry)
    a_form["body"] = first_body
    assert a.post(_change(entry), a_form).status_code == 302
    b_form.update(second_changes)
    response = b.post(_change(entry), b_form)
    assert response.status_code == 200
    return response


def _merge_page(client, kept):
    return client.get(f"/admin/refused/{kept.pk}/")


def _token(page):
    found = re.search(r'name="token" value="([^"]+)"', page.content.decode())
    assert found is not None
    return found.group(1)


def _take(client, kept, **fields):
    """Post the comparison page's form as `client`, with the token that page carries."""
    token = _token(_merge_page(client, kept))
    return client.post(f"/admin/refused/{kept.pk}/", {**fields, "token": token})


@pytest.fixture
def refuse(ready_entry, writer, editor):
    """`refuse(changes, *, by=editor, first_body="W.")`: the writer saves `first_body` into
    the ready entry; `by`, who opened its form before, saves `changes` and is refused.
    Returns the refused edit kept for `by`."""

    def refused(changes, *, by=editor, first_body="W."):
        _refuse(ready_entry, writer, by, first_body=first_body, second_changes=changes)
        return RefusedEdit.objects.get()

    return refused


def test_a_refused_save_is_kept_for_its_author_with_everything_the_form_held(
    ready_entry, writer, editor
):
    response = _refuse(
        ready_entry,
        writer,
        editor,
        first_body="Wanda's rewrite.",
        second_changes={
            "summary": "Ed's sharper summary.",
            "citations-0-note": "Ed's note on the source.",
        },
    )
    kept = RefusedEdit.objects.get()
    assert kept.author == editor
    assert kept.entry == ready_entry
    assert kept.saved_by == writer
    assert (kept.opened_version, kept.conflicting_version) == (1, 2)
    assert kept.data["summary"] == ["Ed's sharper summary."]
    assert kept.data["citations-0-note"] == ["Ed's note on the source."]
    assert "edit_token" not in kept.data and "csrfmiddlewaretoken" not in kept.data
    page = response.content.decode()
    assert f'href="/admin/refused/{kept.pk}/"' in page
    assert "kept as a" in page
    ready_entry.refresh_from_db()
    assert ready_entry.summary != "Ed's sharper summary."


def test_the_comparison_shows_each_field_against_the_draft_and_who_changed_it(refuse, editor):
    kept = refuse({"summary": "Ed's <b>sharper</b> summary."}, first_body="Wanda's rewrite.")
    page = _merge_page(client_for(editor), kept).content.decode()
    summary = page.split('data-testid="refused-field-summary"', 1)[1].split("</section>", 1)[0]
    assert "(you changed it)" in summary
    assert "&lt;b&gt;sharper&lt;/b&gt;" in summary  # escaped, never markup
    assert 'value="summary" checked' in summary
    body = page.split('data-testid="refused-field-body"', 1)[1].split("</section>", 1)[0]
    assert "(they changed it; yours is the older text)" in body
    assert 'value="body"' in body and 'value="body" checked' not in body
    term = page.split('data-testid="refused-field-term"', 1)[1].split("</section>", 1)[0]
    assert "the draft already says what you wrote" in term


def test_the_comparison_lists_the_rows_the_edit_changed(refuse, editor):
    kept = refuse({"citations-0-note": "Ed's note on the source."})
    page = _merge_page(client_for(editor), kept).content.decode()
    rows = page.split('data-testid="refused-rows-citations"', 1)[1].split("</div>", 1)[0]
    assert "<caption>row 1:" in rows
    assert "Defines it." in rows and "Ed&#x27;s note on the source." in rows
    assert 'name="take_rows" value="citations"' in rows  # Wanda changed no citation


def test_rows_nobody_else_touched_are_taken_as_the_refused_form_left_them(
    refuse, ready_entry, editor
):
    kept = refuse({"citations-0-note": "Ed's note on the source."}, first_body="Wanda's rewrite.")
    response = _take(client_for(editor), kept, take_rows=["citations"])
    assert response.status_code == 302
    ready_entry.refresh_from_db()
    assert ready_entry.citations.get().note == "Ed's note on the source."
    assert ready_entry.body == "Wanda's rewrite."
    event = WorkflowEvent.objects.get(action=WorkflowEvent.Action.MERGE_REFUSED)
    assert "Took citations from the edit refused on" in event.comment
    assert ready_entry.versions.order_by("-number").first().created_by == editor


def test_rows_someone_else_changed_meanwhile_are_not_taken(ready_entry, writer, editor):
    a, b = client_for(writer), client_for(editor)
    a_form, b_form = _open(a, ready_entry), _open(b, ready_entry)
    a_form["citations-0-note"] = "Wanda's note."
    assert a.post(_change(ready_entry), a_form).status_code == 302
    b_form["citations-0-note"] = "Ed's note."
    assert b.post(_change(ready_entry), b_form).status_code == 200
    kept = RefusedEdit.objects.get()
    page = _merge_page(b, kept)
    assert 'name="take_rows"' not in page.content.decode()
    assert "copy yours by hand" in page.content.decode()
    response = b.post(
        f"/admin/refused/{kept.pk}/", {"take_rows": ["citations"], "token": _token(page)}
    )
    assert response.status_code == 200
    assert "were changed after your form was opened" in response.content.decode()
    assert ready_entry.citations.get().note == "Wanda's note."
    assert RefusedEdit.objects.exists()


def test_a_fact_checker_takes_their_citation_rows_back(refuse, ready_entry, fact_checker):
    kept = refuse({"citations-0-note": "Checked: it says so."}, by=fact_checker)
    response = _take(client_for(fact_checker), kept, take_rows=["citations"])
    assert response.status_code == 302
    assert ready_entry.citations.get().note == "Checked: it says so."
    assert (
        WorkflowEvent.objects.get(action=WorkflowEvent.Action.MERGE_REFUSED).actor == fact_checker
    )


def test_taking_a_field_saves_a_version_credited_to_the_author_and_logs_it(
    refuse, ready_entry, editor
):
    kept = refuse(
        {"summary": "Ed's sharper summary.", "body": "Ed's old body."},
        first_body="Wanda's rewrite.",
    )
    response = _take(client_for(editor), kept, take=["summary"])
    assert response.status_code == 302
    ready_entry.refresh_from_db()
    assert ready_entry.summary == "Ed's sharper summary."
    assert ready_entry.body == "Wanda's rewrite."  # theirs kept: not ticked
    version = ready_entry.versions.order_by("-number").first()
    assert (version.number, version.created_by) == (3, editor)
    event = WorkflowEvent.objects.get(action=WorkflowEvent.Action.MERGE_REFUSED)
    assert (event.actor, event.version, event.entry) == (editor, version, ready_entry)
    assert "Took summary from the edit refused on" in event.comment
    assert not RefusedEdit.objects.exists()


def test_taking_after_someone_else_saved_again_takes_nothing_and_says_who(
    refuse, ready_entry, writer, editor
):
    kept = refuse({"summary": "Ed's sharper summary."}, first_body="Wanda's rewrite.")
    ed = client_for(editor)
    token = _token(_merge_page(ed, kept))
    wanda = client_for(writer)
    again = _open(wanda, ready_entry)
    again["body"] = "Wanda's second pass."
    assert wanda.post(_change(ready_entry), again).status_code == 302
    response = ed.post(f"/admin/refused/{kept.pk}/", {"take": ["summary"], "token": token})
    assert response.status_code == 200
    page = response.content.decode()
    assert "Wanda Writer saved this entry at" in page and "nothing was taken" in page
    ready_entry.refresh_from_db()
    assert ready_entry.summary != "Ed's sharper summary."
    assert RefusedEdit.objects.filter(pk=kept.pk).exists()
    # The page now compares with the new draft and carries its token: taking again works.
    new_token = _token(response)
    assert new_token != token
    assert (
        ed.post(f"/admin/refused/{kept.pk}/", {"take": ["summary"], "token": new_token}).status_code
        == 302
    )


def test_a_value_the_entry_form_would_refuse_is_not_taken_and_named(
    refuse, ready_entry, make_entry, editor
):
    make_entry("Other", slug="taken-address")
    kept = refuse({"slug": "taken-address"}, first_body="Wanda's rewrite.")
    response = _take(client_for(editor), kept, take=["slug"])
    assert response.status_code == 200
    assert "Nothing was taken: Address:" in response.content.decode()
    ready_entry.refresh_from_db()
    assert ready_entry.slug != "taken-address"
    assert RefusedEdit.objects.exists()


def test_taking_nothing_is_refused_with_a_reason(refuse, ready_entry, editor):
    response = _take(client_for(editor), refuse({"summary": "E."}))
    assert "Tick at least one field" in response.content.decode()
    assert ready_entry.versions.count() == 2


def test_only_the_author_and_admins_see_a_refused_edit(
    refuse, writer, editor, second_editor, admin_user
):
    kept = refuse({"summary": "E."})
    url = f"/admin/refused/{kept.pk}/"
    assert client_for(second_editor).get(url).status_code == 404
    assert client_for(writer).get(url).status_code == 404
    assert "Interconnect" not in client_for(writer).get("/admin/refused/").content.decode()
    assert client_for(editor).get(url).status_code == 200
    assert "Interconnect" in client_for(editor).get("/admin/refused/").content.decode()
    admin_page = client_for(admin_user).get(url)
    assert admin_page.status_code == 200
    assert 'data-testid="refused-take"' not in admin_page.content.decode()  # reads, not takes
    assert "Ed Editor" in client_for(admin_user).get("/admin/refused/").content.decode()
    assert client_for(None).get(url).status_code == 302


def test_nobody_but_the_author_can_take_it(refuse, ready_entry, admin_user):
    kept = refuse({"summary": "E."})
    token = refused.edit_token(ready_entry)
    response = client_for(admin_user).post(
        f"/admin/refused/{kept.pk}/", {"take": ["summary"], "token": token}
    )
    assert response.status_code == 403
    ready_entry.refresh_from_db()
    assert ready_entry.summary != "E."


def test_discarding_needs_a_post_by_the_author_or_an_admin(
    refuse, ready_entry, editor, second_editor, admin_user
):
    kept = refuse({"summary": "E."})
    url = f"/admin/refused/{kept.pk}/discard/"
    assert client_for(editor).get(url).status_code == 403
    assert client_for(second_editor).post(url).status_code == 404
    assert RefusedEdit.objects.exists()
    assert client_for(admin_user).post(url).status_code == 302
    assert not RefusedEdit.objects.exists()
    assert ready_entry.versions.count() == 2


def test_a_refused_edit_outlives_its_entry_and_can_still_be_read(
    refuse, ready_entry, editor, admin_user
):
    kept = refuse({"summary": "E kept."})
    workflow.delete_entry(ready_entry, user=admin_user)
    kept.refresh_from_db()
    assert kept.entry is None and kept.term == "Interconnect"
    ed = client_for(editor)
    assert "(entry deleted since)" in ed.get("/admin/refused/").content.decode()
    page = ed.get(f"/admin/refused/{kept.pk}/").content.decode()
    assert "The entry has been deleted since" in page
    assert "E kept." in page
    assert ed.post(f"/admin/refused/{kept.pk}/", {"take": ["summary"]}).status_code == 403


def test_a_fact_checkers_refused_edit_holds_only_the_citation_rows(
    refuse, ready_entry, fact_checker
):
    kept = refuse({"citations-0-note": "Checked: it says so."}, by=fact_checker)
    assert refused.choices(kept, ready_entry) == []
    page = client_for(fact_checker).get(f"/admin/refused/{kept.pk}/").content.decode()
    assert "Checked: it says so." in page
    assert 'name="take"' not in page  # the entry's own text is not theirs to change


def test_the_entry_page_names_the_authors_kept_edits_of_it(refuse, ready_entry, writer, editor):
    refuse({"summary": "E."})
    assert (
        'data-testid="presence-kept"'
        in client_for(editor).get(_change(ready_entry)).content.decode()
    )
    assert (
        'data-testid="presence-kept"'
        not in client_for(writer).get(_change(ready_entry)).content.decode()
    )


@pytest.mark.django_db
def test_neither_presence_nor_a_refused_edit_changes_what_readers_see_until_someone_else_publishes(
    entry_in_review, writer, editor, second_editor
):
    """The rule above all others: a mark, a kept refused edit and a field taken from it
    are desk records and a draft; readers keep the published version, and the author
    who took it cannot publish it."""
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    entry.refresh_from_db()
    reader = Client()
    before = reader.get(entry.get_absolute_url()).content
    assert b"nobody approved" not in before
    api_before = reader.get(f"/api/v1/entries/{entry.slug}/").content
    feed_before = reader.get("/feed/").content
    search_before = reader.get("/search/?q=interconnect").content
    assert b"Interconnect" in search_before
    generation = SiteGeneration.objects.values_list("token", flat=True).first()
    live = entry.live_version_id

    _refuse(
        entry,
        writer,
        second_editor,
        first_body="Wanda's unpublished rewrite.",
        second_changes={"summary": "A summary nobody approved."},
    )
    client_for(editor).get(_change(entry))  # presence marks
    client_for(writer).post(f"/admin/presence/{entry.pk}/heartbeat/")
    kept = RefusedEdit.objects.get()
    _take(client_for(second_editor), kept, take=["summary"])
    entry.refresh_from_db()
    assert entry.summary == "A summary nobody approved."
    assert entry.live_version_id == live
    assert SiteGeneration.objects.values_list("token", flat=True).first() == generation
    assert reader.get(entry.get_absolute_url()).content == before
    assert reader.get(f"/api/v1/entries/{entry.slug}/").content == api_before
    assert reader.get("/feed/").content == feed_before
    assert reader.get("/search/?q=interconnect").content == search_before
    # Whoever took it is an author of the change: only someone else may publish it.
    workflow.submit_for_review(entry, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(entry, user=second_editor)
    assert Entry.objects.get(pk=entry.pk).live_version_id == live
    assert reader.get(entry.get_absolute_url()).content == before
