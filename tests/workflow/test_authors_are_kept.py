"""Whoever wrote part of a change stays its author until another editor publishes it.

A hostile walk (2026-12-03) found two ways the desk forgot an author, so that the author
could publish their own text alone:

- deleting an account emptied its versions' author: an admin deleted an editor and made
  a new account of the same name, which then published the old account's unapproved
  text. An account that wrote versions or took workflow steps is now kept (deactivate
  it instead), through the admin's delete page and its bulk action alike.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from editorial import workflow
from glossary.models import Entry
from tests.personas import client_for

pytestmark = pytest.mark.django_db
DEACTIVATE = "Deactivate it\ninstead"


def test_an_account_that_wrote_a_version_is_not_deleted_from_its_page(
    entry_in_review: Callable[..., Entry], writer: User, admin_user: User
) -> None:
    entry_in_review()
    admin = client_for(admin_user)
    url = reverse("admin:auth_user_delete", args=[writer.pk])
    page = admin.get(url).content.decode()
    assert DEACTIVATE in page
    assert "permission" not in page  # refused for what keeps it, not for the asker's rights
    assert 'name="post"' not in page  # no confirmation button
    response = admin.post(url, {"post": "yes"})
    assert DEACTIVATE in response.content.decode()
    assert User.objects.filter(pk=writer.pk).exists()
    # Kept, its change still has its author: nobody else's account can publish it as its own.
    entry = Entry.objects.get()
    assert workflow.change_authors(entry) == {writer.pk}


def test_the_bulk_delete_keeps_an_account_that_took_a_workflow_step(
    entry_in_review: Callable[..., Entry], editor: User, admin_user: User
) -> None:
    entry = entry_in_review()
    workflow.request_changes(entry, user=editor, comment="Cite the datasheet.")
    admin = client_for(admin_user)
    response = admin.post(
        reverse("admin:auth_user_changelist"),
        {"action": "delete_selected", "_selected_action": [editor.pk], "post": "yes"},
    )
    assert DEACTIVATE in response.content.decode()
    assert User.objects.filter(pk=editor.pk).exists()


def test_an_account_that_wrote_nothing_is_deleted_as_before(admin_user: User) -> None:
    mistaken = User.objects.create_user("typo_account", password="pw-typo-1234")
    admin = client_for(admin_user)
    url = reverse("admin:auth_user_delete", args=[mistaken.pk])
    response = admin.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not User.objects.filter(pk=mistaken.pk).exists()


def test_a_writers_long_list_of_versions_is_cut_short_on_the_delete_page(
    entry_in_review: Callable[..., Entry], writer: User, admin_user: User
) -> None:
    entry = entry_in_review()
    for n in range(25):
        workflow.publishing.record_edit(entry, user=writer, comment=f"Edit {n}.")
    page = client_for(admin_user).get(reverse("admin:auth_user_delete", args=[writer.pk]))
    body = page.content.decode()
    assert "would require deleting the following protected related objects" in body
    assert "more</li>" in body
