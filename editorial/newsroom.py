"""Time as the newsroom reads it: its zone, its "today", and how dates are written.

Every check and every action that writes or compares a date goes through here,
so a citation confirmed at 21:00 in New York is confirmed *today* there, not
tomorrow in UTC, and the freshness window counts the same days the gates count.
Instants are stored in UTC; `settings.NEWSROOM_TIME_ZONE` names the zone.
"""

from __future__ import annotations

import datetime
import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone


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
