"""The glossary's content: shows and episodes, people, entries and what they cite.

An `Entry` row is the editors' working copy; readers only ever see the
`EntryVersion` its `live_version` points to (see docs/architecture.md).
"""

from __future__ import annotations

import datetime
from collections.abc import Collection, Iterable
from typing import Any, ClassVar, Self
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.core.exceptions import ValidationError
from django.core.validators import DomainNameValidator
from django.db import models, transaction
from django.db.models import Q
from django.http.request import validate_host
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import escape
from django.utils.text import slugify
from taggit.managers import TaggableManager
from taggit.models import Tag

from glossary.fields import SingleLineCharField, TimestampField, WebURLField
from glossary.timestamps import format_timestamp


class DeepLinkStyle(models.TextChoices):
    MEDIA_FRAGMENT = "fragment", "W3C media fragment (#t=1538)"
    YOUTUBE = "youtube", "YouTube time parameter (t=1538s)"
    QUERY = "query", "Query parameter (?t=1538)"
    NONE = "none", "No time parameter (link to the episode as pasted)"


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


def deep_link(url: str, style: str, seconds: int | None) -> str:
    """`url` opened at `seconds`: #t= (W3C media fragment), YouTube's t=…s, or ?t=."""
    if not url or seconds is None:
        return url
    if style == DeepLinkStyle.MEDIA_FRAGMENT:
        return f"{url.split('#', 1)[0]}#t={seconds}"
    if style in (DeepLinkStyle.YOUTUBE, DeepLinkStyle.QUERY):
        suffix = "s" if style == DeepLinkStyle.YOUTUBE else ""
        sep = "&" if "?" in url else "?"
        return f"{url}{sep}t={seconds}{suffix}"
    return url


_host_name = DomainNameValidator(
    accept_idna=False, message="Enter a host name such as glossary.example-show.com."
)


def validate_public_host(value: str) -> None:
    """A show's own host: a bare lowercase host name this server answers for, not the
    network's own."""
    if "://" in value or "/" in value or ":" in value:
        raise ValidationError(
            "Enter the host name alone, as in glossary.example-show.com: no scheme, port or path."
        )
    if value != value.lower():
        raise ValidationError("Write the host name in lowercase.")
    _host_name(value)
    if value == urlsplit(settings.SITE_URL).hostname:
        raise ValidationError("That is the network's own host (SITE_URL); pick another.")
    if not validate_host(value, settings.SHOW_PUBLIC_HOSTS):
        raise ValidationError(
            f"This server does not answer for {value} yet: add it to SHOW_PUBLIC_HOSTS "
            "(docs/operations.md), then set it here."
        )


