"""The editors' working copy of an entry (`Entry`) and the parts it is made of: episode
references, quotes, disclosures and see-also links (citations: glossary.models.sources).

Readers never read these rows; they read the `EntryVersion` an entry's `live_version`
points to (glossary.models.versions).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, ClassVar, Self

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils.html import escape
from django.utils.text import slugify
from taggit.managers import TaggableManager

from glossary.fields import SingleLineCharField, TimestampField
from glossary.models.podcast import Episode, Organisation, Person
from glossary.timestamps import format_timestamp


def name_keys(term: str, aliases: str) -> set[str]:
    """An entry's term and aliases as the duplicate-name check compares them: spaces
    collapsed, case folded ("Straße" and "STRASSE" are one name)."""
    lines = [term, *aliases.splitlines()]
    return {" ".join(n.split()).casefold() for n in lines if n.strip()}


# What only the workflow and publishing write, each naming the fields it writes
# (editorial.workflow, glossary.publishing): never written back by a save of an entry.
PUBLISHING_STATE = frozenset(
    {
        "live_version",
        "status",
        "has_unpublished_changes",
        "first_published_at",
        "last_published_at",
        "significant_change_at",
    }
)


class EntryQuerySet(models.QuerySet["Entry"]):
    def published(self) -> EntryQuerySet:
        """The one visibility rule: an entry is public while it has a live version."""
        return self.filter(live_version__isnull=False)


class Entry(models.Model):
    """The editors' working copy of a glossary entry; readers see its live version."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        IN_REVIEW = "in_review", "In review"
        CHANGES_REQUESTED = "changes_requested", "Changes requested"
        PUBLISHED = "published", "Published"
        ARCHIVED = "archived", "Archived"

    # The workflow's states of an entry that is live meanwhile, as the desk names them.
    LIVE_EDIT_LABELS: ClassVar[dict[str, str]] = {
        Status.DRAFT: "Live, with unpublished changes",
        Status.IN_REVIEW: "Live, with changes in review",
        Status.CHANGES_REQUESTED: "Live, with changes requested",
    }

    term = SingleLineCharField(max_length=200)
    slug = models.SlugField(
        max_length=200,
        unique=True,
        help_text="The page address, as in /glossary/interconnect/ (stored in lowercase). "
        "Changing it on a published entry redirects the old address once the change is "
        "published.",
    )
    show = models.ForeignKey(
        "Show",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="entries",
        help_text="The show this entry belongs to. Who may work on it follows the show's "
        "team; left empty, it belongs to the whole network.",
    )
    aliases = models.TextField(
        blank=True,
        help_text="Other names readers may look for, one per line (e.g. NVLink). "
        "Their addresses redirect to this entry.",
    )
    summary = SingleLineCharField(
        max_length=settings.SUMMARY_MAX_LENGTH,
        blank=True,
        help_text="One or two sentences on one line, for the index, feeds and search results' "
        "meta description.",
    )
    body = models.TextField(
        blank=True,
        # Escaped: the admin renders help text as HTML, where this <b> made the rest of
        # the line, and every field below it, bold.
        help_text=escape(
            "Markdown. Raw HTML is not rendered: a tag such as <b> shows on the page "
            "as literal text (the publish checks flag it). Links must start with http://, "
            "https:// or mailto:; any other link (javascript:) shows as plain text."
        ),
    )
    tags = TaggableManager(blank=True)
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.DRAFT, db_index=True
    )
    # RESTRICT: a live version is not deleted on its own (it would leave the page, its
    # listing and the counts behind without a withdrawal); only with its entry.
    live_version = models.OneToOneField(
        "EntryVersion",
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        editable=False,
        related_name="live_for",
        help_text="The version readers see. Empty while the entry is unpublished.",
    )
    has_unpublished_changes = models.BooleanField(default=True, editable=False)
    first_published_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_published_at = models.DateTimeField(null=True, blank=True, editable=False)
    significant_change_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="Last material change; feeds, sitemap and structured data date from it.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )

    objects = EntryQuerySet.as_manager()
    # The names EntryName holds for this entry, as last read or written (None: unknown).
    _stored_names: set[str] | None = None

    class Meta:
        ordering = ["term"]
        verbose_name_plural = "entries"
        indexes = [
            # The feed: the newest significant changes among published entries, read
            # from the top, so only the rows the feed shows are ever fetched.
            models.Index(
                models.F("significant_change_at").desc(),
                "term",
                name="entry_published_recent_idx",
                condition=Q(live_version__isnull=False),
            ),
            # The dashboard's lists of live entries: those not published for a long time
            # (oldest first), and those with changes not yet published. Each read every
            # entry's row without one (15 ms at 10,000 entries; these read only theirs).
            models.Index(
                fields=["last_published_at"],
                name="entry_live_published_at_idx",
                condition=Q(live_version__isnull=False),
            ),
            models.Index(
                fields=["term"],
                name="entry_live_unpublished_idx",
                condition=Q(live_version__isnull=False, has_unpublished_changes=True),
            ),
        ]

    def __str__(self) -> str:
        return self.term

    def save(self, *args: Any, **kwargs: Any) -> None:
        adding = self._state.adding
        update_fields = kwargs.get("update_fields")
        if not adding and update_fields is None:
            # A save of the working copy never writes what the workflow and publishing set
            # (`PUBLISHING_STATE`): a copy read before a withdrawal and saved after it
            # cannot bring the page back, and a deleted entry's copy is not inserted again
            # (a save naming its fields updates a row or fails).
            update_fields = kwargs["update_fields"] = [
                field.name
                for field in self._meta.concrete_fields
                if not field.primary_key and field.name not in PUBLISHING_STATE
            ]
        with transaction.atomic(savepoint=False):  # the entry and its names, or neither
            super().save(*args, **kwargs)
            if update_fields is not None and not {"term", "aliases"} & set(update_fields):
                return
            if self.name_keys() != self._stored_names:
                EntryName.write([self], fresh=adding)

    def get_absolute_url(self) -> str:
        return reverse("glossary:entry", args=[self.slug])

    @property
    def is_live(self) -> bool:
        return self.live_version_id is not None

    def status_label(self) -> str:
        """The entry's state as the desk names it everywhere (change page, lists, dashboard).

        A live entry being edited is a draft in the workflow, but readers still see its
        live version: the label says so instead of reading as if nothing were public.
        """
        status = Entry.Status(self.status)
        if self.is_live and status in self.LIVE_EDIT_LABELS:
            return self.LIVE_EDIT_LABELS[status]
        return str(status.label)

    def alias_list(self) -> list[str]:
        return [line.strip() for line in self.aliases.splitlines() if line.strip()]

    def name_keys(self) -> set[str]:
        return name_keys(self.term, self.aliases)

    @classmethod
    def from_db(
        cls, db: str | None, field_names: Collection[str], values: Collection[Any], **kwargs: Any
    ) -> Self:
        entry = super().from_db(db, field_names, values, **kwargs)
        # What EntryName holds for this entry, so a save that leaves the names alone
        # writes none of them (deferred fields: unknown, written on save).
        fields = entry.__dict__
        if "term" in fields and "aliases" in fields:
            entry._stored_names = name_keys(entry.term, entry.aliases)
        return entry

    def refresh_from_db(
        self,
        using: str | None = None,
        fields: Iterable[str] | None = None,
        from_queryset: models.QuerySet[Entry] | None = None,
    ) -> None:
        read = None if fields is None else set(fields)
        super().refresh_from_db(using=using, fields=read, from_queryset=from_queryset)
        # As read now, like from_db; a part of the names reread leaves them unknown.
        if read is None or {"term", "aliases"} <= read:
            self._stored_names = name_keys(self.term, self.aliases)
        elif {"term", "aliases"} & read:
            self._stored_names = None

    def clean(self) -> None:
        if not self.slug and self.term:
            self.slug = slugify(self.term)[:200]
        # Addresses are lowercase: /glossary/Interconnect/ redirects to /glossary/interconnect/.
        self.slug = self.slug.lower()


