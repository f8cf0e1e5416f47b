"""Every role against every action, on the server: the rule, the functions and the URLs."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied

from editorial import newsroom, workflow
from editorial.models import WorkflowEvent
from editorial.permissions import Action, can
from glossary.models import Citation, Entry
from tests.personas import client_for, reviewed
from tests.workflow.formdata import form_data

ROLES = ["writer", "fact_checker", "editor", "admin", "outsider", "anonymous"]

ALLOWED: dict[str, set[Action]] = {
    "writer": {
        Action.VIEW,
        Action.ADD,
        Action.EDIT,
        Action.SUBMIT,
        Action.SHARE_PREVIEW,
        Action.COMMENT,
    },
    "fact_checker": {Action.VIEW, Action.CONFIRM_CITATION, Action.COMMENT},
    "editor": set(Action) - {Action.CONFIRM_CITATION, Action.DELETE},
    "admin": set(Action),
    "outsider": set(),
    "anonymous": set(),
}


@pytest.mark.parametrize("action", list(Action))
@pytest.mark.parametrize("role", ROLES)
def test_the_rule_allows_exactly_what_each_role_may_do(personas, role, action):
    assert can(personas[role], action) is (action in ALLOWED[role])


def _in_state(entry: Entry, status: str) -> Entry:
    Entry.objects.filter(pk=entry.pk).update(status=status)
    entry.refresh_from_db()
    return entry


def _publish_as_someone_else(entry: Entry, second_editor: Any) -> Entry:
    _in_state(entry, Entry.Status.IN_REVIEW)
    workflow.publish_entry(entry, user=second_editor)
    entry.refresh_from_db()
    return entry


# Each case: the state it starts from, the request, and how to tell it happened.
def _change_page(entry, client, **_):
    return client.get(f"/admin/glossary/entry/{entry.pk}/change/").status_code == 200


def _add_page(entry, client, **_):
    return client.get("/admin/glossary/entry/add/").status_code == 200


def _edit(entry, client, **_):
    page = client.get(f"/admin/glossary/entry/{entry.pk}/change/")
    if page.status_code != 200:
        return False
    data = form_data(page.content.decode())
    # Posted even when the page shows the body read-only: the server must ignore it.
    data["body"] = "Edited."
    client.post(f"/admin/glossary/entry/{entry.pk}/change/", data)
    entry.refresh_from_db()
    return entry.body == "Edited."


def _delete(entry, client, **_):
    client.post(f"/admin/glossary/entry/{entry.pk}/delete/", {"post": "yes"})
    return not Entry.objects.filter(pk=entry.pk).exists()


def _post_transition(name: str, status: str, expected: str, **data: str):
    def run(entry, client, second_editor, **_):
        if status == Entry.Status.PUBLISHED:
            _publish_as_someone_else(entry, second_editor)
        else:
            _in_state(entry, status)
        # The publish form carries the version the editor was shown.
        shown = {"expected_version": reviewed(entry)} if name == "publish" else {}
        client.post(f"/admin/glossary/entry/{entry.pk}/{name}/", {**data, **shown})
        entry.refresh_from_db()
        return entry.status == expected

    return run


def _override(entry, client, unsourced_entry, **_):
    _in_state(unsourced_entry, Entry.Status.IN_REVIEW)
    client.post(
        f"/admin/glossary/entry/{unsourced_entry.pk}/publish/",
        {
            "override_reason": "The source is in the show notes.",
            "material": "1",
            "expected_version": reviewed(unsourced_entry),
        },
    )
    unsourced_entry.refresh_from_db()
    return unsourced_entry.is_live


def _rollback(entry, client, **_):
    client.post(f"/admin/glossary/entry/{entry.pk}/rollback/1/")
    return entry.versions.count() == 2


def _share(entry, client, **_):
    response = client.post(f"/admin/glossary/entry/{entry.pk}/share/")
    return response.status_code == 200 and b"/preview/s/" in response.content


def _confirm(entry, client, **_):
    citation = Citation.objects.get(entry=entry)
    Citation.objects.filter(pk=citation.pk).update(checked_on=None)
    page = client.get(f"/admin/glossary/entry/{entry.pk}/change/")
    if page.status_code != 200:
        return False
    data = form_data(page.content.decode())
    data["citations-0-checked_on"] = "2026-11-29"
    client.post(f"/admin/glossary/entry/{entry.pk}/change/", data)
    citation.refresh_from_db()
    return citation.checked_on == datetime.date(2026, 11, 29)


def _merge_tags(entry, client, **_):
    entry.tags.set(["AI", "Artificial intelligence"])
    selected = [str(t.pk) for t in entry.tags.all()]
    client.post(
        "/admin/taggit/tag/",
        {"action": "merge_tags", "_selected_action": selected, "merge": "1", "name": "AI"},
    )
    return sorted(t.name for t in entry.tags.all()) == ["AI"]


def _schedule(entry, client, **_):
    # Scheduling's pages are the gates engineer's; the permission is checked by can().
    return can(client.user, Action.SCHEDULE)


def _comment(entry, client, **_):
    client.post(
        f"/admin/glossary/entry/{entry.pk}/comments/add/",
        {"field": "summary", "text": "Is this the right word?"},
    )
    return entry.comments.filter(text="Is this the right word?").exists()


def _assign(entry, client, second_editor, **_):
    due = newsroom.today() + datetime.timedelta(days=3)
    client.post(
        f"/admin/assign/{entry.pk}/",
        {"role": "writer", "assignee": second_editor.pk, "due_on": due.isoformat()},
    )
    return entry.assignments.filter(assignee=second_editor).exists()


CASES = {
    Action.VIEW: _change_page,
    Action.ADD: _add_page,
    Action.EDIT: _edit,
    Action.DELETE: _delete,
    Action.SUBMIT: _post_transition("submit", Entry.Status.DRAFT, Entry.Status.IN_REVIEW),
    Action.REQUEST_CHANGES: _post_transition(
        "request-changes",
        Entry.Status.IN_REVIEW,
        Entry.Status.CHANGES_REQUESTED,
        comment="Add a quote.",
    ),
    Action.PUBLISH: _post_transition(
        "publish", Entry.Status.IN_REVIEW, Entry.Status.PUBLISHED, material="1"
    ),
    Action.OVERRIDE_GATES: _override,
    Action.UNPUBLISH: _post_transition(
        "unpublish", Entry.Status.PUBLISHED, Entry.Status.DRAFT, reason="Legal asked."
    ),
    Action.ARCHIVE: _post_transition("archive", Entry.Status.DRAFT, Entry.Status.ARCHIVED),
    Action.SCHEDULE: _schedule,
    Action.ROLLBACK: _rollback,
    Action.CONFIRM_CITATION: _confirm,
    Action.SHARE_PREVIEW: _share,
    Action.MANAGE_TAGS: _merge_tags,
    Action.COMMENT: _comment,
    Action.ASSIGN: _assign,
}


def test_every_action_has_a_url_case():
    assert set(CASES) == set(Action)


@pytest.mark.parametrize("action", list(Action))
@pytest.mark.parametrize("role", ROLES)
def test_the_admin_urls_enforce_each_role(
    personas, second_editor, ready_entry, unsourced_entry, role, action
):
    user = personas[role]
    client = client_for(user)
    client.user = user  # type: ignore[attr-defined]  # the cases read who is asking
    done = CASES[action](
        ready_entry,
        client,
        second_editor=second_editor,
        unsourced_entry=unsourced_entry,
    )
    assert done is (action in ALLOWED[role])


WORKFLOW_FUNCTIONS = {
    Action.SUBMIT: (Entry.Status.DRAFT, lambda e, u: workflow.submit_for_review(e, user=u)),
    Action.REQUEST_CHANGES: (
        Entry.Status.IN_REVIEW,
        lambda e, u: workflow.request_changes(e, user=u, comment="Why?"),
    ),
    Action.PUBLISH: (Entry.Status.IN_REVIEW, lambda e, u: workflow.publish_entry(e, user=u)),
    Action.ARCHIVE: (Entry.Status.DRAFT, lambda e, u: workflow.archive_entry(e, user=u)),
    Action.ROLLBACK: (
        Entry.Status.DRAFT,
        lambda e, u: workflow.rollback_to(e, e.versions.get(number=1), user=u),
    ),
}


@pytest.mark.parametrize("action", list(WORKFLOW_FUNCTIONS))
@pytest.mark.parametrize("role", ROLES)
def test_the_workflow_functions_refuse_whoever_may_not(personas, ready_entry, role, action):
    status, call = WORKFLOW_FUNCTIONS[action]
    _in_state(ready_entry, status)
    if action in ALLOWED[role]:
        call(ready_entry, personas[role])
        assert WorkflowEvent.objects.filter(entry=ready_entry).count() == 1
    else:
        with pytest.raises(PermissionDenied):
            call(ready_entry, personas[role])
        assert not WorkflowEvent.objects.filter(entry=ready_entry).exists()
        ready_entry.refresh_from_db()
        assert ready_entry.status == status
