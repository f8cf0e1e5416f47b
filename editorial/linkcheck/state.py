"""A source's link health, derived from its history of check outcomes.

One failing check never flags a page: a source becomes *broken* only after
LINKCHECK_BROKEN_AFTER failures, each counted at least
LINKCHECK_FAILURE_SPACING_DAYS after the previous counted one (failures
closer together count once). One success resets the streak. Outcomes that say
nothing about the page itself (rate limited, TLS trouble) never count.

A page that answers with no text (`Outcome.EMPTY`) is counted the same way, spaced
in time, but it never makes a source *broken*: the address works, and the page may
only be built by scripts the checker does not run. It is *failing* at first and
*empty* once the streak reaches LINKCHECK_BROKEN_AFTER, which asks a person to look
(and lets readers see the dated excerpt of what the page said).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from editorial.linkcheck.classify import FAILURES, Outcome
from editorial.linkcheck.fetch import CheckResult
from glossary.models import LinkCheck, Source, fingerprint_changed

Health = Source.Health

editors_log = logging.getLogger("editorial.linkcheck.editors")

# The Source columns the state machine writes (for .update() / bulk_update()).
STATE_FIELDS = (
    "health",
    "health_changed_at",
    "failure_streak",
    "first_failure_at",
    "last_counted_failure_at",
    "last_checked_at",
    "next_check_at",
    "last_outcome",
    "last_status_code",
    "suggested_url",
    "last_fingerprint",
)


# State columns every check writes whatever they held: never loaded, never compared.
ALWAYS_WRITTEN = ("last_checked_at", "next_check_at")
# The other state columns, loaded so that only those a check changed are written.
COMPARED_FIELDS = tuple(name for name in STATE_FIELDS if name not in ALWAYS_WRITTEN)


class SourceRow:
    """The columns of a Source that a check reads and writes, without a model instance.

    Loading these as plain values is several times cheaper than building
    Source instances, which mattered at thousands of sources per run.
    `apply_result` accepts either. ALWAYS_WRITTEN columns are not loaded (the
    check sets them), which also spares parsing two datetimes per source.
    """

    __slots__ = ("pk", "url", "confirmed_fingerprint", *STATE_FIELDS)
    LOAD_FIELDS = ("pk", "url", "confirmed_fingerprint", *COMPARED_FIELDS)

    pk: int
    url: str
    confirmed_fingerprint: str
    health: str
    health_changed_at: datetime | None
    failure_streak: int
    first_failure_at: datetime | None
    last_counted_failure_at: datetime | None
    last_checked_at: datetime | None
    next_check_at: datetime | None
    last_outcome: str
    last_status_code: int | None
    suggested_url: str
    last_fingerprint: str

    def __init__(self, values: Sequence[Any]) -> None:
        # One unpacking statement: a setattr loop cost as much as the database read.
        (
            self.pk,
            self.url,
            self.confirmed_fingerprint,
            self.health,
            self.health_changed_at,
            self.failure_streak,
            self.first_failure_at,
            self.last_counted_failure_at,
            self.last_outcome,
            self.last_status_code,
            self.suggested_url,
            self.last_fingerprint,
        ) = values

    @property
    def changed_since_confirmed(self) -> bool:
        return fingerprint_changed(self.confirmed_fingerprint, self.last_fingerprint)


@dataclass(frozen=True)
class Transition:
    """What a check changed about a source, for telling editors."""

    old_health: str
    new_health: str
    was_changed: bool
    now_changed: bool

    @property
    def health_changed(self) -> bool:
        return self.old_health != self.new_health

    @property
    def content_changed(self) -> bool:
        return self.now_changed and not self.was_changed

    @property
    def worth_telling(self) -> bool:
        # A new source found healthy is what editors expect; not news.
        first_ok = self.old_health == Health.UNCHECKED and self.new_health == Health.OK
        return (self.health_changed and not first_ok) or self.content_changed

    def describe(self, source: Source) -> str:
        parts = []
        if self.health_changed:
            parts.append(f"link is now {self.new_health} (was {self.old_health})")
        if self.content_changed:
            parts.append("page text changed since it was last confirmed")
        return f"Source #{source.pk} {source.url}: " + "; ".join(parts)


def _interval(days: tuple[float, float], rng: random.Random, factor: float = 1.0) -> timedelta:
    low, high = days
    # Random within the window so sources added together do not all come due together.
    return timedelta(days=rng.uniform(low, max(low, high)) * factor)


def apply_result(
    source: Source | SourceRow,
    result: CheckResult,
    now: datetime,
    *,
    archived_only: bool = False,
    rng: random.Random | None = None,
) -> Transition:
    """Fold one check result into `source`'s state (in memory; the caller saves)."""
    rng = rng or random.Random()  # noqa: S311 - scheduling jitter, not security
    old_health = source.health
    was_changed = source.changed_since_confirmed
    outcome = result.outcome
    healthy = settings.LINKCHECK_HEALTHY_INTERVAL_DAYS
    failing = settings.LINKCHECK_FAILING_INTERVAL_DAYS
    spacing = timedelta(days=settings.LINKCHECK_FAILURE_SPACING_DAYS)

    source.last_checked_at = now
    source.last_outcome = str(outcome)
    source.last_status_code = result.status_code
    if result.fingerprint:
        source.last_fingerprint = result.fingerprint

    window = healthy
    if outcome in (Outcome.OK, Outcome.MOVED):
        source.failure_streak = 0
        source.first_failure_at = None
        source.last_counted_failure_at = None
        if outcome is Outcome.MOVED:
            source.health = Health.MOVED
            source.suggested_url = result.final_url
        else:
            source.health = Health.OK
            source.suggested_url = ""
    elif outcome in FAILURES or outcome is Outcome.EMPTY:
        last = source.last_counted_failure_at
        if last is None or now - last >= spacing:
            source.failure_streak += 1
            source.last_counted_failure_at = now
            source.first_failure_at = source.first_failure_at or now
        # The outcome that reaches the streak names the state: an address that fails
        # is broken, a page that answers with nothing is empty.
        settled = Health.EMPTY if outcome is Outcome.EMPTY else Health.BROKEN
        if source.failure_streak >= settings.LINKCHECK_BROKEN_AFTER:
            source.health = settled
        elif source.health not in (Health.BROKEN, Health.EMPTY):
            source.health = Health.FAILING
        window = failing
    elif outcome in (Outcome.BLOCKED, Outcome.REFUSED):
        # Needs a human look; says nothing about whether the page still exists.
        source.health = Health.BLOCKED
    elif outcome is Outcome.TLS_ERROR:
        # Degraded, not broken: show it, but never count it towards "broken".
        if source.health in (Health.OK, Health.UNCHECKED, Health.MOVED):
            source.health = Health.FAILING
        window = failing
    else:  # rate limited: the host asked us to come back later
        window = failing

    delay = _interval(window, rng, settings.LINKCHECK_ARCHIVED_FACTOR if archived_only else 1.0)
    if outcome is Outcome.RATE_LIMITED and result.retry_after:
        delay = max(delay, timedelta(seconds=result.retry_after))
    source.next_check_at = now + delay
    if source.health != old_health:
        source.health_changed_at = now
    return Transition(
        old_health=old_health,
        new_health=source.health,
        was_changed=was_changed,
        now_changed=source.changed_since_confirmed,
    )


def tell_editors(source: Source, transition: Transition) -> None:
    """Log a change editors should act on; silent when nothing changed."""
    if not transition.worth_telling:
        return
    editors_log.warning("%s", transition.describe(source))


def prune_history(now: datetime) -> int:
    """Delete checks older than LINKCHECK_RETENTION_DAYS; returns how many went."""
    cutoff = now - timedelta(days=settings.LINKCHECK_RETENTION_DAYS)
    deleted, _ = LinkCheck.objects.filter(checked_at__lt=cutoff).delete()
    return deleted
