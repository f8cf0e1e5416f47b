"""Shows, their episodes and transcripts, and the people and organisations heard in them
(appearances, sponsorships): the desk's shared reference data, which readers see only as
a published version states it (glossary.models.public_records).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import DomainNameValidator
from django.db import models
from django.db.models import Q
from django.http.request import validate_host
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from glossary.fields import SingleLineCharField, TimestampField, WebURLField
from glossary.timestamps import format_timestamp


class DeepLinkStyle(models.TextChoices):
    MEDIA_FRAGMENT = "fragment", "W3C media fragment (#t=1538)"
    YOUTUBE = "youtube", "YouTube time parameter (t=1538s)"
    QUERY = "query", "Query parameter (?t=1538)"
    NONE = "none", "No time parameter (link to the episode as pasted)"


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

    def moments_past(self, seconds: int) -> list[str]:
        """The entries' quotes, references and disclosures in this episode that fall after
        `seconds`, each named with its time and its entry ("the quote “…” at 55:00 in
        “Interconnect”"): what a duration of `seconds` would leave past the end."""
        if self._state.adding:
            return []
        # Through this episode's relations: its module does not import the entry parts, which
        # import it.
        quotes = self.quotes.filter(Q(start__gt=seconds) | Q(end__gt=seconds))
        named = [
            f"the quote {q} at {format_timestamp(q.start)}"
            + (f"–{format_timestamp(q.end)}" if q.end is not None else "")
            + f" in “{q.entry.term}”"
            for q in quotes.select_related("entry").order_by("start", "pk")
        ]
        named += [
            f"the reference at {format_timestamp(r.at)} in “{r.entry.term}”"
            for r in self.references.filter(at__gt=seconds)
            .select_related("entry")
            .order_by("at", "pk")
        ]
        named += [
            f"the disclosure at {format_timestamp(d.at)} in “{d.entry.term}”"
            for d in self.disclosures.filter(at__gt=seconds)
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