class Show(models.Model):
    name = SingleLineCharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    website = WebURLField(blank=True)
    deep_link_style = models.CharField(
        max_length=10,
        choices=DeepLinkStyle.choices,
        default=DeepLinkStyle.MEDIA_FRAGMENT,
        help_text="How a timestamp is added to an episode's URL so a link opens at that second. "
        "Use “none” for players without a documented time parameter.",
    )
    feed_url = WebURLField(
        "feed URL",
        blank=True,
        help_text="The show's RSS feed. “Import/refresh from feed” and the scheduled refresh "
        "read its episodes from here; leave empty to turn both off for this show.",
    )
    feed_url_set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="feed URL set by",
        null=True,
        blank=True,
        editable=False,
        # Kept with the account, as an author is (EntryVersion.created_by).
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Who last set the feed URL. The scheduled refresh records its changes in "
        "their name: whoever chose the feed cannot also approve what it brings.",
    )
    feed_refreshed_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When the feed was last imported."
    )
    feed_error = models.TextField(
        blank=True,
        editable=False,
        help_text="Why the last feed refresh failed; empty if it worked.",
    )
    feed_warnings = models.TextField(
        blank=True,
        editable=False,
        help_text="What the last import of the feed left out (a bad season, episode number, "
        "duration or chapter), one line each, naming the item and its line in the feed; "
        "empty when it left out nothing.",
    )
    public_host = models.CharField(
        "public host",
        max_length=253,
        unique=True,
        null=True,
        blank=True,
        validators=[validate_public_host],
        help_text="A host name of its own for the show's public site, as in "
        "glossary.example-show.com (no scheme, no path). Requests to it serve only this "
        "show's published entries; point the host's DNS at this server and add it to "
        "SHOW_PUBLIC_HOSTS first (docs/operations.md). Leave empty to serve the show at "
        "/shows/ and its slug only.",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Person(models.Model):
    name = SingleLineCharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    url = WebURLField("web page", blank=True)
    bio = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "people"

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("glossary:person", args=[self.slug])


class Organisation(models.Model):
    name = SingleLineCharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    url = WebURLField("web site", blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("glossary:organisation", args=[self.slug])


class Episode(models.Model):
    show = models.ForeignKey(Show, on_delete=models.PROTECT, related_name="episodes")
    season = models.PositiveSmallIntegerField(default=1)
    number = models.PositiveIntegerField(help_text="The episode number as the show announces it.")
    title = SingleLineCharField(max_length=300)
    air_date = models.DateField(null=True, blank=True)
    duration = TimestampField(
        null=True,
        blank=True,
        help_text="Length of the episode, e.g. 58:12 or 1:02:03. Timestamps past it are refused.",
    )
    url = WebURLField(
        "episode URL",
        blank=True,
        help_text="The page or audio URL that timestamp links open; the show's deep-link "
        "style adds the time to it.",
    )
    audio_url = WebURLField(
        "audio URL",
        blank=True,
        help_text="The episode's audio file (the feed's enclosure). Timestamps on the public "
        "site play it from that second (audio.mp3#t=1538).",
    )
    guid = models.CharField(
        "feed guid",
        max_length=500,
        blank=True,
        # Escaped: the admin renders help text as HTML, where <guid> vanished as a tag.
        help_text=escape(
            "The episode's <guid> in the show's feed: how a feed refresh finds it again. "
            "Unique within the show; empty for episodes not in a feed."
        ),
    )
    transcript_url = WebURLField(
        "transcript URL", blank=True, help_text="The feed's podcast:transcript for this episode."
    )
    transcript_type = models.CharField(
        max_length=100,
        blank=True,
        help_text="The transcript's media type as the feed gives it, e.g. text/vtt.",
    )
    chapters_url = WebURLField(
        "chapters URL", blank=True, help_text="The feed's podcast:chapters for this episode."
    )
    chapters = models.JSONField(
        default=list,
        blank=True,
        editable=False,
        help_text="The chapters the show's feed gives inside the episode (Podlove Simple "
        "Chapters), as JSON Chapters: startTime in seconds, title, url, img. Each import "
        "replaces them; a feed that stops giving them leaves them.",
    )
    feed_values = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="What the show's feed last said for each field it fills: a field that "
        "differs from it was corrected by an editor and is never overwritten silently.",
    )
    feed_kept = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="Feed values an editor chose not to take, per field; a later, different "
        "feed value asks again.",
    )

    class Meta:
        ordering = ["show", "-season", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["show", "season", "number"], name="episode_unique_per_show_season"
            ),
            models.UniqueConstraint(
                fields=["show", "guid"],
                condition=~Q(guid=""),
                name="episode_guid_unique_per_show",
            ),
        ]

    def __str__(self) -> str:
        return f"Episode {self.number}: {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("glossary:episode", args=[self.show.slug, self.season, self.number])

    def link_at(self, seconds: int | None) -> str:
        """The URL that opens this episode at `seconds`, in the show's deep-link style."""
        return deep_link(self.url or self.audio_url, self.show.deep_link_style, seconds)

    def moments_past(self, seconds: int) -> list[str]:
        """The entries' quotes, references and disclosures in this episode that fall after
        `seconds`, each named with its time and its entry ("the quote “…” at 55:00 in
        “Interconnect”"): what a duration of `seconds` would leave past the end."""
        if self._state.adding:
            return []
        after = Q(episode=self)
        quotes = Quote.objects.filter(after & (Q(start__gt=seconds) | Q(end__gt=seconds)))
        named = [
            f"the quote {q} at {format_timestamp(q.start)}"
            + (f"–{format_timestamp(q.end)}" if q.end is not None else "")
            + f" in “{q.entry.term}”"
            for q in quotes.select_related("entry").order_by("start", "pk")
        ]
        named += [
            f"the reference at {format_timestamp(r.at)} in “{r.entry.term}”"
            for r in EpisodeReference.objects.filter(after & Q(at__gt=seconds))
            .select_related("entry")
            .order_by("at", "pk")
        ]
        named += [
            f"the disclosure at {format_timestamp(d.at)} in “{d.entry.term}”"
            for d in Disclosure.objects.filter(after & Q(at__gt=seconds))
            .select_related("entry")
            .order_by("at", "pk")
            if d.at is not None
        ]
        return named

    def check_offset(self, seconds: int | None, field: str) -> None:
        """Raise a field error when `seconds` is past the end of this episode."""
        if seconds is not None and self.duration is not None and seconds > self.duration:
            raise ValidationError(
                {
                    field: f"{format_timestamp(seconds)} is past the end of episode "
                    f"{self.number}, which runs {format_timestamp(self.duration)}."
                }
            )


