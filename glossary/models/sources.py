"""Cited web pages (`Source`, one row per URL), the citations of them that are part of an
entry's working copy, and the automatic link checks of their addresses.
"""

from __future__ import annotations

import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from glossary.fields import SingleLineCharField, WebURLField
from glossary.models.entries import Entry, EntryPart


def normalise_url(url: str) -> str:
    """One spelling per address: trimmed, scheme and host lower-cased, default port dropped."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()  # not a URL at all ("http://["): the validators name the problem
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return url.strip()
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    default_port = {"http": 80, "https": 443}[parts.scheme.lower()]
    try:
        port = parts.port
    except ValueError:
        return url.strip()
    netloc = host if port in (None, default_port) else f"{host}:{port}"
    if parts.username or parts.password:
        netloc = parts.netloc.rsplit("@", 1)[0] + "@" + netloc
    return urlunsplit(
        (parts.scheme.lower(), netloc, parts.path or "/", parts.query, parts.fragment)
    )


def source_title(publisher: str, title: str) -> str:
    """ "NVIDIA: NVLink and NVLink Switch", or just the title when the publisher is the same."""
    if publisher and publisher != title:
        return f"{publisher}: {title}"
    return title


def fingerprint_changed(confirmed: str, last: str) -> bool:
    """Whether a page's text changed since a person confirmed it (SourceQuerySet says the same)."""
    return bool(confirmed and last and last != confirmed)


# Sources whose page text changed after a person last confirmed them (the SQL form of
# `fingerprint_changed`).
CHANGED_SINCE_CONFIRMED = (
    ~Q(confirmed_fingerprint="")
    & ~Q(last_fingerprint="")
    & ~Q(last_fingerprint=models.F("confirmed_fingerprint"))
)


class SourceQuerySet(models.QuerySet["Source"]):
    def changed_since_confirmed(self) -> SourceQuerySet:
        return self.filter(CHANGED_SINCE_CONFIRMED)


