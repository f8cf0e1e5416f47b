"""Published documents: `EntryVersion`, an immutable snapshot of an entry and every part,
rendered once when published. The one a readers' page shows is its entry's live version.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from taggit.models import Tag

from glossary.models.entries import Entry
from glossary.models.podcast import Episode, Organisation, Person, Show
from glossary.models.sources import Source


class EntryVersionQuerySet(models.QuerySet["EntryVersion"]):
    def live(self) -> EntryVersionQuerySet:
        """The one visibility rule seen from the version side: the versions readers see."""
        return self.filter(live_for__isnull=False)


class EntryVersion(models.Model):
    """An immutable snapshot of an entry and all its parts.

    Versions are written on publish (and by the workflow on every save); the
    live one is pre-rendered so public pages never re-assemble an entry.
    The denormalised columns serve listings and search; `data` holds the
    complete document (glossary.document.EntryDocument).
    """

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    # Who wrote it: an author of the change until another editor publishes it
    # (editorial.workflow.change_authors), so an account that wrote a version cannot be
    # deleted (its versions would have no author, and a new account of the same name
    # could publish them alone); deactivate it instead. Empty: a script, the demo
    # loader, or an import that could not name its author.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    show = models.ForeignKey(
        "Show",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The show the entry belonged to when this version was saved: readers find "
        "the entry on that show's site while this version is live (empty: the network's only).",
    )
    data = models.JSONField()
    term = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)
    summary = models.CharField(max_length=settings.SUMMARY_MAX_LENGTH, blank=True)
    search_text = models.TextField(
        blank=True, help_text="Aliases, body text and quotes as plain text, for search."
    )
    search_names = models.TextField(
        blank=True,
        help_text="The term and its aliases, one a line (search matches misspellings "
        "against the live listing's copy, Listing.names).",
    )
    rendered_html = models.TextField(
        blank=True, help_text="The whole public page's content, rendered when published."
    )
    api_json = models.TextField(
        blank=True, help_text="The API's answer for this entry, rendered when published."
    )
    published_at = models.DateTimeField(null=True, blank=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    is_material = models.BooleanField(
        default=True,
        help_text="A material change moves the entry's “updated” date in feeds and sitemaps; "
        "a typo fix does not.",
    )
    correction_note = models.TextField(
        blank=True, help_text="Shown publicly on the entry when this version is published."
    )
    comment = models.TextField(blank=True)
    # Public cross-references, filled from the snapshot so episode, person,
    # organisation and tag pages can find live versions with one indexed join. A show is
    # named by the snapshot too, never through the desk's episodes, whose show a writer
    # may change with nothing published.
    shows = models.ManyToManyField(Show, blank=True, related_name="entry_versions")
    episodes = models.ManyToManyField(Episode, blank=True, related_name="entry_versions")
    people = models.ManyToManyField(Person, blank=True, related_name="entry_versions")
    organisations = models.ManyToManyField(Organisation, blank=True, related_name="entry_versions")
    sources: models.ManyToManyField[Source, Any] = models.ManyToManyField(
        "Source", blank=True, related_name="entry_versions"
    )
    tags: models.ManyToManyField[Tag, Any] = models.ManyToManyField(
        "taggit.Tag", blank=True, related_name="entry_versions"
    )
    see_also_targets = models.ManyToManyField(
        Entry, blank=True, related_name="linked_from_versions"
    )

    objects = EntryVersionQuerySet.as_manager()

    class Meta:
        ordering = ["entry", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["entry", "number"], name="entryversion_unique_number")
        ]
        indexes = [
            # A-Z lists (the index, a letter, the API's entry list) read the first page in
            # term order instead of sorting every live version (30 ms at 10,000 entries).
            models.Index(fields=["term", "id"], name="entryversion_term_idx"),
        ]
        get_latest_by = "number"

    def __str__(self) -> str:
        return f"{self.term} v{self.number}"
