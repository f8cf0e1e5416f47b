"""The scheduling admin: times typed and shown in the newsroom's zone, editors only."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client

from editorial import newsroom, scheduling
from editorial.models import ScheduledAction
from glossary.models import Entry

from .conftest import BEFORE, DUE_UTC

ADD = "/admin/editorial/scheduledaction/add/"


@pytest.fixture(autouse=True)
def frozen() -> Any:
    with time_machine.travel(BEFORE, tick=False):
        yield


def _post(client: Client, entry: Entry, date: str, time: str, **extra: str) -> Any:
    return client.post(
        ADD,
        {"entry": entry.pk, "action": "publish", "due_date": date, "due_time": time, **extra},
    )


def test_the_form_names_the_newsroom_zone(client: Client, editor: User) -> None:
    client.force_login(editor)
    response = client.get(ADD)
    assert response.status_code == 200
    assert "Times are in America/New_York (EST)" in response.content.decode()


def test_the_zone_abbreviation_follows_daylight_saving_time(db: None) -> None:
    summer = datetime.datetime(2026, 7, 1, 12, tzinfo=datetime.UTC)
    assert newsroom.zone_label(summer) == "America/New_York (EDT)"
    assert newsroom.zone_label(BEFORE) == "America/New_York (EST)"


def test_a_time_typed_in_new_york_is_stored_in_utc_and_shown_back_in_new_york(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    client.force_login(editor)
    entry = entry_in_review()
    response = _post(client, entry, "2026-12-01", "09:00")
    assert response.status_code == 302
    row = ScheduledAction.objects.get()
    assert row.due_at == DUE_UTC
    assert row.created_by == editor
    listing = client.get("/admin/editorial/scheduledaction/").content.decode()
    assert "Dec 1, 2026, 09:00 EST" in listing
    change = client.get(f"/admin/editorial/scheduledaction/{row.pk}/change/").content.decode()
    assert 'value="2026-12-01"' in change and 'value="09:00:00"' in change


def test_the_newsroom_zone_is_a_setting(
    client: Client, editor: User, entry_in_review: Callable[..., Entry], settings: Any
) -> None:
    settings.NEWSROOM_TIME_ZONE = "Europe/London"
    client.force_login(editor)
    _post(client, entry_in_review(), "2026-12-01", "09:00")
    assert ScheduledAction.objects.get().due_at == datetime.datetime(
        2026, 12, 1, 9, 0, tzinfo=datetime.UTC
    )


@pytest.mark.parametrize(
    ("date", "time", "message"),
    [
        ("2027-03-14", "02:30", "does not exist in America/New_York"),
        ("2026-11-01", "01:30", "happens twice in America/New_York"),
        ("2026-11-30", "09:00", "has already passed"),
    ],
)
def test_it_refuses_times_that_do_not_exist_are_ambiguous_or_have_passed(
    client: Client,
    editor: User,
    entry_in_review: Callable[..., Entry],
    date: str,
    time: str,
    message: str,
) -> None:
    client.force_login(editor)
    response = _post(client, entry_in_review(), date, time)
    assert response.status_code == 200
    body = response.content.decode()
    assert message in body
    # What the editor typed is still there.
    assert f'value="{date}"' in body and f'value="{time}"' in body
    assert not ScheduledAction.objects.exists()


def test_writers_and_fact_checkers_cannot_schedule(
    client: Client, writer: User, fact_checker: User, entry_in_review: Callable[..., Entry]
) -> None:
    entry = entry_in_review()
    for user in (writer, fact_checker):
        client.force_login(user)
        assert client.get(ADD).status_code == 403
        assert _post(client, entry, "2026-12-01", "09:00").status_code == 403
    assert not ScheduledAction.objects.exists()


def test_editors_cancel_with_the_admin_action_and_a_finished_row_is_read_only(
    client: Client, editor: User, writer: User, entry_in_review: Callable[..., Entry]
) -> None:
    row = scheduling.schedule(entry_in_review(), action="publish", due_at=DUE_UTC, user=editor)
    client.force_login(writer)
    client.post(
        "/admin/editorial/scheduledaction/",
        {"action": "cancel_selected", "_selected_action": [row.pk]},
    )
    row.refresh_from_db()
    assert row.state == ScheduledAction.State.PENDING
    client.force_login(editor)
    response = client.post(
        "/admin/editorial/scheduledaction/",
        {"action": "cancel_selected", "_selected_action": [row.pk]},
        follow=True,
    )
    assert "Cancelled 1 scheduled action." in response.content.decode()
    row.refresh_from_db()
    assert row.state == ScheduledAction.State.CANCELLED
    change = client.get(f"/admin/editorial/scheduledaction/{row.pk}/change/")
    assert change.status_code == 200
    assert 'name="due_date"' not in change.content.decode()


def test_the_entry_page_tells_the_editor_about_the_schedule_and_its_failure(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    from glossary.models import Citation

    entry = entry_in_review()
    row = scheduling.schedule(entry, action="publish", due_at=DUE_UTC, user=editor)
    client.force_login(editor)
    change = f"/admin/glossary/entry/{entry.pk}/change/"
    assert "publish at Dec 1, 2026, 09:00 EST, if these checks pass then" in (
        client.get(change).content.decode()
    )
    Citation.objects.filter(entry=entry).update(checked_on=None)
    scheduling.run_due(now=DUE_UTC)
    body = client.get(change).content.decode()
    assert "The scheduled publish at Dec 1, 2026, 09:00 EST did not happen." in body
    assert "has never been checked" in body
    assert f"/admin/editorial/scheduledaction/{row.pk}/change/" in body
