"""The paper cuts a newsroom will hit (issue 34, second half), one test each, over HTTP."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client

from editorial import workflow
from glossary.models import Entry
from glossary.publishing import record_edit
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(entry_in_review: Callable[..., Entry], editor: User) -> Entry:
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    entry.refresh_from_db()
    return entry


# --- A live entry being edited ----------------------------------------------------------------


def test_a_live_entry_with_a_pending_edit_reads_live_with_unpublished_changes(
    published: Entry, editor: User, writer: User
) -> None:
    record_edit(published, user=writer)
    client = client_for(editor)
    change = client.get(f"/admin/glossary/entry/{published.pk}/change/").content.decode()
    assert '<span class="workflow-status">Live, with unpublished changes</span>' in change
    assert '<span class="workflow-status">Draft</span>' not in change
    assert '<div class="readonly">Live, with unpublished changes</div>' in change
    listed = client.get("/admin/glossary/entry/").content.decode()
    row = listed[listed.index(f">{published.term}<") :]
    row = row[: row.index("</tr>")]
    assert '<td class="field-status_label">Live, with unpublished changes</td>' in row
    dashboard = client.get("/admin/dashboard/").content.decode()
    section = dashboard[dashboard.index('id="live-edited"') : dashboard.index('id="check-dates"')]
    assert published.term in section
    assert "<td>Live, with unpublished changes</td>" in section


def test_a_live_entry_submitted_again_reads_live_with_changes_in_review(
    published: Entry, editor: User, writer: User
) -> None:
    record_edit(published, user=writer)
    workflow.submit_for_review(published, user=writer)
    change = (
        client_for(editor).get(f"/admin/glossary/entry/{published.pk}/change/").content.decode()
    )
    assert '<span class="workflow-status">Live, with changes in review</span>' in change


def test_a_draft_never_published_still_reads_draft_and_a_live_one_published(
    ready_entry: Entry, published: Entry, editor: User
) -> None:
    client = client_for(editor)
    draft = client.get(f"/admin/glossary/entry/{ready_entry.pk}/change/").content.decode()
    assert '<span class="workflow-status">Draft</span>' in draft
    live = client.get(f"/admin/glossary/entry/{published.pk}/change/").content.decode()
    assert '<span class="workflow-status">Published</span>' in live
    dashboard = client.get("/admin/dashboard/").content.decode()
    assert "Every live entry is as readers see it." in dashboard


# --- Public addresses -------------------------------------------------------------------------


def test_the_glossary_folder_redirects_to_the_index(published: Entry, client: Client) -> None:
    response = client.get("/glossary/")
    assert response.status_code == 301
    assert response["Location"] == "/"
    assert f'href="/glossary/{published.slug}/"' in client.get("/glossary/", follow=True).text
