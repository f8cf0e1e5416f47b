"""Comments in a real browser: an editor starts a thread on a passage, the writer replies,
the editor resolves it, and the public page never shows a word of it."""

import pytest

from demo.content import load_demo
from editorial.models import Comment
from editorial.permissions import Role
from glossary.models import Entry
from tests.browser import ARTIFACTS, signed_in
from tests.personas import member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSAGE = "NVIDIA’s NVLink is the best-known example"


def test_adding_replying_and_resolving_a_thread(browser, live_server, roles):
    load_demo()
    member("ed_editor", Role.EDITOR)
    member("wanda_writer", Role.WRITER)
    entry = Entry.objects.get(slug="interconnect")
    change = f"{live_server.url}/admin/glossary/entry/{entry.pk}/change/"

    editor = signed_in(browser, live_server, "ed_editor")
    editor.goto(change)
    assert editor.get_by_test_id("no-comments").is_visible()
    editor.select_option("#comment-field", "body")
    editor.fill("#comment-quote", PASSAGE)
    editor.fill("#comment-text", "Best-known by what measure? @wanda_writer")
    with editor.expect_navigation():
        editor.click("input[name=post_comment]")
    thread = editor.get_by_test_id("comment-thread")
    assert thread.locator("blockquote").inner_text() == PASSAGE
    assert "Best-known by what measure?" in thread.inner_text()
    assert "Comments · 1 open" in editor.locator("#comments-heading").inner_text()
    assert editor.get_by_test_id("comments-link").text_content() == "Comments (1 open)"

    writer = signed_in(browser, live_server, "wanda_writer")
    writer.goto(change)
    root = Comment.objects.get()
    writer.fill(f"#reply-{root.pk}", "By deployments: the cited source says so.")
    with writer.expect_navigation():
        writer.click("input[name=reply]")
    assert writer.get_by_test_id("comment").count() == 2

    editor.goto(change)
    assert "By deployments" in editor.get_by_test_id("comment-thread").inner_text()
    with editor.expect_navigation():
        editor.click("input[name=resolve]")
    editor.locator("#comments").screenshot(path=str(ARTIFACTS / "admin-comments-resolved.png"))
    assert editor.get_by_test_id("comments-link").text_content() == "Comments (0 open)"
    assert editor.get_by_test_id("thread-state").inner_text().startswith("Resolved by Ed Editor")
    assert editor.locator("input[name=reopen]").is_visible()

    root.refresh_from_db()
    assert root.resolved_by.username == "ed_editor"
    assert root.replies.get().author.username == "wanda_writer"
    public = editor.context.new_page()
    public.goto(f"{live_server.url}/glossary/interconnect/")
    assert "Best-known by what measure" not in public.content()
    assert "By deployments" not in public.content()
