"""Who else has an entry open: marks written by the entry page's heartbeat.

Each open entry page reports every PRESENCE_HEARTBEAT_SECONDS (and once as it is
drawn, so the banner shows without JavaScript); leaving the page removes its mark,
and a mark not refreshed for PRESENCE_GONE_AFTER_SECONDS counts as gone.

Marks are rows in the database (`EditingPresence`), not cache keys: one indexed upsert
per open page every half-minute is cheap, every web worker reads the same rows, and a
worker restart, a Redis eviction or a Redis outage (the cache answers "miss" then,
config's cache backend) would otherwise make everyone vanish from each other's banner
at once, which is when two people are most likely to overwrite each other. Nothing
here is read by a version, a public page, the API or a feed.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from editorial.models import EditingPresence
from editorial.newsroom import format_instant, to_local
from editorial.permissions import Action, can
from glossary.models import Entry


@dataclass(frozen=True)
class Present:
    """Someone else on the entry's page."""

    user_id: int
    name: str
    since: datetime.datetime
    editing: bool  # may change the entry's text (a fact-checker reads it, bar the citations)

    def sentence(self, now: datetime.datetime | None = None) -> str:
        """“Ana Editor has had this entry open since 14:02 EST.” (with the date if not today)."""
        local, today = to_local(self.since), to_local(now or timezone.now())
        when = (
            f"{local:%H:%M} {local.tzname()}"
            if local.date() == today.date()
            else format_instant(self.since)
        )
        reading = "" if self.editing else " (reading; they cannot change its text)"
        return f"{self.name} has had this entry open since {when}{reading}."

    def as_json(self, now: datetime.datetime | None = None) -> dict[str, Any]:
        return {
            "name": self.name,
            "since": self.since.isoformat(),
            "editing": self.editing,
            "sentence": self.sentence(now),
        }


def display_name(user: Any) -> str:
    return str(user.get_full_name() or user.get_username())


def gone_before(now: datetime.datetime | None = None) -> datetime.datetime:
    """Marks last seen before this instant count as gone."""
    return (now or timezone.now()) - datetime.timedelta(
        seconds=settings.PRESENCE_GONE_AFTER_SECONDS
    )


def mark(entry: Entry | int, user: Any, *, now: datetime.datetime | None = None) -> None:
    """`user` has `entry`'s page open now. Someone back after being gone is open from now.

    One statement whatever the row's state (an upsert, on PostgreSQL and SQLite alike):
    the entry page's query count does not depend on whether the viewer was there before.
    """
    now = now or timezone.now()
    entry_id = entry if isinstance(entry, int) else entry.pk
    table = connection.ops.quote_name(EditingPresence._meta.db_table)
    at = connection.ops.adapt_datetimefield_value(now)
    cutoff = connection.ops.adapt_datetimefield_value(gone_before(now))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (entry_id, user_id, since, last_seen) "  # noqa: S608 - our table
            "VALUES (%s, %s, %s, %s) ON CONFLICT (entry_id, user_id) DO UPDATE SET "
            f"since = CASE WHEN {table}.last_seen < %s THEN excluded.since "
            f"ELSE {table}.since END, last_seen = excluded.last_seen",
            [entry_id, user.pk, at, at, cutoff],
        )


def leave(entry: Entry | int, user: Any) -> None:
    """`user` closed `entry`'s page (or went elsewhere)."""
    entry_id = entry if isinstance(entry, int) else entry.pk
    EditingPresence.objects.filter(entry_id=entry_id, user_id=user.pk).delete()


def others(entry: Entry | int, user: Any, *, now: datetime.datetime | None = None) -> list[Present]:
    """Everyone but `user` with `entry` open lately, longest first. One query (two when
    there is something stale to prune); never `user` themselves."""
    now = now or timezone.now()
    entry_id = entry if isinstance(entry, int) else entry.pk
    cutoff = gone_before(now)
    rows = list(
        EditingPresence.objects.filter(entry_id=entry_id)
        .select_related("user")
        .order_by("since", "pk")
    )
    stale = [row.pk for row in rows if row.last_seen < cutoff]
    if stale:
        EditingPresence.objects.filter(pk__in=stale, last_seen__lt=cutoff).delete()
    return [
        Present(row.user_id, display_name(row.user), row.since, can(row.user, Action.EDIT))
        for row in rows
        if row.last_seen >= cutoff and row.user_id != user.pk and row.user.is_active
    ]


def prune(now: datetime.datetime | None = None) -> int:
    """Remove every mark gone for a day: pages closed without saying so (a crash, a
    laptop lid). Marks merely gone are pruned as their entry is next looked at."""
    cutoff = (now or timezone.now()) - datetime.timedelta(days=1)
    deleted, _ = EditingPresence.objects.filter(last_seen__lt=cutoff).delete()
    return deleted
