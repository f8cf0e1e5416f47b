"""Each person's calendar feed (editorial.desk_calendar): valid RFC 5545 at a signed
address, revocable, carrying only what its person may see."""

from __future__ import annotations

import datetime

import icalendar
import pytest
import time_machine
from django.core import signing
from django.test import Client
from django.urls import reverse

from editorial import assignments, desk_calendar
from editorial.models import ScheduledAction
from glossary.models import Episode
from tests.personas import NOW, client_for

pytestmark = pytest.mark.django_db

FRIDAY = datetime.date(2026, 12, 4)


@pytest.fixture(autouse=True)
def frozen():
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def planned(make_entry, editor, writer, fact_checker, episode):
    entry = make_entry("Photonic fabric")
    assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)
    other = make_entry("Someone else's")
    assignments.assign(
        other, role="fact_checker", assignee=fact_checker, due_on=FRIDAY, user=editor
    )
    ScheduledAction.objects.create(
        entry=entry,
        due_at=datetime.datetime(2026, 12, 8, 14, tzinfo=datetime.UTC),
        created_by=editor,
        approved_by=editor,
    )
    Episode.objects.filter(pk=episode.pk).update(air_date=datetime.date(2026, 12, 10))
    return entry


def _feed_path(user) -> str:
    return reverse("calendar-feed", args=[desk_calendar.feed_token(user)])


def _events(response) -> dict[str, icalendar.cal.Component]:
    cal = icalendar.Calendar.from_ical(response.content)
    return {str(e["summary"]): e for e in cal.walk("VEVENT")}


def test_the_feed_is_rfc_5545_with_uids_stamps_and_all_day_due_dates(planned, writer):
    response = Client().get(_feed_path(writer))

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    cal = icalendar.Calendar.from_ical(response.content)
    assert str(cal["version"]) == "2.0" and cal["prodid"]
    events = _events(response)
    due = events["Due: write “Photonic fabric” (wanda_writer)"]
    assert due.decoded("dtstart") == FRIDAY  # a date: all day
    assert due.decoded("dtend") == FRIDAY + datetime.timedelta(days=1)
    assert str(due["uid"]).startswith("assignment-")
    assert due.decoded("dtstamp") == NOW
    published = events["Publish “Photonic fabric”"]
    assert published.decoded("dtstart") == datetime.datetime(2026, 12, 8, 14, tzinfo=datetime.UTC)
    assert "Released: Test Show S1E7 “Seven”" in events
    # Only the person's own assignments.
    assert not any("Someone else's" in title for title in events)
    assert len({str(e["uid"]) for e in events.values()}) == len(events)


def test_a_bad_signature_is_404(planned, writer):
    path = _feed_path(writer)
    assert Client().get(path.replace(".ics", "x.ics")).status_code == 404
    assert Client().get("/calendar/not-a-token.ics").status_code == 404


def test_a_reset_address_revokes_the_old_one(planned, writer):
    old = _feed_path(writer)
    client = client_for(writer)
    response = client.post("/admin/my-work/", {"reset_feed": "1"})
    assert response.status_code == 302

    assert Client().get(old).status_code == 404
    new = _feed_path(writer)
    assert new != old
    assert Client().get(new).status_code == 200


def test_a_deactivated_person_has_no_feed(planned, writer):
    path = _feed_path(writer)
    writer.is_active = False
    writer.save()
    assert Client().get(path).status_code == 404


def test_the_feed_carries_no_entries_to_someone_who_cannot_view_entries(planned, writer):
    path = _feed_path(writer)
    writer.groups.clear()  # their role taken away; the account stays active

    events = _events(Client().get(path))

    assert events == {}


def test_a_token_signed_for_another_purpose_is_refused(planned, writer):
    assert Client().get(_feed_path(writer)).status_code == 200
    forged = signing.dumps({"u": writer.pk, "k": "guess"}, salt=desk_calendar.FEED_SALT)
    assert Client().get(f"/calendar/{forged}.ics").status_code == 404
    other_salt = signing.dumps({"u": writer.pk, "k": writer.calendar_feed.key}, salt="other")
    assert Client().get(f"/calendar/{other_salt}.ics").status_code == 404