class Source(models.Model):
    """A cited web page, one row per URL, shared by every entry that cites it."""

    class Kind(models.TextChoices):
        VENDOR = "vendor", "Vendor page"
        STANDARD = "standard", "Standard or consortium"
        PAPER = "paper", "Paper"
        NEWS = "news", "News or article"
        REFERENCE = "reference", "Reference"
        OTHER = "other", "Other"

    class CitationStatus(models.TextChoices):
        LIVE = "live", "Live"
        DEAD = "dead", "Dead (use the archive)"
        UNFIT = "unfit", "Unfit (original now unsuitable)"
        USURPED = "usurped", "Usurped (domain taken over)"

    class Health(models.TextChoices):
        UNCHECKED = "unchecked", "Not checked yet"
        OK = "ok", "OK"
        FAILING = "failing", "Failing"
        BROKEN = "broken", "Broken"
        MOVED = "moved", "Moved"
        BLOCKED = "blocked", "Blocked (needs a human look)"
        EMPTY = "empty", "Empty page (needs a human look)"

    url = WebURLField("URL", unique=True)
    title = SingleLineCharField(max_length=300)
    publisher = SingleLineCharField(max_length=200, blank=True)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.OTHER)
    archive_url = WebURLField("archive URL", blank=True)
    archive_date = models.DateField(null=True, blank=True)
    citation_status = models.CharField(
        max_length=10,
        choices=CitationStatus.choices,
        default=CitationStatus.LIVE,
        help_text="As in Wikipedia's citation templates: dead or unfit sources link to "
        "the archive copy.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    # Link health, maintained by the automatic checker (editorial.linkcheck).
    health = models.CharField(
        max_length=12, choices=Health.choices, default=Health.UNCHECKED, db_index=True
    )
    health_changed_at = models.DateTimeField(null=True, blank=True)
    failure_streak = models.PositiveIntegerField(default=0)
    first_failure_at = models.DateTimeField(null=True, blank=True)
    # The last failure that counted towards the streak: failures closer together
    # than LINKCHECK_FAILURE_SPACING_DAYS count once, so one bad day never breaks a link.
    last_counted_failure_at = models.DateTimeField(null=True, blank=True)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    next_check_at = models.DateTimeField(null=True, blank=True)
    last_outcome = models.CharField(max_length=20, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    suggested_url = WebURLField(
        blank=True, help_text="Where a permanent redirect says the page now lives."
    )
    last_fingerprint = models.CharField(max_length=64, blank=True)
    confirmed_fingerprint = models.CharField(
        max_length=64,
        blank=True,
        help_text="The content fingerprint when a person last confirmed this source.",
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)

    objects = SourceQuerySet.as_manager()

    class Meta:
        ordering = ["title"]
        indexes = [
            # editorial.linkcheck: selecting the sources due for a check.
            models.Index(fields=["next_check_at"], name="source_next_check_idx"),
        ]

    def __str__(self) -> str:
        return self.display_title

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.url = normalise_url(self.url)
        super().save(*args, **kwargs)

    @property
    def display_title(self) -> str:
        return source_title(self.publisher, self.title)

    @property
    def changed_since_confirmed(self) -> bool:
        return fingerprint_changed(self.confirmed_fingerprint, self.last_fingerprint)


def freshness_cutoff(today: datetime.date) -> datetime.date:
    """The oldest check date still fresh on `today` (the newsroom's date)."""
    return today - datetime.timedelta(days=settings.CITATION_FRESHNESS_DAYS)


class CitationQuerySet(models.QuerySet["Citation"]):
    def stale(self, today: datetime.date) -> CitationQuerySet:
        """Citations never checked, or last checked outside the freshness window.

        `today` is the newsroom's date (editorial.newsroom.today), so the window
        counts the same days wherever the server runs.
        """
        return self.filter(Q(checked_on__isnull=True) | Q(checked_on__lt=freshness_cutoff(today)))


class Citation(EntryPart):
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="citations")
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="citations")
    note = models.TextField(
        blank=True, help_text="What this source says that the entry relies on, for readers."
    )
    checked_on = models.DateField(
        null=True,
        blank=True,
        help_text="When a person last confirmed the source still supports this entry "
        "(Wikipedia's access-date). Shown as “checked October 24, 2026”.",
    )
    checked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Written by the desk when the citation is confirmed (editorial.sourcetext), never typed:
    # part of every version, so readers see it only once someone else has published it.
    excerpt = models.TextField(
        blank=True,
        help_text="What the source said in support of the note when it was last confirmed "
        "(at most 3 sentences, 50 words). Readers see it, dated, when the source dies or "
        "changes, after the next publish.",
    )
    excerpt_on = models.DateField(
        null=True, blank=True, help_text="The date the excerpt's text was confirmed."
    )

    objects = CitationQuerySet.as_manager()

    class Meta(EntryPart.Meta):
        constraints = [
            models.UniqueConstraint(fields=["entry", "source"], name="citation_unique_per_entry")
        ]
        # The dashboard's stale and never-checked citations, and the publish check's
        # freshness: a few rows found without reading them all.
        indexes = [models.Index(fields=["checked_on"], name="citation_checked_on_idx")]

    def __str__(self) -> str:
        return str(self.source)

    def is_stale(self, today: datetime.date) -> bool:
        """The rule of CitationQuerySet.stale, for a citation already in memory."""
        return self.checked_on is None or self.checked_on < freshness_cutoff(today)


class LinkCheck(models.Model):
    """One automatic check of a source's URL; never an editorial confirmation."""

    source = models.ForeignKey(
        Source, on_delete=models.CASCADE, related_name="checks", null=True, blank=True
    )
    url = models.CharField(max_length=2000)
    checked_at = models.DateTimeField(default=timezone.now)
    outcome = models.CharField(max_length=20)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    final_url = models.CharField(max_length=2000, blank=True)
    redirects = models.JSONField(default=list, blank=True)
    elapsed_ms = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    fingerprint = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-checked_at"]
        get_latest_by = "checked_at"
        indexes = [
            # Source admin history and the state machine read a source's latest checks.
            models.Index(fields=["source", "-checked_at"], name="linkcheck_source_recent_idx"),
            # Retention pruning and the dashboard's weekly health chart.
            models.Index(fields=["checked_at"], name="linkcheck_checked_at_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.url}: {self.outcome}"
