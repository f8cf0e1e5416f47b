"""The schedule form's shortcuts in a real browser: they fill in newsroom time.

The server runs in UTC (settings.TIME_ZONE) and the newsroom is in New York. An editor
whose browser is in New York, or anywhere else, who clicks "Now + 30 min" schedules the
publish thirty minutes from now, not five (or fourteen) hours off, and is never told
that times are "server time".
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from editorial.models import ScheduledAction
from glossary.models import Entry
from tests.browser import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEWSROOM = ZoneInfo("America/New_York")


@pytest.fixture
def schedule_page(
    browser: Any, live_server: Any, editor: User, entry_in_review: Callable[..., Entry]
) -> Iterator[Callable[[str], Any]]:
    """The schedule form for an entry in review, opened by an editor whose browser is in
    the zone given."""
    assert settings.TIME_ZONE == "UTC"
    assert settings.NEWSROOM_TIME_ZONE == "America/New_York"
    entry = entry_in_review()
    client = Client()
    client.force_login(editor)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    contexts: list[Any] = []

    def open_in(browser_zone: str) -> Any:
        context = browser.new_context(
            timezone_id=browser_zone, viewport={"width": 1200, "height": 1000}
        )
        contexts.append(context)
        context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
        )
        page = context.new_page()
        page.goto(
            f"{live_server.url}/admin/editorial/scheduledaction/add/"
            f"?entry={entry.pk}&action=publish",
            wait_until="load",
        )
        # The browser is where the test says: its own clock reads that zone.
        assert page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone") == browser_zone
        return page

    yield open_in
    for context in contexts:
        context.close()


def _save(page: Any) -> None:
    with page.expect_navigation():
        page.click("input[name=_save]")
    errors = page.locator(".errornote, .errorlist").all_inner_texts()
    assert not errors, errors


def _assert_due_in_thirty_minutes(clicked: datetime.datetime) -> None:
    row = ScheduledAction.objects.get()
    expected = clicked + datetime.timedelta(minutes=30)
    assert abs(row.due_at - expected) < datetime.timedelta(minutes=1), (
        f"due {row.due_at.astimezone(NEWSROOM):%Y-%m-%d %H:%M %Z}, expected about "
        f"{expected.astimezone(NEWSROOM):%Y-%m-%d %H:%M %Z}"
    )


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _click_today_and_now(page: Any) -> None:
    """The admin's own shortcuts: "Today" by the date, "Now" by the time."""
    page.locator(".field-due_date .datetimeshortcuts").get_by_role("link", name="Today").click()
    clock = page.locator(".field-due_time .datetimeshortcuts")
    clock.get_by_role("link", name="Now", exact=True).click()


def _filled(page: Any) -> datetime.datetime:
    """The date and time the form holds, read as newsroom time."""
    return datetime.datetime.combine(
        datetime.date.fromisoformat(page.input_value("#id_due_date")),
        datetime.time.fromisoformat(page.input_value("#id_due_time")),
        tzinfo=NEWSROOM,
    )


def test_now_plus_thirty_minutes_from_new_york_publishes_in_thirty_minutes(
    schedule_page: Callable[[str], Any],
) -> None:
    page = schedule_page("America/New_York")
    assert "server time" not in page.inner_text("body")
    assert page.locator(".timezonewarning").count() == 0
    clicked = _now()
    page.get_by_role("link", name="Now + 30 min").click()
    expected = clicked + datetime.timedelta(minutes=30)
    assert abs(_filled(page) - expected) < datetime.timedelta(minutes=1)
    page.screenshot(path=str(ARTIFACTS / "schedule-new-york.png"), full_page=True)
    _save(page)
    _assert_due_in_thirty_minutes(clicked)
    assert "server time" not in page.inner_text("body")


def test_the_admins_today_and_now_fill_in_newsroom_time_for_a_browser_in_new_york(
    schedule_page: Callable[[str], Any],
) -> None:
    page = schedule_page("America/New_York")
    before = _now().replace(microsecond=0)
    _click_today_and_now(page)
    # Seconds apart, not the five hours between New York and the server's UTC.
    assert before <= _filled(page) <= _now()


def test_a_browser_in_tokyo_still_fills_in_newsroom_time_and_is_told_so(
    schedule_page: Callable[[str], Any],
) -> None:
    page = schedule_page("Asia/Tokyo")
    notices = page.locator(".timezonewarning").all_inner_texts()
    # One notice, and it names the newsroom's clock, not the server's.
    assert len(notices) == 1, notices
    assert "hours ahead of newsroom time (America/New_York)" in notices[0]
    assert "server time" not in page.inner_text("body")
    clicked = _now()
    page.get_by_role("link", name="Now + 30 min").click()
    page.screenshot(path=str(ARTIFACTS / "schedule-tokyo.png"), full_page=True)
    _save(page)
    _assert_due_in_thirty_minutes(clicked)


def test_a_browser_in_tokyo_gets_newsroom_time_from_the_admins_now_too(
    schedule_page: Callable[[str], Any],
) -> None:
    page = schedule_page("Asia/Tokyo")
    before = _now().replace(microsecond=0)
    _click_today_and_now(page)
    # Not Tokyo's clock, fourteen hours ahead: the newsroom's.
    assert before <= _filled(page) <= _now()
