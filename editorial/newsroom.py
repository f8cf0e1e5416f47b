"""Time as the newsroom reads it: its zone, its "today", and how dates are written.

Every check and every action that writes or compares a date goes through here,
so a citation confirmed at 21:00 in New York is confirmed *today* there, not
tomorrow in UTC, and the freshness window counts the same days the gates count.
Instants are stored in UTC; `settings.NEWSROOM_TIME_ZONE` names the zone.

Every time the desk shows is newsroom time: `DeskTimeMiddleware` makes the zone
Django's current one for the desk's pages, so the admin's lists, forms, history
and date filters read it; text written outside a request (emails, the
scheduler's results, commands, a row's name) formats with `format_instant`.
Readers' pages keep their own convention (dates in `settings.TIME_ZONE`).
"""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponseBase
from django.utils import timezone

# The URL namespaces of the desk's pages: Django's admin and the desk's own pages under it.
DESK_NAMESPACES = frozenset({"admin", "desk"})


def zone() -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(settings.NEWSROOM_TIME_ZONE)


def today(at: datetime.datetime | None = None) -> datetime.date:
    """The date in the newsroom's zone at `at` (by default now)."""
    return (at or timezone.now()).astimezone(zone()).date()


def to_local(at: datetime.datetime) -> datetime.datetime:
    return at.astimezone(zone())


def zone_label(at: datetime.datetime | None = None) -> str:
    """The zone as editors read it, e.g. "America/New_York (EST)" (EDT in summer)."""
    abbreviation = to_local(at or timezone.now()).tzname()
    name = settings.NEWSROOM_TIME_ZONE
    return f"{name} ({abbreviation})" if abbreviation and abbreviation != name else name


def format_instant(at: datetime.datetime | None) -> str:
    """A UTC instant as the newsroom reads it: "Dec 1, 2026, 09:00 EST"."""
    if at is None:
        return ""
    local = to_local(at)
    return f"{local:%b} {local.day}, {local:%Y}, {local:%H:%M} {local.tzname()}"


def format_date(day: datetime.date) -> str:
    """A date as the public page writes it: "October 24, 2026"."""
    return f"{day:%B} {day.day}, {day.year}"


def from_local(naive: datetime.datetime) -> datetime.datetime:
    """A wall-clock time in the newsroom's zone as an aware datetime.

    Refuses times that do not exist (the hour skipped when clocks go forward)
    or happen twice (the hour repeated when they go back), naming the problem.
    """
    if timezone.is_aware(naive):
        return naive
    here = zone()
    first = naive.replace(tzinfo=here, fold=0)
    second = naive.replace(tzinfo=here, fold=1)
    if first.utcoffset() != second.utcoffset():
        roundtrip = first.astimezone(datetime.UTC).astimezone(here).replace(tzinfo=None)
        if roundtrip != naive:
            raise ValidationError(
                f"{naive:%H:%M} on {naive:%b %d} does not exist in {settings.NEWSROOM_TIME_ZONE}: "
                "the clocks skip that hour. Choose another time.",
                code="nonexistent",
            )
        raise ValidationError(
            f"{naive:%H:%M} on {naive:%b %d} happens twice in {settings.NEWSROOM_TIME_ZONE} "
            "as the clocks go back. Choose a time outside that hour.",
            code="ambiguous",
        )
    return first


class DeskTimeMiddleware:
    """Desk pages in the newsroom's zone: Django's current zone while their view runs.

    With it, everything Django formats on those pages (the admin's columns and read-only
    fields, `|date` in templates, date filters and hierarchies, the offset the admin's
    "Now" and "Today" shortcuts fill in from) is newsroom time, and a time typed into a
    date-time field is read as newsroom time. Other pages, readers' pages among them,
    keep `settings.TIME_ZONE`.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        try:
            return self.get_response(request)
        finally:
            # A thread serves the next request too: no desk page's zone may stay behind.
            timezone.deactivate()

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: Any) -> None:
        match = request.resolver_match
        if match is not None and DESK_NAMESPACES.intersection(match.namespaces):
            timezone.activate(zone())
