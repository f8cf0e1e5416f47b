"""The planning pages in a real browser: an editor plans an entry for a writer, finds it on
the entry page and the calendar; the writer finds it in My work from the dashboard and marks
it done; readers never see the planned entry."""

import datetime

import pytest

from editorial import newsroom
from editorial.models import Assignment
from editorial.permissions import Role
from glossary.models import Entry
from tests.browser import ARTIFACTS, signed_in
from tests.personas import member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_planning_an_entry_and_finishing_the_work(browser, live_server, roles):
    member("ed_editor", Role.EDITOR)
    member("wanda_writer", Role.WRITER)
    due = newsroom.today() + datetime.timedelta(days=3)

    editor = signed_in(browser, live_server, "ed_editor")
    editor.goto(f"{live_server.url}/admin/plan/")
    editor.fill("#id_term", "Photonic fabric")
    editor.select_option("#id_writer", label="Wanda Writer (wanda_writer)")
    editor.fill("#id_writer_due", due.isoformat())
    editor.fill("#id_note", "Cover the 2026 launches.")
    with editor.expect_navigation():
        editor.click("input[type=submit]")
    assert "Planned “Photonic fabric”" in editor.locator(".messagelist").inner_text()
    entry = Entry.objects.get(slug="photonic-fabric")
    assert f"Writer: wanda_writer, due {newsroom.format_date(due)}" in editor.content()

    editor.goto(f"{live_server.url}/admin/calendar/?view=week&date={due.isoformat()}")
    calendar = editor.locator("#calendar")
    assert "Due: write “Photonic fabric” (wanda_writer)" in calendar.inner_text()
    calendar.screenshot(path=str(ARTIFACTS / "admin-calendar-week.png"))
    with editor.expect_navigation():
        editor.click("a[rel=next]")
    assert "Photonic fabric" not in editor.locator("#calendar").inner_text()
    with editor.expect_navigation():
        editor.click("text=Month")
    assert editor.locator("#calendar caption").inner_text().strip()
    editor.locator("#content").screenshot(path=str(ARTIFACTS / "admin-calendar-month.png"))

    writer = signed_in(browser, live_server, "wanda_writer")
    writer.goto(f"{live_server.url}/admin/dashboard/")
    with writer.expect_navigation():
        writer.click("#my-work-link")
    rows = writer.locator("#my-assignments tbody tr")
    assert rows.count() == 1
    assert "Photonic fabric" in rows.first.inner_text()
    assert "planned: no body yet" in rows.first.inner_text()
    assert writer.locator("#feed-url").input_value().endswith(".ics")
    with writer.expect_navigation():
        rows.first.locator("button").click()
    assert "Nothing is assigned to you." in writer.content()
    assert Assignment.objects.get().done_by.username == "wanda_writer"

    public = writer.context.new_page()
    response = public.goto(f"{live_server.url}/glossary/{entry.slug}/")
    assert response is not None and response.status == 404
