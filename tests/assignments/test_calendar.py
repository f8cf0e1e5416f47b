"""The desk calendar's month and week views (editorial.admin.assignments.calendar_view):
scheduled publications, due dates and episode releases on their newsroom days, at a
fixed number of queries."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editorial import assignments
from editorial.models import ScheduledAction
from glossary.models import Episode
from tests.personas import NOW, client_for

pytestmark = pytest.mark.django_db

FRIDAY = datetime.date(2026, 12, 4)


@pytest.fixture(autouse=True)
def frozen():
    with time_machine.travel(NOW, tick=False):
        yield


def _schedule(entry, editor, at):
    return ScheduledAction.objects.create(
        entry=entry, due_at=at, created_by=editor, approved_by=editor
    )


def test_a_publication_late_in_the_evening_is_on_its_newsroom_day(make_entry, editor):
    entry = make_entry("Evening")
    # 23:30 in New York on Dec 2 is Dec 3 in UTC.
    _schedule(entry, editor, datetime.datetime(2026, 12, 3, 4, 30, tzinfo=datetime.UTC))

    page = client_for(editor).get("/admin/calendar/", {"view": "week", "date": "2026-12-02"})

    assert page.status_code == 200
    days = {d.date: [e.title for e in d.events] for d in page.context["days"]}
    assert days[datetime.date(2026, 12, 2)] == ["Publish “Evening”"]
    assert days[datetime.date(2026, 12, 3)] == []
    assert "23:30" in page.content.decode()


def test_the_month_shows_due_dates_releases_and_schedules(make_entry, editor, writer, episode):
    entry = make_entry("Planned one")
    assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)
    Episode.objects.filter(pk=episode.pk).update(air_date=datetime.date(2026, 12, 10))
    _schedule(
        make_entry("Scheduled"), editor, datetime.datetime(2026, 12, 15, 14, tzinfo=datetime.UTC)
    )

    page = client_for(writer).get("/admin/calendar/", {"date": "2026-12-01"})

    html = page.content.decode()
    assert page.context["heading"] == "December 2026"
    assert "Due: write “Planned one” (wanda_writer)" in html
    assert "Released: Test Show S1E7 “Seven”" in html
    assert "Publish “Scheduled”" in html
    # Whole weeks, Monday first: Nov 30 to Jan 3.
    weeks = page.context["weeks"]
    assert weeks[0][0].date == datetime.date(2026, 11, 30)
    assert weeks[-1][-1].date == datetime.date(2027, 1, 3)


def test_prev_and_next_move_by_a_month_and_by_a_week(editor):
    client = client_for(editor)
    month = client.get("/admin/calendar/", {"date": "2026-01-15"})
    assert (month.context["previous"], month.context["following"]) == (
        datetime.date(2025, 12, 1),
        datetime.date(2026, 2, 1),
    )
    week = client.get("/admin/calendar/", {"view": "week", "date": "2026-12-02"})
    assert (week.context["previous"], week.context["following"]) == (
        datetime.date(2026, 11, 23),
        datetime.date(2026, 12, 7),
    )
    assert 'rel="next"' in week.content.decode()


def test_a_date_that_is_not_one_is_named_and_today_shown(editor):
    page = client_for(editor).get("/admin/calendar/", {"date": "2026-13-45"}, follow=True)
    assert page.status_code == 200
    assert "“2026-13-45” is not a date" in page.content.decode()
    assert page.context["heading"] == "November 2026"


def test_an_overdue_assignment_is_marked_overdue(make_entry, editor, writer):
    made = assignments.assign(
        make_entry("Late"), role="writer", assignee=writer, due_on=FRIDAY, user=editor
    )
    with time_machine.travel(NOW + datetime.timedelta(days=7), tick=False):
        page = client_for(editor).get("/admin/calendar/", {"view": "week", "date": "2026-12-04"})
    assert made.due_on == FRIDAY
    assert "(overdue)" in page.content.decode()


@pytest.mark.parametrize("persona", ["anonymous", "outsider"])
def test_only_the_desk_reads_the_calendar(personas, persona):
    response = client_for(personas[persona]).get("/admin/calendar/")
    assert response.status_code == 302  # to the sign-in page: staff only


def test_the_month_costs_the_same_queries_whatever_it_holds(make_entry, editor, writer, show):
    client = client_for(editor)
    client.get("/admin/calendar/")  # warm the session and permission caches

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/admin/calendar/", {"date": "2026-12-01"}).status_code == 200
        return len(queries)

    few = count()
    for n in range(6):
        entry = make_entry(f"Entry {n}")
        assignments.assign(
            entry,
            role="writer",
            assignee=writer,
            due_on=FRIDAY + datetime.timedelta(days=n),
            user=editor,
        )
        _schedule(entry, editor, datetime.datetime(2026, 12, 10 + n, 15, tzinfo=datetime.UTC))
        Episode.objects.create(
            show=show, number=100 + n, title=f"E{n}", air_date=datetime.date(2026, 12, 20 + n)
        )
    assert count() == few
    assert few <= 10
