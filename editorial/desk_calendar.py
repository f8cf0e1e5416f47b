"""The desk's calendar: scheduled publications, assignment due dates and episode releases.

One builder (`events_between`) feeds both the admin's month and week views and each
person's iCalendar feed, at three queries whatever the range holds. Every day is a
day in the newsroom's zone: a publication scheduled for 23:30 in New York is on that
day, not the next in UTC.

The feed is read by calendar apps that cannot sign in, so its address carries a
token signed with SECRET_KEY naming the person and their `CalendarFeed.key`
(`feed_token`); resetting the key from "My work" makes every older address answer
404. A feed carries only what its person may see now: entries only while they may
view entries, episodes only while they may view episodes, and nothing once their
account is deactivated.
"""

from __future__ import annotations

import datetime
import secrets
from dataclasses import dataclass
from typing import Any

import icalendar
from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.urls import reverse
from django.utils import timezone

from editorial import newsroom
from editorial.models import Assignment, CalendarFeed, ScheduledAction
from editorial.permissions import Action, can
from glossary.models import Episode

FEED_SALT = "editorial.desk_calendar.feed"
# What a calendar app is given: a month back (what just slipped) and half a year ahead.
FEED_PAST_DAYS = 31
FEED_FUTURE_DAYS = 183


@dataclass(frozen=True)
class Event:
    """One thing on a day of the calendar."""

    kind: str  # "publish", "unpublish", "due", "release"
    day: datetime.date
    title: str
    uid: str
    url: str = ""
    at: datetime.datetime | None = None  # an instant (UTC) for scheduled actions
    description: str = ""
    overdue: bool = False
    mine: bool = False


def _day_bounds(start: datetime.date, end: datetime.date) -> tuple[datetime.datetime, ...]:
    """The instants of the newsroom's midnights starting `start` and ending `end` (inclusive)."""
    zone = newsroom.zone()
    first = datetime.datetime.combine(start, datetime.time(), tzinfo=zone)
    last = datetime.datetime.combine(end + datetime.timedelta(days=1), datetime.time(), tzinfo=zone)
    return first, last


def _entry_url(entry_id: int) -> str:
    return reverse("admin:glossary_entry_change", args=[entry_id])


def events_between(
    start: datetime.date,
    end: datetime.date,
    *,
    user: User,
    only_mine: bool = False,
    today: datetime.date | None = None,
) -> list[Event]:
    """Everything on the calendar from `start` to `end` (inclusive) that `user` may see.

    `only_mine`: of the assignments, only `user`'s (their calendar feed).
    """
    today = today or newsroom.today()
    events: list[Event] = []
    if can(user, Action.VIEW):
        events += _scheduled_between(start, end)
        events += _due_between(start, end, user=user, only_mine=only_mine, today=today)
    if user.has_perm("glossary.view_episode"):
        events += _released_between(start, end)
    order = {"publish": 0, "unpublish": 0, "due": 1, "release": 2}
    # A day reads: what goes out (by its time), what is due, what is released.
    earliest = datetime.datetime.min.replace(tzinfo=datetime.UTC)
    events.sort(key=lambda e: (e.day, order[e.kind], e.at or earliest, e.title))
    return events


def _scheduled_between(start: datetime.date, end: datetime.date) -> list[Event]:
    """The publishes and unpublishes waiting to run on those days (newsroom days)."""
    first, last = _day_bounds(start, end)
    scheduled = (
        ScheduledAction.objects.filter(
            state=ScheduledAction.State.PENDING, due_at__gte=first, due_at__lt=last
        )
        .select_related("entry")
        .order_by("due_at", "pk")
    )
    events = []
    for action in scheduled:
        verb = action.get_action_display()
        events.append(
            Event(
                kind=action.action,
                day=newsroom.to_local(action.due_at).date(),
                title=f"{verb} “{action.entry.term}”",
                uid=f"scheduled-{action.pk}",
                url=_entry_url(action.entry_id),
                at=action.due_at,
                description=f"Scheduled: {verb.lower()} at the first scheduler run after "
                f"{newsroom.format_instant(action.due_at)}.",
            )
        )
    return events


def _due_between(
    start: datetime.date,
    end: datetime.date,
    *,
    user: User,
    only_mine: bool,
    today: datetime.date,
) -> list[Event]:
    """The open assignments due on those days (only `user`'s with `only_mine`)."""
    assignments = Assignment.objects.filter(
        done_at__isnull=True, due_on__gte=start, due_on__lte=end
    ).select_related("entry", "assignee")
    if only_mine:
        assignments = assignments.filter(assignee=user)
    events = []
    for assignment in assignments.order_by("due_on", "pk"):
        who = assignment.assignee.get_username()
        verb = "Write" if assignment.role == Assignment.Role.WRITER else "Fact-check"
        events.append(
            Event(
                kind="due",
                day=assignment.due_on,
                title=f"Due: {verb.lower()} “{assignment.entry.term}” ({who})",
                uid=f"assignment-{assignment.pk}",
                url=_entry_url(assignment.entry_id),
                description=assignment.note,
                overdue=assignment.due_on < today,
                mine=assignment.assignee_id == user.pk,
            )
        )
    return events


