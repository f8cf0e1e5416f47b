"""The comments panel on the entry page and the addresses its buttons post to."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editorial import comments
from editorial.models import Comment
from tests.personas import client_for

pytestmark = pytest.mark.django_db

BODY = "Interconnect is the fabric between accelerators. It carries 1.8 TB/s per GPU."


@pytest.fixture
def entry(make_ready_entry):
    return make_ready_entry(body=BODY)


def _page(client, entry):
    response = client.get(f"/admin/glossary/entry/{entry.pk}/change/")
    assert response.status_code == 200
    return response.content.decode()


def _post(client, entry, what, data=None, comment=None):
    where = f"comments/{comment.pk}/{what}/" if comment else "comments/add/"
    return client.post(f"/admin/glossary/entry/{entry.pk}/{where}", data or {})


def test_a_fact_checker_starts_a_thread_on_a_passage_and_sees_it(entry, fact_checker):
    client = client_for(fact_checker)
    response = _post(
        client,
        entry,
        "add",
        {"field": "body", "quote": "It carries 1.8 TB/s per GPU.", "text": "Per direction?"},
    )

    thread = Comment.objects.get()
    assert response.status_code == 302
    assert response["Location"].endswith(f"/change/#comment-{thread.pk}")
    page = _page(client, entry)
    assert 'id="comments"' in page
    assert "Comments · 1 open" in page
    assert "<blockquote>It carries 1.8 TB/s per GPU.</blockquote>" in page
    assert "Per direction?" in page
    assert "Fiona Checker</strong> (@fiona_checker)" in page


def test_a_refused_comment_comes_back_with_everything_typed(entry, editor):
    client = client_for(editor)
    typed = {"field": "body", "quote": "It carries 2 TB/s", "text": "My long careful note"}

    _post(client, entry, "add", typed)

    assert not Comment.objects.exists()
    page = _page(client, entry)
    assert "Nothing was posted: The passage “It carries 2 TB/s” is not in the saved body" in page
    assert ">My long careful note</textarea>" in page
    assert ">It carries 2 TB/s</textarea>" in page
    assert '<option value="body" selected>' in page
    # Shown once: the next visit starts with empty boxes.
    assert "My long careful note" not in _page(client, entry)


def test_a_refused_reply_keeps_its_text_under_its_thread(entry, editor, writer):
    thread = comments.start_thread(entry, user=editor, field="summary", text="Shorter?")

    client = client_for(writer)
    _post(client, entry, "reply", {"text": "@nobody_here agreed"}, thread)

    page = _page(client, entry)
    assert "Nobody on the desk has the username “@nobody_here”" in page
    assert ">@nobody_here agreed</textarea>" in page
    assert not thread.replies.exists()


def test_replying_resolving_and_reopening_through_the_panel(entry, editor, writer):
    thread = comments.start_thread(entry, user=editor, field="summary", text="Shorter?")
    client = client_for(writer)

    _post(client, entry, "reply", {"text": "Done."}, thread)
    _post(client, entry, "resolve", comment=thread)
    thread.refresh_from_db()
    assert thread.replies.get().text == "Done."
    assert thread.resolved_by == writer
    page = _page(client, entry)
    assert "Comments · 0 open, 1 in all" in page
    assert 'value="Reopen thread"' in page

    _post(client, entry, "reopen", comment=thread)
    thread.refresh_from_db()
    assert not thread.is_resolved


def test_only_the_author_is_offered_an_edit_and_only_the_author_may_edit(entry, editor, writer):
    thread = comments.start_thread(entry, user=editor, field="summary", text="Shorter?")

    assert f"/comments/{thread.pk}/edit/" not in _page(client_for(writer), entry)
    assert f"/comments/{thread.pk}/edit/" in _page(client_for(editor), entry)
    _post(client_for(writer), entry, "edit", {"text": "Longer!"}, thread)
    thread.refresh_from_db()
    assert thread.text == "Shorter?"

    _post(client_for(editor), entry, "edit", {"text": "Much shorter?"}, thread)
    thread.refresh_from_db()
    assert thread.text == "Much shorter?"
    assert "edited" in _page(client_for(editor), entry)


def test_buttons_only_post(entry, editor):
    thread = comments.start_thread(entry, user=editor, field="summary", text="Shorter?")
    client = client_for(editor)

    assert client.get(f"/admin/glossary/entry/{entry.pk}/comments/add/").status_code == 403
    resolve = f"/admin/glossary/entry/{entry.pk}/comments/{thread.pk}/resolve/"
    assert client.get(resolve).status_code == 403
    assert not Comment.objects.get().is_resolved


def test_a_comment_of_another_entry_is_not_found_under_this_one(entry, make_ready_entry, editor):
    other = make_ready_entry("Other")
    thread = comments.start_thread(other, user=editor, field="summary", text="Shorter?")

    response = _post(client_for(editor), entry, "resolve", comment=thread)

    assert response.status_code == 404
    thread.refresh_from_db()
    assert not thread.is_resolved


def test_commenting_leaves_an_open_entry_form_current(entry, editor, writer):
    """Saving the form after someone commented is not a conflict: the entry did not change."""
    from tests.workflow.formdata import form_data

    client = client_for(writer)
    data = form_data(_page(client, entry))
    comments.start_thread(entry, user=editor, field="summary", text="Shorter?")

    data["summary"] = "A shorter summary."
    response = client.post(f"/admin/glossary/entry/{entry.pk}/change/", data)

    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.summary == "A shorter summary."


def test_the_panel_costs_the_same_queries_however_many_comments(entry, editor, writer):
    client = client_for(editor)
    thread = comments.start_thread(entry, user=editor, field="body", text="One")
    with CaptureQueriesContext(connection) as few:
        _page(client, entry)
    for n in range(5):
        more = comments.start_thread(entry, user=writer, field="summary", text=f"More {n}")
        comments.reply(more, user=editor, text="Reply")
        comments.reply(thread, user=writer, text=f"Reply {n}")
    comments.resolve(more, user=writer)
    with CaptureQueriesContext(connection) as many:
        _page(client, entry)

    assert len(many) == len(few)


def test_the_publish_page_shows_the_editor_the_open_threads(entry_in_review, writer, editor):
    entry = entry_in_review()
    comments.start_thread(entry, user=writer, field="citations", text="Add the keynote?")

    page = client_for(editor).get(f"/admin/glossary/entry/{entry.pk}/publish/").content.decode()

    assert "1 unresolved comment: on the citations, wanda_writer: “Add the keynote?”" in page
    assert f"/admin/glossary/entry/{entry.pk}/change/#comments" in page
