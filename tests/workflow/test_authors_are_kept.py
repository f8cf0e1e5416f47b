"""Whoever wrote part of a change stays its author until another editor publishes it.

The desk must not forget an author, or the author could publish their own text alone:

- deleting an account would empty its versions' author (an admin could delete an editor
  and make a new account of the same name, which would then publish the old account's
  unapproved text). An account that wrote versions or took workflow steps is kept
  (deactivate it instead), through the admin's delete page and its bulk action alike.
- an edit to a shared record credited only to the entries showing the record when it was
  made would let an editor retitle a source nobody cited, wait for an entry to take it
  up later (a new citation, a rollback to a version citing it) in a version credited to
  someone else, and publish their own title. So whoever added or changed a record is an
  author of any change that would show readers the record as it now is.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse

from editorial import workflow
from glossary import publishing
from glossary.models import Citation, Entry, Quote, Show, Source
from glossary.transcript_imports import import_transcript
from tests.personas import client_for
from tests.visibility.desk import edit_entry, edit_object
from tests.workflow.formdata import form_data

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
        publishing.record_edit(entry, user=writer, comment=f"Edit {n}.")
    page = client_for(admin_user).get(reverse("admin:auth_user_delete", args=[writer.pk]))
    body = page.content.decode()
    assert "would require deleting the following protected related objects" in body
    assert "more</li>" in body


RETITLED = "A title the editor wrote and nobody approved"


def cite(entry: Entry, source: Source, writer: User) -> None:
    """The writer cites `source` in the entry and saves (the entry form's citation row)."""
    Citation.objects.create(entry=entry, source=source, note="Says so.", checked_on=TODAY)
    publishing.record_edit(entry, user=writer, comment="Cited another source.")


TODAY = datetime.date.today() - datetime.timedelta(days=1)


@pytest.fixture
def cites_a_retitled_source(
    entry_in_review: Callable[..., Entry],
    make_source: Callable[..., Source],
    writer: User,
    editor: User,
    second_editor: User,
) -> Entry:
    """A live entry whose writer has since cited a source the editor retitled while no
    entry cited it (so the retitle made no version and credited nobody)."""
    entry = entry_in_review()
    workflow.publish_entry(entry, user=second_editor)
    uncited = make_source(health=Source.Health.OK)
    edit_object(editor, "glossary_source", uncited.pk, title=RETITLED)
    assert entry.versions.count() == 1
    cite(entry, uncited, writer)
    return entry


def test_an_editor_cannot_publish_a_source_title_they_wrote_that_an_entry_cites_later(
    cites_a_retitled_source: Entry, writer: User, editor: User, second_editor: User
) -> None:
    entry = cites_a_retitled_source
    workflow.submit_for_review(entry, user=writer)

    with pytest.raises(workflow.SelfApprovalRefused, match=RETITLED):
        workflow.publish_entry(entry, user=editor)
    page = client_for(editor).get(reverse("admin:glossary_entry_publish", args=[entry.pk]))
    assert f"You edited “{RETITLED}”, which this change would show readers anew" in (
        page.content.decode()
    )
    panel = client_for(editor).get(reverse("admin:glossary_entry_change", args=[entry.pk]))
    assert "Review checks and publish" not in panel.content.decode()
    assert RETITLED not in client_for(None).get(f"/glossary/{entry.slug}/").content.decode()

    workflow.publish_entry(entry, user=second_editor)  # who did not write it may
    assert RETITLED in client_for(None).get(f"/glossary/{entry.slug}/").content.decode()
    # Readers see the record as it is now: the editor's edit is approved, and no longer
    # keeps them from approving the writer's next change.
    edit_entry(writer, entry, summary="A later change by the writer.")
    workflow.submit_for_review(entry, user=writer)
    workflow.publish_entry(entry, user=editor)


def test_a_rollback_that_brings_back_a_source_an_editor_retitled_is_not_theirs_to_publish(
    entry_in_review: Callable[..., Entry],
    writer: User,
    editor: User,
    second_editor: User,
    admin_user: User,
) -> None:
    """The retitled source, brought back by another editor's rollback, is still its
    retitler's change."""
    entry = entry_in_review()
    workflow.publish_entry(entry, user=second_editor)
    first = entry.versions.get(number=1)
    (old,) = Citation.objects.filter(entry=entry)
    source = old.source
    Citation.objects.create(
        entry=entry, source=Source.objects.create(url="https://docs.example/new", title="New"),
        note="Defines it.", checked_on=TODAY,
    )  # fmt: skip
    old.delete()
    publishing.record_edit(entry, user=writer, comment="Cited a better source.")
    workflow.submit_for_review(entry, user=writer)
    workflow.publish_entry(entry, user=second_editor)
    # No page shows the old source now: the retitle makes no version.
    versions = entry.versions.count()
    edit_object(editor, "glossary_source", source.pk, title=RETITLED)
    assert entry.versions.count() == versions
    workflow.rollback_to(entry, first, user=second_editor)
    workflow.submit_for_review(entry, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused, match=RETITLED):
        workflow.publish_entry(entry, user=editor)
    assert RETITLED not in client_for(None).get(f"/glossary/{entry.slug}/").content.decode()
    workflow.publish_entry(entry, user=admin_user)


def test_a_source_an_editor_added_is_theirs_until_another_editor_publishes_it(
    entry_in_review: Callable[..., Entry], writer: User, editor: User, second_editor: User
) -> None:
    entry = entry_in_review()
    workflow.publish_entry(entry, user=second_editor)
    client = client_for(editor)
    url = reverse("admin:glossary_source_add")
    data = form_data(client.get(url).content.decode(), "source_form")
    data.update(url="https://docs.example/added-by-the-editor", title=RETITLED)
    response = client.post(url, data)
    assert response.status_code == 302
    cite(entry, Source.objects.get(title=RETITLED), writer)
    workflow.submit_for_review(entry, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused, match=RETITLED):
        workflow.publish_entry(entry, user=editor)
    workflow.publish_entry(entry, user=second_editor)


def test_a_schedule_by_the_editor_of_a_record_the_change_shows_is_refused(
    cites_a_retitled_source: Entry, writer: User, editor: User
) -> None:
    entry = cites_a_retitled_source
    workflow.submit_for_review(entry, user=writer)
    client = client_for(editor)
    url = reverse("admin:editorial_scheduledaction_add") + f"?entry={entry.pk}&action=publish"
    data = form_data(client.get(url).content.decode(), "scheduledaction_form")
    data.update(due_date="2099-01-05", due_time="09:00")
    body = client.post(url, data).content.decode()
    assert f"You edited “{RETITLED}”" in body
    assert not entry.scheduled_actions.exists()


def test_a_merged_entry_is_not_for_the_author_the_file_names_to_publish(
    entry_in_review: Callable[..., Entry],
    writer: User,
    editor: User,
    second_editor: User,
    tmp_path: Any,
) -> None:
    """A draft added by `import_glossary --merge` carries a version credited to the writer
    the file names, so that writer cannot publish their own text (with no version,
    publishing would save one credited to the publisher)."""
    entry_in_review()  # the exported row the merged entry copies
    path = tmp_path / "export.json"
    call_command("export_glossary", str(path), "--no-progress")
    data = json.loads(path.read_text())
    (row,) = data["tables"]["entries"]
    merged_row = {**row, "id": 900, "slug": "merged-term", "term": "Merged term"}
    merged_row.update(created_by=editor.username, updated_by=editor.username)
    merged_row.update(live_version=None, status="draft")
    data["tables"]["entries"].append(merged_row)  # no parts: theirs are entry 1's
    path.write_text(json.dumps(data))
    call_command("import_glossary", str(path), "--merge", "--no-progress", stdout=StringIO())
    merged = Entry.objects.get(slug="merged-term")
    assert [v.created_by for v in merged.versions.all()] == [editor]
    workflow.submit_for_review(merged, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(merged, user=editor, override_reason="Cites nothing yet.")
    workflow.publish_entry(merged, user=second_editor, override_reason="Cites nothing yet.")


def test_a_draft_version_is_not_deleted_on_its_own(
    entry_in_review: Callable[..., Entry], writer: User, editor: User, admin_user: User
) -> None:
    """An editor's draft version cannot be deleted on its own, so the writer cannot save
    the same text again as a version of their own for the editor to publish."""
    entry = entry_in_review()
    edit_entry(editor, entry, body="The editor's unapproved text.")
    draft = entry.versions.get(number=2)
    admin = client_for(admin_user)
    url = reverse("admin:glossary_entryversion_delete", args=[draft.pk])
    response = admin.post(url, {"post": "yes"}, follow=True)
    assert "is not deleted on its own: nothing was deleted" in response.content.decode()
    listed = reverse("admin:glossary_entryversion_changelist")
    response = admin.post(listed, {"action": "delete_selected", "_selected_action": [draft.pk]})
    assert entry.versions.filter(pk=draft.pk).exists()
    page = admin.get(reverse("admin:glossary_entryversion_change", args=[draft.pk]))
    assert url not in page.content.decode()  # no delete link
    # Deleting the whole entry still deletes its versions.
    entry_url = reverse("admin:glossary_entry_delete", args=[entry.pk])
    assert admin.post(entry_url, {"post": "yes"}).status_code == 302
    assert not Entry.objects.filter(pk=entry.pk).exists()


def test_whoever_set_a_shows_feed_url_is_kept(admin_user: User, editor: User) -> None:
    show = Show.objects.create(name="Signals", slug="signals", feed_url_set_by=editor)
    page = client_for(admin_user).post(
        reverse("admin:auth_user_delete", args=[editor.pk]), {"post": "yes"}
    )
    assert DEACTIVATE in page.content.decode()
    show.refresh_from_db()
    assert show.feed_url_set_by == editor


def add_citation_row(client: Any, entry: Entry, term: str | None = None, **row: str) -> Any:
    """Post the entry's change form with one more citation row (`row`'s fields)."""
    url = reverse("admin:glossary_entry_change", args=[entry.pk])
    data = form_data(client.get(url).content.decode())
    if term is not None:
        data["term"] = term
    n = int(data["citations-TOTAL_FORMS"])
    data["citations-TOTAL_FORMS"] = str(n + 1)
    data.update({f"citations-{n}-{name}": value for name, value in row.items()})
    return client.post(url, data)


def test_a_source_made_by_pasting_a_url_into_a_citation_is_its_pasters(
    entry_in_review: Callable[..., Entry], writer: User, editor: User, second_editor: User
) -> None:
    """The entry form that makes a source from a pasted URL and a title notes its editor,
    even when the rest of the form is refused."""
    planted = "https://docs.example/planted-by-the-editor"
    mine = entry_in_review("Mine")
    refused = add_citation_row(
        client_for(editor), mine, term="", order="9", new_url=planted, new_title=RETITLED
    )
    assert refused.status_code == 200  # the term is required: nothing of the form is saved
    assert mine.versions.count() == 1
    entry = entry_in_review()
    workflow.publish_entry(entry, user=second_editor)
    saved = add_citation_row(client_for(writer), entry, order="2", new_url=planted, note="Says.")
    assert saved.status_code == 302
    workflow.submit_for_review(entry, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused, match=RETITLED):
        workflow.publish_entry(entry, user=editor)
    workflow.publish_entry(entry, user=second_editor, override_reason="Checked by hand.")


def test_a_transcript_an_editor_uploaded_is_theirs_in_a_quote_another_entry_takes_up(
    demo: Any, writer: User, editor: User, second_editor: User
) -> None:
    """A quote's check freezes the transcript around it into the version, so a
    transcript's uploader is an author of that passage: their planted line cannot reach
    readers in an entry the writer saved, published by the uploader."""
    quoted = Quote.objects.get(entry__slug="interconnect", start=1538)
    episode = quoted.episode
    planted = "A line the editor wrote, never said on air."
    import_transcript(
        episode,
        "WEBVTT\n\n00:25:38.000 --> 00:25:44.000\n"
        f"<v {quoted.speaker.name}>{quoted.verbatim or quoted.text}\n\n"
        f"00:25:44.000 --> 00:25:50.000\n<v {quoted.speaker.name}>{planted}\n",
        origin="planted.vtt",
        user=editor,
    )
    other = Entry.objects.filter(live_version__isnull=False).exclude(quotes__episode=episode)[0]
    Quote.objects.create(
        entry=other, episode=episode, speaker=quoted.speaker, start=1538,
        text=quoted.text, verbatim=quoted.verbatim,
    )  # fmt: skip
    version = publishing.record_edit(other, user=writer, comment="Quoted the episode.")
    assert planted in str(version.data)  # the check's passage, frozen into the version
    workflow.submit_for_review(other, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused, match="the transcript of"):
        workflow.publish_entry(other, user=editor, override_reason="Checked by hand.")
    workflow.publish_entry(other, user=second_editor, override_reason="Checked by hand.")


def test_a_tag_a_merge_made_is_its_editors(
    entry_in_review: Callable[..., Entry],
    writer: User,
    editor: User,
    second_editor: User,
) -> None:
    from taggit.models import Tag

    first, second = entry_in_review("First"), entry_in_review("Second")
    first.tags.add("alpha")
    second.tags.add("beta")
    client = client_for(editor)
    listed = reverse("admin:taggit_tag_changelist")
    tags = list(Tag.objects.filter(name__in=["alpha", "beta"]).values_list("pk", flat=True))
    client.post(
        listed,
        {"action": "merge_tags", "_selected_action": tags, "merge": "1", "name": RETITLED},
    )
    made = Tag.objects.get(name=RETITLED)
    entry = entry_in_review("Third")
    workflow.publish_entry(entry, user=second_editor)
    entry.tags.add(made)
    publishing.record_edit(entry, user=writer, comment="Tagged.")
    workflow.submit_for_review(entry, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused, match=RETITLED):
        workflow.publish_entry(entry, user=editor)
