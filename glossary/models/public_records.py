"""What readers see of shared reference data (a show, episode, person, organisation,
source or tag), as the latest published version states it, the links between those
records, and who on the desk edited a shared record (an author of what carries the edit
to readers).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.formats import date_format

from glossary.models.versions import EntryVersion


class PublicRecord(models.Model):
    """What readers see of one show, episode, person, organisation, source or tag.

    Reference data is shared by many entries and edited by anyone on the desk;
    readers never see those rows. They see this record: the facts about the
    object in the most recently published version that names it (but for an
    episode, a correction stands when the entry it was published with is withdrawn:
    glossary.records.STANDING),
    kept by glossary.publishing whenever a version goes live or is withdrawn. A
    record exists exactly while some live version names the object, so it is also
    the visibility rule for the episode, person, organisation and tag pages.
    """

    class Kind(models.TextChoices):
        SHOW = "show", "Show"
        EPISODE = "episode", "Episode"
        PERSON = "person", "Person"
        ORGANISATION = "organisation", "Organisation"
        SOURCE = "source", "Source"
        TAG = "tag", "Tag"

    kind = models.CharField(max_length=12, choices=Kind.choices)
    object_id = models.PositiveBigIntegerField()
    # The public address: a person's, organisation's or tag's slug; an episode's
    # "show-slug/season/number".
    slug = models.CharField(max_length=300, blank=True)
    name = models.CharField(max_length=300)
    # How public lists order records of this kind.
    sort_key = models.CharField(max_length=400)
    data = models.JSONField(help_text="The facts, as the document of `version` states them.")
    # Empty once that version is deleted with its entry: the facts it published stand.
    version = models.ForeignKey(
        EntryVersion,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="public_records",
        help_text="The published version whose facts these are.",
    )
    published_at = models.DateTimeField(help_text="When `version` was published.")

    class Meta:
        ordering = ["kind", "sort_key"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "object_id"], name="publicrecord_unique_object")
        ]
        indexes = [
            # Public pages look a person, organisation, tag or episode up by its address.
            models.Index(fields=["kind", "slug"], name="publicrecord_address_idx"),
            # Public lists page through one kind in order.
            models.Index(fields=["kind", "sort_key"], name="publicrecord_list_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.name}"


class RecordEdit(models.Model):
    """Someone on the desk wrote part of a shared record (a show, episode, person,
    organisation, source or tag): added it, or changed it.

    Readers see a shared record only as a published version states it, and whoever
    edited it is an author of every change that carries its edit to readers
    (editorial.workflow.records_edited_in_change): the entries showing it when edited
    get versions credited to them (glossary.publishing.record_reference_change), and an
    entry that takes it up later (a new citation, a rollback) counts them too, until
    readers see the record as it now is.
    """

    kind = models.CharField(max_length=12, choices=PublicRecord.Kind.choices)
    object_id = models.PositiveBigIntegerField()
    # Kept with the account, as a version's author is (EntryVersion.created_by).
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    edited_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            # editorial.workflow.records_edited_in_change: what one person edited.
            models.Index(fields=["edited_by", "kind", "object_id"], name="recordedit_by_idx")
        ]

    def __str__(self) -> str:
        # Named on the desk's pages (an account's delete page lists it): in the zone the
        # page shows times in, as every time there is written.
        when = date_format(timezone.localtime(self.edited_at), "DATETIME_FORMAT")
        return f"{self.kind} {self.object_id} edited by {self.edited_by_id} at {when}"


class PublicRecordLink(models.Model):
    """A person or organisation an episode's public record names (guest, employer, sponsor).

    Kept with the records (glossary.records.refresh_links), so a person's or an
    organisation's page reads its first episodes in list order as a range of one
    index, however many episodes there are, instead of reading every episode's record;
    and each link carries what that page shows of its episode, so the page never
    reads the episode's whole record either.
    """

    record = models.ForeignKey(PublicRecord, on_delete=models.CASCADE, related_name="links")
    kind = models.CharField(max_length=12, choices=PublicRecord.Kind.choices)
    object_id = models.PositiveBigIntegerField()
    sort_key = models.CharField(
        max_length=400, default="", help_text="The episode record's sort key, copied with it."
    )
    facts = models.JSONField(
        default=dict,
        help_text="What the named person's or organisation's page shows of this episode, "
        "copied from the episode record with the link (glossary.records.link_facts).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["record", "kind", "object_id"], name="publicrecordlink_unique"
            )
        ]
        indexes = [
            # An object's episodes in list order, and their count, from the index alone.
            models.Index(
                fields=["kind", "object_id", "sort_key", "record"],
                name="publicrecordlink_order_idx",
            )
        ]

    def __str__(self) -> str:
        return f"{self.record} names {self.kind} {self.object_id}"