class EntryName(models.Model):
    """One of an entry's names (its term or an alias) as `name_keys` gives it: the
    duplicate-name publish check looks its names up here instead of reading every entry.

    Written whenever an entry's term or aliases are saved (Entry.save); code that
    bulk-creates entries calls `EntryName.write` for them.
    """

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="name_rows")
    name = models.TextField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entry", "name"], name="entryname_unique"),
        ]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def write(cls, entries: list[Entry], *, fresh: bool = False) -> None:
        """Make the rows of `entries` match their terms and aliases: two statements, or
        one for `fresh` entries (just created, so they have no rows yet)."""
        if not fresh:
            EntryName.objects.filter(entry__in=[e.pk for e in entries]).delete()
        EntryName.objects.bulk_create(
            EntryName(entry=entry, name=name)
            for entry in entries
            for name in sorted(entry.name_keys())
        )
        for entry in entries:
            entry._stored_names = entry.name_keys()


class EntryPart(models.Model):
    """Common fields of the rows an entry is made of."""

    order = models.PositiveIntegerField(default=0, db_index=True)

    class Meta:
        abstract = True
        ordering = ["order", "pk"]


class EpisodeReference(EntryPart):
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="references")
    episode = models.ForeignKey(Episode, on_delete=models.PROTECT, related_name="references")
    at = TimestampField("at", help_text="Where in the episode, e.g. 25:38.")
    speaker = models.ForeignKey(
        Person, on_delete=models.PROTECT, null=True, blank=True, related_name="references"
    )
    text = models.TextField(
        help_text="What is said there, written to follow “In episode 44 at 25:38, ”. "
        "E.g. “Cisco’s Jeetu Patel describes …”."
    )

    class Meta(EntryPart.Meta):
        verbose_name = "episode reference"

    def __str__(self) -> str:
        return f"Episode {self.episode.number} at {format_timestamp(self.at)}"

    def clean(self) -> None:
        if self.episode_id:
            self.episode.check_offset(self.at, "at")