class Transcript(models.Model):
    """What was said in an episode, as imported from a transcript file (glossary.transcripts).

    One per episode; importing again replaces it whole (glossary.episode_transcripts).
    Desk data: readers see a passage of it only as a published version froze it.
    """

    class Format(models.TextChoices):
        WEBVTT = "vtt", "WebVTT"
        SRT = "srt", "SRT"
        JSON = "json", "Podcasting 2.0 JSON"

    episode = models.OneToOneField(Episode, on_delete=models.CASCADE, related_name="transcript")
    format = models.CharField(max_length=4, choices=Format.choices)
    origin = models.CharField(
        "imported from",
        max_length=2000,
        help_text="The file name or URL the transcript was read from.",
    )
    imported_at = models.DateTimeField(default=timezone.now)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    segment_count = models.PositiveIntegerField(default=0)
    warnings = models.JSONField(
        "import warnings",
        default=list,
        blank=True,
        help_text="What the import skipped or guessed, each naming its line (a cue whose "
        "timing cannot be read, text outside any cue, the file's encoding, cues past the "
        "episode's end). Importing again replaces them.",
    )

    def __str__(self) -> str:
        return f"Transcript of {self.episode}"


class TranscriptSegment(models.Model):
    """A stretch of speech: seconds from the episode's start, the speaker's label, the words."""

    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="segments")
    order = models.PositiveIntegerField()
    start = models.FloatField()
    end = models.FloatField()
    speaker = models.CharField(max_length=200, blank=True)
    text = models.TextField()

    class Meta:
        ordering = ["transcript", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["transcript", "order"], name="transcriptsegment_unique_order"
            )
        ]

    def __str__(self) -> str:
        return f"{format_timestamp(int(self.start))} {self.speaker}: {self.text[:60]}"


class Sponsorship(models.Model):
    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="sponsorships")
    organisation = models.ForeignKey(
        Organisation, on_delete=models.PROTECT, related_name="sponsorships"
    )
    read_at = TimestampField(
        "sponsor read at", null=True, blank=True, help_text="Where the sponsor read starts."
    )

    class Meta:
        ordering = ["episode", "read_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["episode", "organisation"], name="sponsorship_unique_per_episode"
            )
        ]

    def __str__(self) -> str:
        return f"{self.organisation} sponsors {self.episode}"

    def clean(self) -> None:
        if self.episode_id:
            self.episode.check_offset(self.read_at, "read_at")


class Appearance(models.Model):
    class Role(models.TextChoices):
        HOST = "host", "Host"
        GUEST = "guest", "Guest"

    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="appearances")
    person = models.ForeignKey(Person, on_delete=models.PROTECT, related_name="appearances")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.GUEST)
    affiliation = models.ForeignKey(
        Organisation,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="appearances",
        help_text="Who the person worked for when the episode was recorded.",
    )
    title = SingleLineCharField("job title", max_length=200, blank=True)

    class Meta:
        ordering = ["episode", "role", "person__name"]
        constraints = [
            models.UniqueConstraint(
                fields=["episode", "person"], name="appearance_unique_per_episode"
            )
        ]

    def __str__(self) -> str:
        return f"{self.person} ({self.get_role_display()}) on {self.episode}"


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

    A reader is served it only while the rows the page reads, read again by the same
    statement, have that fingerprint (glossary.selectors); otherwise the page is
    rendered from the rows. So a withdrawn entry, a corrected name or new code never
    reaches a reader through a stored page: the rows changed, and the page is not used.
    """

    kind = models.CharField(max_length=12, choices=PublicRecord.Kind.choices)
    slug = models.CharField(max_length=200)
    fingerprint = models.CharField(
        max_length=64,
        help_text="SHA-256 of the rendering code, the page's address and every row the "
        "page was rendered from, as the page's statement reads them.",
    )
    parts = models.TextField(help_text="The page's values, as its shell's slots (JSON).")

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
