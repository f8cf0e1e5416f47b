"""Two people edit the same entry: the second stale save is refused and loses nothing."""

from __future__ import annotations

from editorial import workflow
from glossary.models import Entry
from tests.personas import client_for
from tests.workflow.formdata import form_data


def _open(client, entry):
    page = client.get(f"/admin/glossary/entry/{entry.pk}/change/")
    assert page.status_code == 200
    return form_data(page.content.decode())


def _save(client, entry, data):
    return client.post(f"/admin/glossary/entry/{entry.pk}/change/", data)


def test_the_second_stale_save_is_refused_naming_who_saved_in_between(ready_entry, writer, editor):
    wanda, ed = client_for(writer), client_for(editor)
    wanda_form, ed_form = _open(wanda, ready_entry), _open(ed, ready_entry)

    wanda_form["body"] = "Wanda's careful rewrite."
    assert _save(wanda, ready_entry, wanda_form).status_code == 302

    ed_form["body"] = "Ed's quick fix."
    ed_form["citations-0-note"] = "Ed's note on the source."
    response = _save(ed, ready_entry, ed_form)

    assert response.status_code == 200
    page = response.content.decode()
    assert "Wanda Writer saved this entry" in page
    assert f"/admin/glossary/entry/{ready_entry.pk}/compare/?a=1&amp;b=2" in page
    # Nothing Ed typed is lost: it is all still in the form.
    assert "Ed&#x27;s quick fix." in page or "Ed's quick fix." in page
    assert "on the source." in page
    ready_entry.refresh_from_db()
    assert ready_entry.body == "Wanda's careful rewrite."
    assert ready_entry.versions.count() == 2


def test_saving_again_after_the_warning_keeps_the_second_version_and_the_first_in_history(
    ready_entry, writer, editor
):
    wanda, ed = client_for(writer), client_for(editor)
    wanda_form, ed_form = _open(wanda, ready_entry), _open(ed, ready_entry)
    wanda_form["body"] = "Wanda's text."
    _save(wanda, ready_entry, wanda_form)
    ed_form["body"] = "Ed's text."
    refused = _save(ed, ready_entry, ed_form)
    # The re-shown form carries the new token: saving it again is a deliberate choice.
    again = form_data(refused.content.decode())
    assert again["body"] == "Ed's text."
    assert _save(ed, ready_entry, again).status_code == 302
    ready_entry.refresh_from_db()
    assert ready_entry.body == "Ed's text."
    bodies = [v.data["body"] for v in ready_entry.versions.order_by("number")]
    assert bodies == ["Interconnect is explained here.", "Wanda's text.", "Ed's text."]


def test_an_inline_only_save_also_makes_other_open_forms_stale(ready_entry, writer, fact_checker):
    checker, wanda = client_for(fact_checker), client_for(writer)
    checker_form, wanda_form = _open(checker, ready_entry), _open(wanda, ready_entry)
    checker_form["citations-0-checked_on"] = "2026-11-20"
    assert _save(checker, ready_entry, checker_form).status_code == 302
    wanda_form["body"] = "Wanda's edit."
    response = _save(wanda, ready_entry, wanda_form)
    assert response.status_code == 200
    assert "Fiona Checker saved this entry" in response.content.decode()


def test_a_workflow_step_in_between_does_not_refuse_the_save(ready_entry, writer, editor):
    wanda = client_for(writer)
    form = _open(wanda, ready_entry)
    workflow.submit_for_review(ready_entry, user=writer)
    form["body"] = "Still editing while in review."
    assert _save(wanda, ready_entry, form).status_code == 302
    ready_entry.refresh_from_db()
    assert ready_entry.body == "Still editing while in review."
    assert ready_entry.status == Entry.Status.IN_REVIEW


def test_a_form_without_its_edit_token_is_refused(ready_entry, writer):
    wanda = client_for(writer)
    form = _open(wanda, ready_entry)
    del form["edit_token"]
    form["body"] = "No token."
    assert _save(wanda, ready_entry, form).status_code == 200
    ready_entry.refresh_from_db()
    assert ready_entry.body != "No token."
