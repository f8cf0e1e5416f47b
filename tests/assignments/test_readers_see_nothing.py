"""The rule above assignments: planning never changes what readers see.

An assignment (made, changed or done) writes nothing a reader reads; a planned entry
(a term, no body) is a draft that the publish checks refuse, and no override reason
publishes it. Readers see a change only once someone other than its author publishes it.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.test import Client

from editorial import assignments, gates, workflow
from editorial.workflow import GateFailed
from glossary.models import Entry, SiteGeneration
from glossary.publishing import record_edit
from tests.personas import client_for, reviewed

pytestmark = pytest.mark.django_db

DUE = datetime.date.today() + datetime.timedelta(days=7)


def _what_readers_see(client: Client, entry: Entry) -> dict[str, Any]:
    entry.refresh_from_db()
    responses = {
        "page": client.get(f"/glossary/{entry.slug}/"),
        "api": client.get(f"/api/v1/entries/{entry.slug}/"),
        "feed": client.get("/feed/"),
        "sitemap": client.get("/sitemap.xml"),
        "search": client.get("/search/", {"q": entry.term}),
    }
    return {
        **{name: (r.status_code, r.content) for name, r in responses.items()},
        "generation": list(SiteGeneration.objects.values_list("token", flat=True)),
        "updated_at": entry.updated_at,
        "versions": entry.versions.count(),
        "status": (entry.status, entry.has_unpublished_changes, entry.live_version_id),
    }


def test_assigning_reassigning_and_finishing_never_change_what_readers_see(
    entry_in_review, editor, second_editor, writer, fact_checker
):
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    client = Client()
    before = _what_readers_see(client, entry)
    assert before["page"][0] == 200

    made = assignments.assign(
        entry, role="writer", assignee=writer, due_on=DUE, user=editor, note="SECRET-PLAN"
    )
    assignments.assign(
        entry,
        role="writer",
        assignee=writer,
        due_on=DUE + datetime.timedelta(days=1),
        user=second_editor,
    )
    checked = assignments.assign(
        entry, role="fact_checker", assignee=fact_checker, due_on=DUE, user=editor
    )
    assignments.mark_done(made, user=writer)
    assignments.mark_done(checked, user=fact_checker)

    after = _what_readers_see(client, entry)
    assert after == before
    assert b"SECRET-PLAN" not in after["page"][1]


def test_assigning_from_the_admin_leaves_the_public_site_alone(entry_in_review, editor, writer):
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    client = Client()
    before = _what_readers_see(client, entry)

    response = client_for(editor).post(
        f"/admin/assign/{entry.pk}/",
        {"role": "writer", "assignee": writer.pk, "due_on": DUE.isoformat(), "note": "x"},
    )
    assert response.status_code == 302

    assert _what_readers_see(client, entry) == before


def test_a_planned_entry_is_a_draft_readers_cannot_reach(editor, writer):
    entry = assignments.plan_entry(
        Entry(term="Photonic fabric", slug="photonic-fabric"),
        user=editor,
        assignments=[("writer", writer, DUE)],
    )

    entry.refresh_from_db()
    assert (entry.status, entry.body, entry.live_version_id) == (Entry.Status.DRAFT, "", None)
    assert entry.versions.get().created_by == editor
    client = Client()
    assert client.get("/glossary/photonic-fabric/").status_code == 404
    assert client.get("/api/v1/entries/photonic-fabric/").status_code == 404
    assert b"Photonic" not in client.get("/feed/").content


def test_the_publish_checks_refuse_an_empty_body(make_entry):
    entry = make_entry("Empty", body="   \n")
    [result] = [r for r in gates.run_gates(entry) if r.code == gates.BODY_PRESENT]
    assert result.blocks
    assert "body is empty" in result.message


def test_the_publish_checks_pass_a_written_body(make_entry):
    entry = make_entry("Written")
    [result] = [r for r in gates.run_gates(entry) if r.code == gates.BODY_PRESENT]
    assert result.passed and result.blocking


def test_no_override_reason_publishes_a_planned_entry(
    make_ready_entry, writer, editor, second_editor
):
    # A planned entry submitted with its term and summary but still no body.
    entry = make_ready_entry("Planned", body="", in_review=True)

    with pytest.raises(GateFailed, match="No override reason publishes an entry with no body"):
        workflow.publish_entry(entry, user=second_editor, override_reason="Ship it anyway.")

    entry.refresh_from_db()
    assert entry.live_version_id is None
    assert Client().get(f"/glossary/{entry.slug}/").status_code == 404


def test_once_written_a_planned_entry_is_published_by_someone_else(
    make_ready_entry, writer, editor
):
    entry = make_ready_entry("Planned", body="", in_review=False)
    assignments.assign(entry, role="writer", assignee=writer, due_on=DUE, user=editor)
    entry.body = "Now written."
    entry.save()
    record_edit(entry, user=writer, comment="Wrote it.")
    workflow.submit_for_review(entry, user=writer)
    workflow.publish_entry(entry, user=editor)

    assert Client().get(f"/glossary/{entry.slug}/").status_code == 200


def test_the_dashboard_finds_a_published_entry_whose_body_was_emptied(make_entry):
    entry = make_entry("Emptied", body="")
    assert Entry.objects.filter(gates.may_fail_blocking(), pk=entry.pk).exists()


def test_the_publish_page_says_no_reason_publishes_an_empty_body(
    make_ready_entry, writer, second_editor
):
    entry = make_ready_entry("Planned", body="", in_review=True)

    page = client_for(second_editor).post(
        f"/admin/glossary/entry/{entry.pk}/publish/",
        {
            "override_reason": "Ship it anyway.",
            "material": "1",
            "expected_version": reviewed(entry),
        },
    )

    assert page.status_code == 400  # the publish page, with the reason it was refused
    assert "no reason publishes an entry with nothing to read" in page.content.decode()
    assert "Ship it anyway." in page.content.decode()  # what was typed stays
    entry.refresh_from_db()
    assert entry.live_version_id is None
