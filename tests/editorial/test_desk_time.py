"""One clock: every time the desk shows is newsroom time, and each page says so once.

The server runs in UTC; the newsroom is in New York. The instants are chosen so that UTC
and New York differ in the hour, and some in the date, so a time shown in the wrong zone
cannot pass for the right one.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.contrib import admin
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from editorial import newsroom, notify, preview, scheduling, workflow
from editorial.models import ScheduledAction, ShareLink
from glossary.models import Entry, Listing, PublicRecord
from tests.personas import client_for, reviewed
from tests.visibility.desk import edit_entry

LABEL = "Times are in America/New_York (EST)"
# 08:27 in New York: a scheduled publish the desk must show as "08:27 EST" everywhere,
# never "08:27 EST" in one place and "1:27 p.m." (UTC) in another.
MORNING = datetime.datetime(2026, 12, 1, 13, 27, tzinfo=datetime.UTC)
MORNING_SHOWN = "Dec 1, 2026, 08:27 EST"
# 21:00 on December 1 in New York is already December 2 in UTC.
EVENING = datetime.datetime(2026, 12, 2, 2, 0, tzinfo=datetime.UTC)
SUMMER = datetime.datetime(2026, 7, 1, 13, 27, tzinfo=datetime.UTC)


def _text(response: Any) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def _once(html: str, label: str = LABEL) -> None:
    assert html.count(label) == 1, f"{html.count(label)} times: {label}"


# --- The mechanism ---------------------------------------------------------------------


def test_desk_pages_are_rendered_in_the_newsroom_zone_and_leave_none_behind(
    client: Client, editor: User
) -> None:
    client.force_login(editor)
    with time_machine.travel(MORNING, tick=False):
        html = _text(client.get("/admin/"))
    # The offset the admin's "Now" and "Today" shortcuts fill in from: New York's.
    assert 'data-admin-utc-offset="-18000"' in html
    _once(html)
    # The test client serves in this thread: the next request starts in UTC again.
    assert timezone.get_current_timezone_name() == "UTC"


def test_the_shortcuts_offset_follows_daylight_saving_time(client: Client, editor: User) -> None:
    client.force_login(editor)
    with time_machine.travel(SUMMER, tick=False):
        html = _text(client.get("/admin/editorial/scheduledaction/add/"))
    assert 'data-admin-utc-offset="-14400"' in html
    _once(html, "Times are in America/New_York (EDT)")


def test_a_readers_page_is_not_in_the_newsroom_zone(client: Client, db: None) -> None:
    assert client.get("/").status_code == 200
    assert timezone.get_current_timezone_name() == "UTC"


def test_the_desks_date_time_format_is_the_one_its_messages_use() -> None:
    for instant in (MORNING, SUMMER, EVENING):
        with timezone.override(newsroom.zone()):
            shown = date_format(timezone.localtime(instant), "DATETIME_FORMAT")
        assert shown == newsroom.format_instant(instant)
    assert newsroom.format_instant(MORNING) == MORNING_SHOWN


def test_every_admin_list_and_pop_up_names_the_zone_once(
    client: Client, superuser: User, ready_entry: Entry
) -> None:
    client.force_login(superuser)
    for model in admin.site._registry:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        _once(_text(client.get(url)))
        # A pop-up (a related object's picker) has no header: the foot of the page says it.
        _once(_text(client.get(url, {"_popup": "1", "_to_field": "id"})))


# --- Pages ---------------------------------------------------------------------------


def test_the_dashboard_shows_when_an_entry_was_submitted_in_newsroom_time(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    with time_machine.travel(MORNING, tick=False):
        entry_in_review()
        client.force_login(editor)
        html = _text(client.get("/admin/dashboard/"))
    awaiting = html.split('id="awaiting-review"')[1].split("</section>")[0]
    assert MORNING_SHOWN in awaiting
    assert "13:27" not in awaiting
    _once(html)
    assert "Dates and times are in" not in html


def test_a_scheduled_publish_reads_the_same_in_its_message_history_and_lists(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    client.force_login(editor)
    with time_machine.travel(MORNING - datetime.timedelta(days=1), tick=False):
        entry = entry_in_review()
        response = client.post(
            "/admin/editorial/scheduledaction/add/",
            {"entry": entry.pk, "action": "publish", "due_date": "2026-12-01", "due_time": "08:27"},
            follow=True,
        )
    message = _text(response).split('class="messagelist"')[1].split("</ul>")[0]
    assert f"scheduled for {MORNING_SHOWN}" in message
    row = ScheduledAction.objects.get()
    assert row.due_at == MORNING
    with time_machine.travel(MORNING, tick=False):
        assert scheduling.run_due().done == [row.pk]
        history = _text(client.get(f"/admin/glossary/entry/{entry.pk}/history/"))
        listing = _text(client.get("/admin/editorial/scheduledaction/"))
        change = _text(client.get(f"/admin/editorial/scheduledaction/{row.pk}/change/"))
        versions = _text(client.get("/admin/glossary/entryversion/"))
    # The version went live, and the step was taken, at 08:27 New York time.
    assert MORNING_SHOWN in history.split("<tbody>")[1]
    for html in (history, listing, change, versions):
        assert MORNING_SHOWN in html
        assert "1:27 p.m." not in html and "13:27" not in html
        _once(html)
    # The row's name (page titles, the admin's log) says the same.
    assert str(row) == f"Publish {entry.term} at {MORNING_SHOWN}"


def test_the_entry_page_shows_its_times_in_newsroom_time(
    client: Client, editor: User, ready_entry: Entry
) -> None:
    with time_machine.travel(MORNING, tick=False):
        workflow.submit_for_review(ready_entry, user=ready_entry.created_by)
        workflow.publish_entry(ready_entry, user=editor)
        client.force_login(editor)
        html = _text(client.get(f"/admin/glossary/entry/{ready_entry.pk}/change/"))
    assert MORNING_SHOWN in html
    assert "1:27 p.m." not in html
    _once(html)


def test_a_stale_save_names_when_the_other_save_was_in_newsroom_time(
    editor: User, writer: User, ready_entry: Entry
) -> None:
    from tests.workflow.formdata import form_data

    wanda = client_for(writer)
    url = f"/admin/glossary/entry/{ready_entry.pk}/change/"
    form = form_data(_text(wanda.get(url)))
    with time_machine.travel(MORNING, tick=False):
        Entry.objects.filter(pk=ready_entry.pk).update(updated_at=timezone.now(), body="Theirs.")
    form["body"] = "Mine."
    html = _text(wanda.post(url, form))
    assert f"saved this entry at {MORNING_SHOWN}" in html


@pytest.fixture
def published_in_the_evening(editor: User, ready_entry: Entry) -> Entry:
    """Published at 21:00 on December 1 in New York, December 2 in UTC."""
    with time_machine.travel(EVENING, tick=False):
        workflow.submit_for_review(ready_entry, user=ready_entry.created_by)
        workflow.publish_entry(ready_entry, user=editor)
    return ready_entry


def test_compare_names_a_versions_publish_day_in_newsroom_time(
    client: Client, editor: User, published_in_the_evening: Entry
) -> None:
    client.force_login(editor)
    pk = published_in_the_evening.pk
    html = _text(client.get(f"/admin/glossary/entry/{pk}/compare/?a=1&b=working"))
    assert "Version 1, published Dec. 1, 2026" in html


def test_a_records_readers_see_line_gives_the_newsroom_day(
    client: Client, editor: User, published_in_the_evening: Entry
) -> None:
    source = published_in_the_evening.citations.get().source
    assert PublicRecord.objects.get(kind="source", object_id=source.pk).published_at == EVENING
    client.force_login(editor)
    html = _text(client.get(f"/admin/glossary/source/{source.pk}/change/"))
    assert "as published December 1, 2026" in html


def test_a_share_link_says_until_when_in_newsroom_time(writer: User, ready_entry: Entry) -> None:
    with time_machine.travel(MORNING - preview.share_max_age(), tick=False):
        page = _text(client_for(writer).post(f"/admin/glossary/entry/{ready_entry.pk}/share/"))
        link = ShareLink.objects.get()
        assert link.expires_at == MORNING
        found = re.search(r"/preview/s/[^\"]+", page)
        assert found is not None
        shared = _text(Client().get(found.group(0)))
    assert f'This link works until <time datetime="{MORNING.isoformat()}">{MORNING_SHOWN}' in shared
    assert MORNING_SHOWN in page


# --- Readers' pages keep their own convention -------------------------------------------


def test_publishing_from_the_desk_leaves_readers_dates_in_their_own_zone(
    editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    """The desk's pages are in New York; a page published from one still writes its
    sitemap day, and its "last updated" day, as every reader's page does (UTC here)."""
    with time_machine.travel(EVENING - datetime.timedelta(days=1), tick=False):
        entry = entry_in_review()
    with time_machine.travel(EVENING, tick=False):
        response = client_for(editor).post(
            f"/admin/glossary/entry/{entry.pk}/publish/",
            {"material": "1", "expected_version": reviewed(entry)},
        )
        assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.is_live
    row = Listing.objects.get(version=entry.live_version)
    assert "<lastmod>2026-12-02</lastmod>" in row.sitemap_url
    page = _text(Client().get(f"/glossary/{entry.slug}/"))
    assert 'Last updated <time datetime="2026-12-02">December 2, 2026</time>' in page


# --- Outside a request: emails and the scheduler's results --------------------------------


@pytest.mark.parametrize("active", ["UTC", "Asia/Tokyo"])
def test_an_email_about_a_failed_schedule_gives_newsroom_time_whatever_zone_is_active(
    editor: User, writer: User, entry_in_review: Callable[..., Entry], active: str
) -> None:
    with time_machine.travel(MORNING - datetime.timedelta(days=1), tick=False):
        entry = entry_in_review()
        row = scheduling.schedule(entry, action="publish", due_at=MORNING, user=editor)
    # Saved again before the time, never reviewed: the publish is refused, editors told.
    edit_entry(writer, entry, summary="Changed after it was scheduled.")
    mail.outbox.clear()
    with time_machine.travel(MORNING, tick=False), timezone.override(active):
        assert scheduling.run_due().failed == [row.pk]
        notify.deliver()
    bodies = [message.body for message in mail.outbox]
    assert bodies and all(MORNING_SHOWN in body for body in bodies), bodies