def _released_between(start: datetime.date, end: datetime.date) -> list[Event]:
    """The episodes the feeds say air on those days."""
    episodes = (
        Episode.objects.filter(air_date__gte=start, air_date__lte=end)
        .select_related("show")
        .order_by("air_date", "show__name", "season", "number")
    )
    events = []
    for episode in episodes:
        if episode.air_date is None:  # never: the filter above; for the type checker
            continue
        events.append(
            Event(
                kind="release",
                day=episode.air_date,
                title=f"Released: {episode.show.name} S{episode.season}E{episode.number} "
                f"“{episode.title}”",
                uid=f"episode-{episode.pk}",
                url=reverse("admin:glossary_episode_change", args=[episode.pk]),
            )
        )
    return events


# --- Month and week grids ------------------------------------------------------------------


@dataclass
class Day:
    date: datetime.date
    events: list[Event]
    in_month: bool
    is_today: bool


def month_grid(year: int, month: int, events: list[Event], today: datetime.date) -> list[list[Day]]:
    """The weeks (Monday first) covering the month, each day with its events."""
    start, end = month_range(year, month)
    by_day: dict[datetime.date, list[Event]] = {}
    for event in events:
        by_day.setdefault(event.day, []).append(event)
    weeks: list[list[Day]] = []
    day = start
    while day <= end:
        week = []
        for _ in range(7):
            week.append(Day(day, by_day.get(day, []), day.month == month, day == today))
            day += datetime.timedelta(days=1)
        weeks.append(week)
    return weeks


def month_range(year: int, month: int) -> tuple[datetime.date, datetime.date]:
    """The first and last day the month grid shows (whole weeks)."""
    first = datetime.date(year, month, 1)
    start = first - datetime.timedelta(days=first.weekday())
    next_month = (first + datetime.timedelta(days=32)).replace(day=1)
    last = next_month - datetime.timedelta(days=1)
    end = last + datetime.timedelta(days=6 - last.weekday())
    return start, end


def week_start(day: datetime.date) -> datetime.date:
    return day - datetime.timedelta(days=day.weekday())


# --- The iCalendar feed --------------------------------------------------------------------


def _feed_key(user: User, *, reset: bool = False) -> str:
    feed, made = CalendarFeed.objects.get_or_create(
        user=user, defaults={"key": secrets.token_urlsafe(24)}
    )
    if reset and not made:
        feed.key = secrets.token_urlsafe(24)
        feed.created_at = timezone.now()
        feed.save(update_fields=["key", "created_at"])
    return feed.key


def feed_token(user: User) -> str:
    """The signed token of `user`'s feed address (made on first use)."""
    return signing.dumps({"u": user.pk, "k": _feed_key(user)}, salt=FEED_SALT, compress=False)


def reset_feed(user: User) -> str:
    """A new key: every address given out before stops working. Returns the new token."""
    _feed_key(user, reset=True)
    return feed_token(user)


def feed_url(user: User) -> str:
    return settings.SITE_URL + reverse("calendar-feed", args=[feed_token(user)])


def user_for_token(token: str) -> User | None:
    """The active person a feed token names, or None (bad signature, reset key, gone)."""
    try:
        data: Any = signing.loads(token, salt=FEED_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        return None
    feed = (
        CalendarFeed.objects.filter(user_id=data["u"], user__is_active=True)
        .select_related("user")
        .first()
    )
    if feed is None or not secrets.compare_digest(feed.key, str(data.get("k", ""))):
        return None
    return feed.user


def ical_for(user: User, *, now: datetime.datetime | None = None) -> bytes:
    """`user`'s calendar as an RFC 5545 document."""
    now = now or timezone.now()
    today = newsroom.today(now)
    events = events_between(
        today - datetime.timedelta(days=FEED_PAST_DAYS),
        today + datetime.timedelta(days=FEED_FUTURE_DAYS),
        user=user,
        only_mine=True,
        today=today,
    )
    host = settings.SITE_URL.split("://", 1)[-1].split("/", 1)[0] or "glossary-desk"
    cal = icalendar.Calendar()
    cal.add("prodid", "-//Glossary Desk//Desk calendar//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", f"Glossary Desk: {user.get_username()}")
    cal.add("x-wr-timezone", settings.NEWSROOM_TIME_ZONE)
    stamp = now.astimezone(datetime.UTC)
    for event in events:
        item = icalendar.Event()
        item.add("uid", f"{event.uid}@{host}")
        item.add("dtstamp", stamp)
        item.add("summary", event.title)
        if event.at is not None:
            start = event.at.astimezone(datetime.UTC)
            item.add("dtstart", start)
            item.add("dtend", start + datetime.timedelta(minutes=15))
        else:
            # All-day: the day in the newsroom's zone, ending (exclusively) the next day.
            item.add("dtstart", event.day)
            item.add("dtend", event.day + datetime.timedelta(days=1))
            item.add("transp", "TRANSPARENT")
        if event.url:
            item.add("url", settings.SITE_URL + event.url)
        if event.description:
            item.add("description", event.description)
        item.add("categories", [event.kind])
        cal.add_component(item)
    return bytes(cal.to_ical())
