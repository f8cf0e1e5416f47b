"""Comments on drafts (editorial.comments): threads, replies, resolving, mentions, the
publish check, and the rule above them all: a comment never changes what readers see."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import PermissionDenied
from django.test import Client

from editorial import comments, gates, workflow
from editorial.models import Comment, Notification
from glossary import publishing
from glossary.models import Entry, SiteGeneration

pytestmark = pytest.mark.django_db

BODY = "Interconnect is the fabric between accelerators. It carries 1.8 TB/s per GPU."
PASSAGE = "It carries 1.8 TB/s per GPU."


@pytest.fixture
def entry(make_ready_entry):
    return make_ready_entry(body=BODY)


def _published(entry_in_review, editor):
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    entry.refresh_from_db()
    return entry


def test_a_thread_is_credited_to_its_author_on_the_latest_version(entry, editor):
    thread = comments.start_thread(
        entry, user=editor, field="body", text="Which GPU generation?", quote=PASSAGE
    )

    assert thread.author == editor
    assert thread.created_at is not None
    assert thread.version == entry.versions.get(number=1)
    assert (thread.field, thread.quote, thread.parent) == ("body", PASSAGE, None)


def test_replies_join_the_thread_in_order_even_a_reply_to_a_reply(
    entry, editor, writer, fact_checker
):
    thread = comments.start_thread(entry, user=editor, field="summary", text="Too long?")
    first = comments.reply(thread, user=writer, text="Shortened it.")
    second = comments.reply(first, user=fact_checker, text="Reads well now.")

    [found] = comments.threads(entry)
    assert found.root == thread
    assert found.replies == [first, second]
    assert second.parent == thread
    assert [c.author for c in found.comments] == [editor, writer, fact_checker]


def test_a_passage_must_be_in_the_saved_text(entry, editor):
    with pytest.raises(comments.CommentError, match="“It carries 2 TB/s” is not in the saved body"):
        comments.start_thread(
            entry, user=editor, field="body", text="Check", quote="It carries 2 TB/s"
        )
    assert not Comment.objects.exists()


def test_only_the_summary_or_the_body_can_be_quoted(entry, editor):
    with pytest.raises(comments.CommentError, match="not of the term"):
        comments.start_thread(entry, user=editor, field="term", text="Hm", quote="Interconnect")


def test_a_comment_about_no_known_field_is_refused_naming_the_choices(entry, editor):
    with pytest.raises(comments.CommentError, match="“footer” is not a part of an entry.*body"):
        comments.start_thread(entry, user=editor, field="footer", text="Hm")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("   ", "The comment is empty"),
        ("x" * 5001, "5001 characters long; the most"),
        ("fine\nbad\x00", r"Line 2 of the comment holds the control character U\+0000 \(NUL\)"),
    ],
)
def test_an_empty_or_huge_comment_is_refused(entry, editor, text, problem):
    with pytest.raises(comments.CommentError, match=problem):
        comments.start_thread(entry, user=editor, field="body", text=text)


def test_nobody_outside_the_desk_roles_may_comment(entry, outsider):
    with pytest.raises(PermissionDenied):
        comments.start_thread(entry, user=outsider, field="body", text="Hello")


def test_only_its_author_changes_a_comment(entry, editor, writer):
    thread = comments.start_thread(entry, user=editor, field="body", text="Frist")

    with pytest.raises(comments.CommentError, match="Only the person who wrote"):
        comments.edit(thread, user=writer, text="Vandalised")
    comments.edit(thread, user=editor, text="First")

    thread.refresh_from_db()
    assert thread.text == "First"
    assert thread.edited_at is not None


def test_anyone_who_comments_resolves_and_reopens_a_thread(entry, editor, fact_checker, writer):
    thread = comments.start_thread(entry, user=editor, field="citations", text="Stale?")
    reply = comments.reply(thread, user=writer, text="Re-checked.")

    comments.resolve(reply, user=fact_checker)  # a reply's button resolves its thread
    thread.refresh_from_db()
    assert thread.resolved_by == fact_checker
    with pytest.raises(comments.CommentError, match="fiona_checker already resolved"):
        comments.resolve(thread, user=editor)

    comments.reopen(thread, user=writer)
    thread.refresh_from_db()
    assert (thread.resolved_at, thread.resolved_by) == (None, None)
    with pytest.raises(comments.CommentError, match="already open"):
        comments.reopen(thread, user=writer)


def test_every_step_is_logged_with_who_did_it(entry, editor, writer):
    thread = comments.start_thread(entry, user=editor, field="body", text="One")
    comments.reply(thread, user=writer, text="Two")
    comments.edit(thread, user=editor, text="One, edited")
    comments.resolve(thread, user=writer)
    comments.reopen(thread, user=editor)

    logged = list(LogEntry.objects.order_by("pk").values_list("user__username", "change_message"))
    assert logged == [
        ("ed_editor", "Commented on the body."),
        ("wanda_writer", "Replied."),
        ("ed_editor", "Edited the comment."),
        ("wanda_writer", "Resolved the thread."),
        ("ed_editor", "Reopened the thread."),
    ]


def test_a_mention_tells_the_person_named_and_nobody_else(entry, editor, writer, fact_checker):
    comment = comments.start_thread(
        entry, user=editor, field="body", text="@Fiona_Checker can you confirm? cc @ed_editor."
    )

    [told] = Notification.objects.all()
    assert told.recipient == fact_checker
    assert told.kind == Notification.Kind.MENTIONED
    assert told.entry == entry
    assert "Ed Editor mentioned you" in told.subject
    assert PASSAGE not in told.text and "can you confirm?" in told.text
    assert f"#comment-{comment.pk}" in told.text


def test_an_email_address_is_not_a_mention(entry, editor):
    comments.start_thread(entry, user=editor, field="body", text="Ask press@cisco.example")
    assert not Notification.objects.exists()


def test_a_mention_of_nobody_is_refused_and_nothing_is_posted(entry, editor):
    with pytest.raises(comments.CommentError, match="Nobody on the desk has the username “@fiona”"):
        comments.start_thread(entry, user=editor, field="body", text="@fiona look")
    assert not Comment.objects.exists()


def test_a_mention_of_someone_who_cannot_read_comments_is_refused(entry, editor, outsider):
    with pytest.raises(comments.CommentError, match="“@otto_outsider” cannot read"):
        comments.start_thread(entry, user=editor, field="body", text="@otto_outsider see")


def test_editing_a_comment_tells_only_the_newly_mentioned(entry, editor, writer, fact_checker):
    comment = comments.start_thread(entry, user=editor, field="body", text="@wanda_writer look")
    comments.edit(comment, user=editor, text="@wanda_writer and @fiona_checker look")

    assert sorted(Notification.objects.values_list("recipient__username", flat=True)) == [
        "fiona_checker",
        "wanda_writer",
    ]


def test_a_thread_outlives_later_versions_and_says_when_its_passage_changed(entry, editor, writer):
    changed = comments.start_thread(entry, user=editor, field="body", text="Source?", quote=PASSAGE)
    kept = comments.start_thread(
        entry, user=editor, field="body", text="Nice.", quote="Interconnect is the fabric"
    )
    Entry.objects.filter(pk=entry.pk).update(
        body="Interconnect is the fabric between accelerators."
    )
    entry.refresh_from_db()
    publishing.record_edit(entry, user=writer, comment="Cut the figure.")

    found = {t.root: t for t in comments.threads(entry)}
    assert found[changed].passage_changed is True
    assert found[kept].passage_changed is False
    assert changed.version.number == 1


def test_open_threads_are_a_publish_warning_that_names_them(entry, editor, writer):
    comments.start_thread(entry, user=editor, field="body", text="Source for this?", quote=PASSAGE)
    comments.start_thread(entry, user=writer, field="citations", text="Add the keynote")
    done = comments.start_thread(entry, user=writer, field="term", text="Capitalise?")
    comments.resolve(done, user=editor)

    [check] = [r for r in gates.run_gates(entry) if r.code == gates.COMMENTS_RESOLVED]

    assert check.is_warning and not check.blocks
    assert check.message.startswith("2 unresolved comments: on the body at “It carries")
    assert "wanda_writer: “Add the keynote”" in check.message
    assert "Capitalise" not in check.message
    assert check.fix_url == f"/admin/glossary/entry/{entry.pk}/change/#comments"


def test_with_every_thread_resolved_the_check_passes(entry, editor):
    thread = comments.start_thread(entry, user=editor, field="body", text="Fine?")
    comments.resolve(thread, user=editor)

    [check] = [r for r in gates.run_gates(entry) if r.code == gates.COMMENTS_RESOLVED]
    assert check.passed


def test_an_open_thread_does_not_stop_publishing(entry_in_review, writer, editor):
    entry = entry_in_review()
    comments.start_thread(entry, user=writer, field="body", text="Left for the next revision")

    workflow.publish_entry(entry, user=editor)

    entry.refresh_from_db()
    assert entry.is_live


def _what_readers_see(client: Client, entry: Entry) -> dict[str, Any]:
    entry.refresh_from_db()
    responses = {
        "page": client.get(f"/glossary/{entry.slug}/"),
        "api": client.get(f"/api/v1/entries/{entry.slug}/"),
        "feed": client.get("/feed/"),
    }
    assert {name: r.status_code for name, r in responses.items()} == dict.fromkeys(responses, 200)
    return {
        **{name: r.content for name, r in responses.items()},
        "generation": list(SiteGeneration.objects.values_list("token", flat=True)),
        "updated_at": entry.updated_at,
        "versions": entry.versions.count(),
        "status": (entry.status, entry.has_unpublished_changes, entry.live_version_id),
    }


def test_a_comment_never_changes_what_readers_see(entry_in_review, editor, writer, fact_checker):
    entry = _published(entry_in_review, editor)
    client = Client()
    before = _what_readers_see(client, entry)
    assert b"Interconnect" in before["page"]

    thread = comments.start_thread(
        entry, user=writer, field="summary", text="SECRET-DESK-NOTE @fiona_checker"
    )
    comments.reply(thread, user=fact_checker, text="SECRET-DESK-REPLY")
    comments.edit(thread, user=writer, text="SECRET-DESK-NOTE, edited")
    comments.resolve(thread, user=editor)
    comments.reopen(thread, user=writer)

    after = _what_readers_see(client, entry)
    assert after == before
    assert all(b"SECRET-DESK" not in after[k] for k in ("page", "api", "feed"))
