"""Two people on one entry in real browsers: each sees the other, the second's stale save
is refused and kept, and they take their field back into the draft from the kept edit."""

import pytest

from demo.content import load_demo
from editorial.models import EditingPresence, RefusedEdit, WorkflowEvent
from editorial.permissions import Role
from glossary.models import Entry
from tests.accessibility.test_axe_browser import serious_violations
from tests.browser import ARTIFACTS, signed_in
from tests.personas import member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BANNER_SHOWS = """() => {
  const banner = document.getElementById("presence");
  banner.beat();
  return !banner.hidden && banner.innerText.includes(%s);
}"""
BANNER_EMPTY = """() => {
  const banner = document.getElementById("presence");
  banner.beat();
  return banner.hidden;
}"""


def test_two_people_see_each_other_and_a_refused_save_is_recovered(browser, live_server, roles):
    load_demo()
    member("wanda_writer", Role.WRITER)
    member("ed_editor", Role.EDITOR)
    entry = Entry.objects.get(slug="interconnect")
    live = entry.live_version_id
    change = f"{live_server.url}/admin/glossary/entry/{entry.pk}/change/"

    writer = signed_in(browser, live_server, "wanda_writer")
    writer.goto(change)
    assert writer.locator("#presence").is_hidden()

    editor = signed_in(browser, live_server, "ed_editor")
    editor.goto(change)
    banner = editor.get_by_test_id("presence")
    assert banner.is_visible()
    assert "Wanda Writer has had this entry open since" in banner.inner_text()
    assert serious_violations(editor) == []
    # The writer's page learns of the editor from its heartbeat, without a reload.
    writer.wait_for_function(BANNER_SHOWS % '"Ed Editor has had this entry open"', polling=250)
    writer.locator("#presence").screenshot(path=str(ARTIFACTS / "admin-presence-banner.png"))

    writer.fill("#id_body", "Wanda's rewrite of the body.")
    with writer.expect_navigation():
        writer.click("input[name=_continue]")
    assert writer.locator(".errornote").count() == 0

    editor.fill("#id_summary", "Ed's sharper summary.")
    with editor.expect_navigation():
        editor.click("input[name=_continue]")
    assert "Wanda Writer saved this entry" in editor.locator(".errorlist").first.inner_text()
    with editor.expect_navigation():
        editor.get_by_test_id("refused-edit-link").click()
    summary = editor.get_by_test_id("refused-field-summary")
    assert "(you changed it)" in summary.inner_text()
    assert summary.locator("input[name=take]").is_checked()
    assert not editor.get_by_test_id("refused-field-body").locator("input[name=take]").is_checked()
    editor.screenshot(path=str(ARTIFACTS / "admin-refused-edit.png"), full_page=True)
    assert serious_violations(editor) == []
    with editor.expect_navigation():
        editor.get_by_test_id("refused-take").click()
    assert "into the draft as version" in editor.locator(".messagelist").inner_text()

    entry.refresh_from_db()
    assert entry.summary == "Ed's sharper summary."
    assert entry.body == "Wanda's rewrite of the body."
    assert entry.live_version_id == live  # a draft: readers keep what was published
    assert not RefusedEdit.objects.exists()
    assert WorkflowEvent.objects.filter(
        entry=entry, action=WorkflowEvent.Action.MERGE_REFUSED, actor__username="ed_editor"
    ).exists()

    # Leaving the page takes the editor's mark away; the writer's banner empties.
    editor.goto(f"{live_server.url}/admin/refused/")
    assert editor.get_by_test_id("refused-none").is_visible()
    assert serious_violations(editor) == []
    writer.wait_for_function(BANNER_EMPTY, polling=250)
    assert not EditingPresence.objects.filter(user__username="ed_editor").exists()