class Quote(EntryPart):
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="quotes")
    episode = models.ForeignKey(Episode, on_delete=models.PROTECT, related_name="quotes")
    speaker = models.ForeignKey(Person, on_delete=models.PROTECT, related_name="quotes")
    start = TimestampField(help_text="Where the quote starts, e.g. 25:38.")
    end = TimestampField(
        null=True,
        blank=True,
        help_text="Optional: where the quote ends, as minutes:seconds (26:10) or "
        "hours:minutes:seconds. Leave empty if not known.",
    )
    text = models.TextField(help_text="The quote as published.")
    verbatim = models.TextField(
        "verbatim transcript",
        blank=True,
        help_text="The transcript text exactly as spoken, kept so any edit can be audited.",
    )
    lightly_edited = models.BooleanField(
        default=False,
        help_text="Filler words removed. The page then says so under the quotes.",
    )

    class Meta(EntryPart.Meta):
        constraints = [
            models.CheckConstraint(
                condition=Q(end__isnull=True) | Q(end__gte=models.F("start")),
                name="quote_end_after_start",
            )
        ]

    def __str__(self) -> str:
        return f"“{self.text[:60]}”"

    def clean(self) -> None:
        if self.episode_id:
            self.episode.check_offset(self.start, "start")
            self.episode.check_offset(self.end, "end")
        if self.end is not None and self.start is not None and self.end < self.start:
            raise ValidationError({"end": "The quote cannot end before it starts."})


class Disclosure(EntryPart):
    class Kind(models.TextChoices):
        SPONSORSHIP = "sponsorship", "Sponsorship"
        COMMERCIAL_INTEREST = "commercial_interest", "Commercial interest"
        PARTNERSHIP = "partnership", "Partnership"
        OTHER = "other", "Other"

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="disclosures")
    kind = models.CharField(max_length=30, choices=Kind.choices)
    reference = models.ForeignKey(
        EpisodeReference,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="disclosures",
        help_text="The claim this qualifies; the disclosure is shown right after it.",
    )
    episode = models.ForeignKey(
        Episode, on_delete=models.PROTECT, null=True, blank=True, related_name="disclosures"
    )
    organisation = models.ForeignKey(
        Organisation, on_delete=models.PROTECT, null=True, blank=True, related_name="disclosures"
    )
    person = models.ForeignKey(
        Person, on_delete=models.PROTECT, null=True, blank=True, related_name="disclosures"
    )
    at = TimestampField(
        null=True, blank=True, help_text="Where in the episode it is said, shown as (31:57)."
    )
    text = models.TextField(
        blank=True,
        help_text="The disclosure as readers see it. Leave empty on a sponsorship to "
        "use the sentence made from the episode's data.",
    )

    class Meta(EntryPart.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.text[:60]}"

    def clean(self) -> None:
        if self.at is not None and not self.episode_id:
            raise ValidationError({"episode": "A timestamp needs the episode it belongs to."})
        if self.episode is not None:
            self.episode.check_offset(self.at, "at")
        if not self.text.strip() and not (self.kind == self.Kind.SPONSORSHIP and self.episode_id):
            raise ValidationError(
                {"text": "Write the disclosure, or choose a sponsored episode to generate it."}
            )


class SeeAlso(EntryPart):
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="see_also")
    target = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="see_also_from")
    link_text = SingleLineCharField(
        max_length=200, blank=True, help_text="Text of the link; defaults to the term."
    )
    note = SingleLineCharField(
        max_length=300,
        blank=True,
        help_text="Why to read it, e.g. “the other main limit on moving data to AI chips”.",
    )

    class Meta(EntryPart.Meta):
        verbose_name = "see-also link"
        constraints = [
            models.UniqueConstraint(fields=["entry", "target"], name="seealso_unique_target"),
            models.CheckConstraint(condition=~Q(entry=models.F("target")), name="seealso_not_self"),
        ]

    def __str__(self) -> str:
        return f"See also {self.target}"

    def clean(self) -> None:
        if self.entry_id and self.entry_id == self.target_id:
            raise ValidationError({"target": "An entry cannot point to itself."})
