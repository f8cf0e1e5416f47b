"""What public pages read instead of assembling entries, kept as versions go live and are
withdrawn: the live listing (A–Z rows, the objects each names, the counts), redirects to
live entries, stored first pages, and the generation token the page cache checks.
"""

from __future__ import annotations

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils import timezone
from django.utils.html import escape

from glossary.models.entries import Entry
from glossary.models.public_records import PublicRecord
from glossary.models.versions import EntryVersion


class Listing(models.Model):
    """What the public lists show of one live version, kept so a list page reads an index.

    A row exists while its version is live: created when the version goes live
    (glossary.listing_index, with the search index), deleted when it is withdrawn or
    replaced. Its parts are rendered with the version's page (glossary.listing_rows,
    where publishing renders live pages), from the published document and the public
    records, never from the working copy. On PostgreSQL the database holds the
    rule that a row is a live version's: a deferred foreign key from `version` to
    `Entry.live_version` (migration 0023) refuses to commit a transaction leaving a
    row behind. On SQLite each row is checked live as it is read (glossary.selectors).
    """

    version = models.OneToOneField(
        EntryVersion, on_delete=models.CASCADE, primary_key=True, related_name="listing"
    )
    # A–Z order as the index shows it: "#" (digits and symbols) first, then A to Z,
    # each case-insensitive.
    initial = models.PositiveSmallIntegerField(help_text="0 for “#”, 1–26 for A–Z.")
    sort_key = models.CharField(max_length=200, help_text="The term in lowercase.")
    term = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)
    names = models.TextField(help_text="The term and its aliases, one a line.")
    row_html = models.TextField(blank=True, help_text="Its row in the A–Z index, a tag, search.")
    feed_entry = models.TextField(blank=True, help_text=escape("Its Atom <entry>."))
    sitemap_url = models.TextField(blank=True, help_text=escape("Its sitemap <url>."))
    api_row = models.TextField(blank=True, help_text="Its item in the API's entry list (JSON).")
    show = models.ForeignKey(
        "Show",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
        help_text="Its version's show (EntryVersion.show), written when it goes live.",
    )
    # PostgreSQL's search index (glossary.search), each vector with a GIN index that
    # migration 0016 makes on PostgreSQL only. Cumulative by weight, so "every word is in
    # the summary or above" is one indexed condition: A term and aliases, B summary,
    # C body and episode references, D quotes.
    words_a = SearchVectorField(null=True, editable=False)
    words_ab = SearchVectorField(null=True, editable=False)
    words_abc = SearchVectorField(null=True, editable=False)
    words_abcd = SearchVectorField(null=True, editable=False)

    class Meta:
        indexes = [
            # The A–Z index, a letter's page, the sitemap, the API's entry list and each
            # tier of search read a page in this order from here, never sorting every entry.
            models.Index(
                fields=["initial", "sort_key", "term", "version"], name="listing_a_to_z_idx"
            ),
            # A show's site (glossary.show_site) reads its pages in the same order.
            models.Index(
                fields=["show", "initial", "sort_key", "term", "version"],
                name="listing_show_a_to_z_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"listing of {self.term}"


class ListingName(models.Model):
    """A person, episode, organisation or tag a listed version names, in A–Z order.

    So the page of an object reads one page of the entries naming it from an index
    (kind, object, A–Z), however many entries name it, each with what that page shows of
    it (`part`, rendered with the version's page).
    """

    # The key (listing, kind, object) is the table's only unique index: no id to keep.
    pk = models.CompositePrimaryKey("listing_id", "kind", "object_id")
    listing = models.ForeignKey(
        Listing, on_delete=models.CASCADE, related_name="names_of", db_index=False
    )
    kind = models.CharField(max_length=12, choices=PublicRecord.Kind.choices)
    object_id = models.PositiveBigIntegerField()
    initial = models.PositiveSmallIntegerField()
    sort_key = models.CharField(max_length=200)
    term = models.CharField(max_length=200)
    link = models.TextField(
        blank=True,
        help_text="The version as the object's page lists it, a link in a list item "
        "(glossary.listing_rows): the page reads it as it is, not the listing's term and slug.",
    )
    part = models.TextField(
        blank=True,
        help_text="What the object's page shows of the version (JSON; glossary.listing_rows): "
        "a person's quotes, an episode's moments, an organisation's disclosures.",
    )

    class Meta:
        indexes = [
            # A person's, episode's, organisation's or tag's entries, a page at a time.
            models.Index(
                fields=["kind", "object_id", "initial", "sort_key", "term", "listing"],
                name="listingname_object_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.term} names {self.kind} {self.object_id}"


class StoredPage(models.Model):
    """An episode's, person's or organisation's first page as rendered after the publish that
    last changed it (glossary.stored_pages.store_first_pages), with the fingerprint of
    every row it was rendered from.

    A reader is served it only while the rows the page reads are the rows it was rendered
    from: no change to their tables has committed since the snapshot they were read in,
    or, read again by the same statement, they have that fingerprint
    (glossary.page_fingerprints); otherwise the page is rendered from the rows. So a
    withdrawn entry, a corrected name or new code never reaches a reader through a stored
    page: the rows changed, and the page is not used.
    """

    kind = models.CharField(max_length=12, choices=PublicRecord.Kind.choices)
    slug = models.CharField(max_length=200)
    fingerprint = models.CharField(
        max_length=64,
        help_text="SHA-256 of the rendering code, the page's address and every row the "
        "page was rendered from, as the page's statement reads them.",
    )
    parts = models.TextField(help_text="The page's values, as its shell's slots (JSON).")
    # Without reading the rows again (glossary.page_fingerprints): what else the page was
    # rendered from, and the PostgreSQL snapshot its rows were read in. While no
    # transaction that changed a table the page reads has committed since that snapshot
    # (glossary_public_change, filled by the tables' triggers, migration 0041), the rows
    # are those of the snapshot and the page is served as stored.
    stamp = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="SHA-256 of the rendering code and the page's address.",
    )
    snapshot = models.TextField(
        blank=True,
        default="",
        help_text="The snapshot (pg_snapshot) the page's rows were read in; empty: none "
        "known, so its rows are read again and fingerprinted for every reader.",
    )
    snapshot_writer = models.TextField(
        blank=True,
        default="",
        help_text="The transaction that read the rows, when it had written anything: its "
        "own later changes are not in the snapshot's terms.",
    )
    snapshot_server = models.TextField(
        blank=True,
        default="",
        help_text="When the database server that took the snapshot started: a snapshot "
        "from another server (a restored dump) or before a restart is not trusted.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "slug"], name="storedpage_address_unique")
        ]

    def __str__(self) -> str:
        return f"stored page of {self.kind} {self.slug}"


class ListingCount(models.Model):
    """How many listed versions start with a letter, or name an object: kept, not counted.

    Counting the entries of a letter or of a host named by every entry would read
    them all on every request; these change by one as a version is listed or
    withdrawn (glossary.listing_index).
    """

    TOTAL = "total"
    LETTER = "letter"

    pk = models.CompositePrimaryKey("kind", "object_id")
    kind = models.CharField(
        max_length=12, help_text="“total”, “letter” or the kind of a public record."
    )
    object_id = models.PositiveBigIntegerField(help_text="0, the letter (0–26) or the object.")
    live = models.IntegerField(default=0, help_text="How many listed versions.")

    def __str__(self) -> str:
        return f"{self.kind} {self.object_id}: {self.live}"


class SiteGeneration(models.Model):
    """A token replaced in the same transaction as every change readers can see.

    The public page cache tags pages and ETags with it, so the database, not the
    cache, decides what is current: a cache restarted from an old snapshot cannot
    serve a page withdrawn since (glossary.cache). A random token rather than a
    counter, so a database restored from a backup cannot repeat an old value.
    """

    token = models.CharField(max_length=32)
    changed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"generation {self.token}"


class EntryRedirect(models.Model):
    """A public address that leads to a live entry: an old slug (301) or an alias."""

    class Kind(models.TextChoices):
        OLD_SLUG = "old_slug", "Former address"
        ALIAS = "alias", "Alias"

    slug = models.SlugField(max_length=200)
    name = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="redirects")

    class Meta:
        ordering = ["slug"]
        constraints = [
            models.UniqueConstraint(
                fields=["slug", "entry", "kind"], name="entryredirect_unique_per_entry"
            )
        ]
        indexes = [
            # glossary.views.entry: the redirect lookup for an unknown slug.
            models.Index(fields=["slug"], name="entryredirect_slug_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.slug} → {self.entry}"
