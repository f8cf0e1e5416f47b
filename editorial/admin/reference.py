"""Reference data in the admin: shows, episodes (with sponsors and appearances), people,
organisations and tags.

Anyone on the desk may correct reference data, and no correction reaches readers
by itself: readers see these objects as the last publish approved them
(glossary.records). Saving one records a new version of every entry whose page
it would change, credited to whoever saved (publishing.record_reference_change);
the correction goes public when another editor publishes one of those entries.
Each page says what readers see now.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST
from taggit.models import Tag, TaggedItem

from editorial import newsroom, podcast_feed_import, transcripts
from editorial.admin.base import CheckedAutocompletes, DeskModelAdmin, ShowScoped
from editorial.models import ShowMembership
from editorial.permissions import Action, acting_user, can, user_shows
from glossary import episode_feed, publishing
from glossary.fields import SingleLineFormField, refuse_line_breaks
from glossary.models import (
    Appearance,
    Entry,
    Episode,
    PublicRecord,
    Show,
    Sponsorship,
    Transcript,
)
from glossary.timestamps import format_timestamp
from glossary.topics import published_address_holder
from glossary.transcript_imports import import_transcript
from glossary.transcripts.parse import TranscriptError, parse_transcript

# The warnings an import from the show list shows one by one; the rest are counted.
WARNINGS_SHOWN = 20


def tell_what_was_recorded(
    request: HttpRequest, versions: list[Any], what: str, credited: Any = None
) -> None:
    if not versions:
        messages.info(
            request, f"{what} No entry's page shows it, so no entry needed a new version."
        )
        return
    count = len({v.entry_id for v in versions})
    entries = f"{count} entr{'y' if count == 1 else 'ies'}"
    to = "you"
    if credited is not None and credited.pk != getattr(request.user, "pk", None):
        to = f"{credited.get_username()}, who set the show's feed URL"
    messages.warning(
        request,
        f"{what} Readers still see it as last published. {entries} showing it now have a "
        f"new version with this change, credited to {to}; it reaches readers when another "
        "editor publishes one of them.",
    )


class ReferenceAdmin(DeskModelAdmin[Any]):
    """Reference data whose changes are recorded in the entries that show it."""

    kind: str = ""
    readers_see_help = "What readers see now: the last published facts."
    # Form fields whose saving records its own versions (an episode's transcript upload).
    recorded_elsewhere: frozenset[str] = frozenset()

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [*super().get_readonly_fields(request, obj), "readers_see"]

    @admin.display(description="readers see")
    def readers_see(self, obj: Any) -> SafeString | str:
        if obj is None or obj.pk is None:
            return "Nothing yet: readers see it once an entry that shows it is published."
        record = PublicRecord.objects.filter(kind=self.kind, object_id=obj.pk).first()
        if record is None:
            return "Nothing: no published entry shows it."
        return format_html(
            "“{}”, as published {} (changes saved since reach readers when an entry showing "
            "them is published by someone who did not make them)",
            record.name,
            newsroom.format_date(newsroom.today(record.published_at)),
        )

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        obj = form.instance
        if not change:
            # New reference data: no entry shows it yet, and whoever wrote it is an author
            # of the change that first carries it to readers.
            publishing.note_record_edits(self.kind, [obj.pk], user=acting_user(request))
            return
        changed = set(form.changed_data) - self.recorded_elsewhere
        if not changed and not any(fs.has_changed() for fs in formsets):
            return
        what = f"{obj._meta.verbose_name.capitalize()} “{obj}” changed."
        versions = publishing.record_reference_change(
            self.kind, [obj.pk], user=acting_user(request), what=what
        )
        tell_what_was_recorded(request, versions, what)


class SponsorshipInline(CheckedAutocompletes, admin.TabularInline[Sponsorship, Episode]):
    model = Sponsorship
    extra = 0
    autocomplete_fields = ["organisation"]


class AppearanceInline(CheckedAutocompletes, admin.TabularInline[Appearance, Episode]):
    model = Appearance
    extra = 0
    autocomplete_fields = ["person", "affiliation"]


class ShowTeamInline(CheckedAutocompletes, admin.TabularInline[ShowMembership, Show]):
    """Who is on the show's team, in which role (shown to those who manage accounts)."""

    model = ShowMembership
    extra = 0
    fields = ["user", "role"]
    autocomplete_fields = ["user"]
    verbose_name = "team member"
    verbose_name_plural = "Team (people who work on this show only; docs/shows-and-teams.md)"


class ShowAdmin(ShowScoped, ReferenceAdmin):
    kind = PublicRecord.Kind.SHOW
    # A show member sees and changes only the shows whose team they are on.
    show_path = "pk"
    inlines = [ShowTeamInline]
    list_display = [
        "name",
        "slug",
        "public_host",
        "deep_link_style",
        "feed_url",
        "feed_refreshed_at",
    ]
    # Where the show's site is served is the installation's, not a fact any entry shows:
    # setting it records no version (docs/show-sites.md).
    recorded_elsewhere = frozenset({"public_host"})
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}
    actions = ["import_from_feed"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [
            *super().get_readonly_fields(request, obj),
            "feed_url_set_by",
            "feed_refreshed_at",
            "feed_error",
            "feed_warnings",
        ]

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        # The team is not what readers see of the show: saved, but recorded in no entry.
        team = [fs for fs in formsets if fs.model is ShowMembership]
        for formset in team:
            self.save_formset(request, form, formset, change=change)
        rest = [fs for fs in formsets if fs.model is not ShowMembership]
        super().save_related(request, form, rest, change)

    def has_add_permission(self, request: HttpRequest) -> bool:
        # A new show has no team yet: only someone working network-wide starts one.
        return super().has_add_permission(request) and user_shows(request.user) is None

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        # Whoever points the show at a feed answers for what the scheduled refresh brings
        # from it (editorial.podcast_feed_import.refresh_show), so they cannot approve it
        # themselves.
        if "feed_url" in form.changed_data:
            obj.feed_url_set_by = acting_user(request) if obj.feed_url else None
        super().save_model(request, obj, form, change)

    @admin.action(description="Import/refresh from feed", permissions=["change"])
    def import_from_feed(self, request: HttpRequest, queryset: QuerySet[Show]) -> None:
        """Read each selected show's feed URL now, credited to whoever set it (the
        signed-in user when nobody on the desk did: podcast_feed_import.credited_for)."""
        for show in queryset.select_related("feed_url_set_by").order_by("name"):
            if not show.feed_url:
                self.message_user(
                    request,
                    f"{show.name} has no feed URL; add it on the show's page first. "
                    "Nothing was imported.",
                    messages.WARNING,
                )
                continue
            try:
                result = podcast_feed_import.import_feed(
                    show,
                    show.feed_url,
                    user=podcast_feed_import.credited_for(show, acting_user(request)),
                )
            except Exception as exc:  # noqa: BLE001  (said and kept on the show, never a 500)
                message = podcast_feed_import.record_failure(show, exc)
                self.message_user(
                    request, f"{show.name}: {message}. Nothing was saved.", messages.ERROR
                )
                continue
            level = (
                messages.WARNING
                if result.differences_waiting or result.warnings
                else messages.SUCCESS
            )
            self.message_user(request, result.summary(), level)
            for warning in result.warnings[:WARNINGS_SHOWN]:
                self.message_user(request, f"{show.name}: {warning}", messages.WARNING)
            if len(result.warnings) > WARNINGS_SHOWN:
                self.message_user(
                    request,
                    f"{show.name}: {len(result.warnings) - WARNINGS_SHOWN} more warnings; "
                    f"`manage.py import_feed {show.slug} URL` lists them all.",
                    messages.WARNING,
                )


class EpisodeForm(forms.ModelForm[Episode]):
    transcript_file = forms.FileField(
        required=False,
        label="import a transcript",
        help_text="A WebVTT, SRT or Podcasting 2.0 JSON file (the format is read from the "
        "content). It replaces the episode's transcript when you save; a broken file is "
        "refused naming its line and the transcript stays as it was. A WebVTT cue that video "
        "players would skip is skipped too, and listed under the transcript as a warning "
        "naming its line. Quotes from this episode are checked against it.",
    )

    # No Meta: the admin builds the form from the model with every field, so fields
    # added to Episode later appear without a change here.

    def clean_duration(self) -> int | None:
        """Refuse a duration that would end the episode before a time an entry cites: the
        quote's timestamp would point past the end of the audio."""
        duration: int | None = self.cleaned_data.get("duration")
        if duration is None:
            return duration
        past = self.instance.moments_past(duration)
        if past:
            raise forms.ValidationError(
                f"Episode {self.instance.number} cannot end at {format_timestamp(duration)}: "
                f"{'; '.join(past)} would be past its end. Correct those times first, "
                "or keep the longer duration."
            )
        return duration

    def clean_transcript_file(self) -> bytes | None:
        upload = self.cleaned_data.get("transcript_file")
        if not upload:
            return None
        limit = settings.TRANSCRIPT_MAX_BYTES
        if upload.size is not None and upload.size > limit:
            raise forms.ValidationError(
                f"{upload.name} is {upload.size:,} bytes; transcripts are limited to {limit:,}."
            )
        content: bytes = upload.read()
        try:
            parsed = parse_transcript(content)
        except TranscriptError as exc:
            raise forms.ValidationError(f"{upload.name}: {exc}. Nothing was imported.") from None
        if not parsed:
            # Said here, with the form kept: the import refuses it after the form is saved.
            raise forms.ValidationError(
                f"{upload.name}: the transcript has no spoken text. Nothing was imported."
            )
        self.transcript_name = upload.name
        return content


# The segments the episode page lists; the rest are counted.
SEGMENTS_SHOWN = 200
# The import warnings said as messages; the episode's page lists them all.
WARNINGS_SAID = 10


def warnings_to_show(stored: Transcript) -> list[str]:
    """The first `WARNINGS_SAID` of an import's warnings, and where to read the rest."""
    shown = list(stored.warnings[:WARNINGS_SAID])
    rest = len(stored.warnings) - len(shown)
    if rest > 0:
        shown.append(f"{rest} more warnings are listed on the episode's page, under Transcript.")
    return shown


class EpisodeAdmin(ShowScoped, ReferenceAdmin):
    """Episodes, with what the show's feed says differently from the desk (glossary.episode_feed).

    Differences are listed on the episode's page, each with "Take the feed's" and
    "Keep mine"; taking is recorded like any correction here (record_reference_change).
    """

    # The upload records the versions of the entries whose quotes' check it changes, and
    # says so (save_related): "no entry's page shows it" was said of the episode too.
    recorded_elsewhere = frozenset({"transcript_file"})

    kind = PublicRecord.Kind.EPISODE
    form = EpisodeForm
    list_display = ["number", "title", "show", "season", "air_date", "feed_differences_count"]
    list_filter = ["show", "season"]
    list_select_related = ["show"]
    search_fields = ["title", "number", "show__name", "guid"]
    inlines = [SponsorshipInline, AppearanceInline]
    actions = ["fetch_feed_transcript"]

    @admin.action(description="Fetch the transcript named in the feed", permissions=["change"])
    def fetch_feed_transcript(self, request: HttpRequest, queryset: QuerySet[Episode]) -> None:
        """Import each selected episode's `podcast:transcript` through the link checker's
        guard, credited to whoever set the show's feed URL (podcast_feed_import.credited_for); a
        failure leaves that episode's transcript as it was and names why."""
        clicker = acting_user(request)
        episodes = queryset.select_related("show__feed_url_set_by")
        for episode in episodes.order_by("season", "number"):
            if not episode.transcript_url:
                self.message_user(
                    request,
                    f"{episode}: the feed names no transcript; import a file on the "
                    "episode's page instead.",
                    messages.WARNING,
                )
                continue
            try:
                stored = transcripts.fetch_transcript(
                    episode,
                    episode.transcript_url,
                    user=podcast_feed_import.credited_for(episode.show, clicker),
                )
            except transcripts.TranscriptFetchError as exc:
                self.message_user(
                    request,
                    f"{episode}: {exc}. The episode keeps the transcript it had.",
                    messages.ERROR,
                )
                continue
            self.message_user(
                request,
                f"{episode}: imported {stored.segment_count} transcript segments from "
                f"{episode.transcript_url}.",
                messages.SUCCESS,
            )
            for warning in warnings_to_show(stored):
                self.message_user(request, f"{episode}: {warning}", messages.WARNING)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        transcript = ["transcript_file", "transcript_segments"]
        feed = ["feed_differences"]
        chapters = ["feed_chapters"]
        fields = [f for f in fieldsets[0][1]["fields"] if f not in transcript + feed + chapters]
        return [
            (None, {"fields": fields}),
            ("What the show's feed says differently", {"fields": feed}),
            ("Chapters from the feed", {"fields": chapters}),
            ("Transcript", {"fields": transcript}),
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [
            *super().get_readonly_fields(request, obj),
            "transcript_segments",
            "feed_differences",
            "feed_chapters",
        ]

    @admin.display(description="chapters")
    def feed_chapters(self, obj: Episode | None) -> SafeString | str:
        if obj is None or not obj.chapters:
            return "None: the feed gives no chapters inside this episode."
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td></tr>",
            (
                (format_timestamp(int(c.get("startTime", 0))), c.get("title", ""))
                for c in obj.chapters
            ),
        )
        return format_html(
            "<table><thead><tr><th scope='col'>starts</th><th scope='col'>title</th></tr>"
            "</thead><tbody>{}</tbody></table><p class='help'>Read from the feed's "
            "Podlove Simple Chapters; every import replaces them.</p>",
            rows,
        )

    @admin.display(description="transcript")
    def transcript_segments(self, obj: Episode | None) -> SafeString | str:
        stored = Transcript.objects.filter(episode=obj).first() if obj and obj.pk else None
        if stored is None:
            return "No transcript yet: quotes from this episode cannot be checked."
        segments = list(stored.segments.all()[:SEGMENTS_SHOWN])
        return render_to_string(
            "editorial/transcript_segments.html",
            {
                "transcript": stored,
                # Times as quotes and references are typed and shown everywhere else: 25:38.
                "segments": [
                    {
                        "start": format_timestamp(int(segment.start)),
                        "end": format_timestamp(int(segment.end)),
                        "speaker": segment.speaker,
                        "text": segment.text,
                    }
                    for segment in segments
                ],
                "more": stored.segment_count - len(segments),
            },
        )

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        content = form.cleaned_data.get("transcript_file")
        if content:
            # After the episode's own changes are recorded: the import records, credited
            # to you, a version of each entry whose quotes' check it changes.
            stored = import_transcript(
                form.instance, content, origin=form.transcript_name, user=acting_user(request)
            )
            messages.success(
                request,
                f"Imported {stored.segment_count} transcript segments "
                f"({stored.get_format_display()}) from {form.transcript_name}. Entries quoting "
                "this episode whose check it changes have a new version credited to you.",
            )
            for warning in warnings_to_show(stored):
                messages.warning(request, f"{form.transcript_name}: {warning}")

    @admin.display(description="feed differences")
    def feed_differences_count(self, obj: Episode) -> int:
        return len(episode_feed.differences(obj))

    @admin.display(description="the feed says otherwise")
    def feed_differences(self, obj: Episode | None) -> SafeString | str:
        if obj is None or obj.pk is None or not obj.feed_values:
            return "Not from a feed (or not imported yet)."
        found = episode_feed.differences(obj)
        if not found:
            return "Nothing: the desk agrees with the feed's last word, or kept its own."
        rows = format_html_join(
            "",
            "<tr><th scope='row'>{}</th><td>{}</td><td>{}</td><td>"
            "<button type='submit' form='feed-differences' name='take' value='{}' "
            "class='button' aria-label='Take the feed&#x27;s {}'>Take the feed's</button> "
            "<button type='submit' form='feed-differences' name='keep' value='{}' "
            "class='button' aria-label='Keep the desk&#x27;s {}'>Keep mine</button></td></tr>",
            (
                (d.label, d.feed_display, d.current_display, d.field, d.label, d.field, d.label)
                for d in found
            ),
        )
        return format_html(
            "<table><thead><tr><th>field</th><th>the feed says</th><th>the desk has</th>"
            "<th></th></tr></thead><tbody>{}</tbody></table>"
            "<p class='help'>Taking the feed's value is recorded like a correction saved "
            "here: entries showing the episode get a new version, credited to you.</p>",
            rows,
        )

    def save_model(self, request: HttpRequest, obj: Episode, form: Any, change: bool) -> None:
        # An editor's correction of a field the feed fills is kept against what the feed
        # says now; only a later, different feed value asks again.
        if change:
            kept = dict(obj.feed_kept)
            for name in episode_feed.FIELDS:
                if name in form.changed_data and name in obj.feed_values:
                    said = obj.feed_values[name]
                    if episode_feed.current_value(obj, name) != said:
                        kept[name] = said
                    else:
                        kept.pop(name, None)
            obj.feed_kept = kept
        super().save_model(request, obj, form, change)

    def get_urls(self) -> list[URLPattern]:
        urls: list[URLPattern] = [
            path(
                "<path:object_id>/feed/",
                self.admin_site.admin_view(self.feed_view),
                name="glossary_episode_feed",
            )
        ]
        return urls + super().get_urls()

    def feed_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return require_POST(self._feed_view)(request, object_id)

    def _feed_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        episode = self.get_object(request, object_id)
        if episode is None:
            raise Http404("No such episode.")
        if not self.has_change_permission(request, episode):
            raise PermissionDenied("You may not change episodes.")
        back = HttpResponseRedirect(reverse("admin:glossary_episode_change", args=[episode.pk]))
        name = request.POST.get("take") or request.POST.get("keep") or ""
        if name not in episode_feed.FIELDS or name not in episode.feed_values:
            self.message_user(request, "The feed says nothing about that field.", messages.ERROR)
            return back
        label = episode_feed.LABELS[name]
        if "take" in request.POST:
            credited = podcast_feed_import.credited_for(episode.show, acting_user(request))
            try:
                versions = episode_feed.take(episode, name, user=credited)
            except ValidationError as exc:
                self.message_user(request, " ".join(exc.messages), messages.ERROR)
                return back
            self.log_change(request, episode, f"Took the feed's {label}.")
            tell_what_was_recorded(
                request, versions, f"Episode “{episode}”: {label} taken from the feed.", credited
            )
        else:
            episode_feed.keep(episode, name)
            self.log_change(request, episode, f"Kept the desk's {label} against the feed's.")
            self.message_user(
                request,
                f"Kept your {label}; the feed is asked again only when it says something else.",
                messages.SUCCESS,
            )
        return back


class PersonAdmin(ReferenceAdmin):
    kind = PublicRecord.Kind.PERSON
    list_display = ["name", "slug"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


class OrganisationAdmin(ReferenceAdmin):
    kind = PublicRecord.Kind.ORGANISATION
    list_display = ["name", "slug", "url"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


class MergeTagsForm(forms.Form):
    name = SingleLineFormField(
        label="Merged tag",
        max_length=100,
        validators=[refuse_line_breaks],
        help_text="The tag the selected tags become; an existing tag of this name is reused.",
    )


class TagForm(forms.ModelForm[Tag]):
    # taggit's model, so the one-line rule of our models (glossary.fields) is kept here:
    # a topic's name is a page title and a feed category.
    name = SingleLineFormField(max_length=100, validators=[refuse_line_breaks])

    class Meta:
        model = Tag
        fields = ["name", "slug"]

    def clean_slug(self) -> str:
        slug: str = self.cleaned_data["slug"]
        holder = published_address_holder(slug, self.instance.pk)
        if holder is not None:
            raise ValidationError(
                f"/tags/{slug}/ is the address of the published tag “{holder.name}”, which "
                "live entries show until they are published without it; choose another."
            )
        return slug


class TagAdmin(ReferenceAdmin):
    """Tags follow the roles: editors rename, merge and delete them; every entry a change
    touches gets a version credited to the editor, and readers see it once published."""

    kind = PublicRecord.Kind.TAG
    form = TagForm
    list_display = ["name", "slug", "entries"]
    ordering = ["name", "slug"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}
    actions = ["merge_tags"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tag]:
        tags: QuerySet[Tag] = super().get_queryset(request)
        annotated: QuerySet[Tag] = tags.annotate(tagged=Count("taggit_taggeditem_items"))
        return annotated

    @admin.display(description="entries", ordering="tagged")
    def entries(self, obj: Any) -> int:
        return int(getattr(obj, "tagged", 0))

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A topic is the network's: a team member's rename would change other shows' entries.
        return can(request.user, Action.MANAGE_TAGS) and user_shows(request.user) is None

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A topic is the network's: a team member's rename would change other shows' entries.
        return can(request.user, Action.MANAGE_TAGS) and user_shows(request.user) is None

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        self.delete_queryset(request, type(obj).objects.filter(pk=obj.pk))

    @transaction.atomic
    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Tag]) -> None:
        user = acting_user(request)
        tags = list(queryset)
        # Read before the links go: a lazy query run afterwards would find no entry.
        entries = list(Entry.objects.filter(tags__in=tags).distinct())
        TaggedItem.objects.filter(tag__in=tags).delete()
        versions = [
            publishing.record_edit(entry, user=user, comment="Tags deleted: " + _names(tags))
            for entry in entries
        ]
        Tag.objects.filter(pk__in=[t.pk for t in tags]).delete()
        tell_what_was_recorded(request, versions, f"Deleted {_names(tags)}.")

    @admin.action(description="Merge selected tags into one", permissions=["change"])
    def merge_tags(self, request: HttpRequest, queryset: QuerySet[Tag]) -> HttpResponse | None:
        tags = list(queryset.order_by("name"))
        if len(tags) < 2:
            self.message_user(
                request, "Select at least two tags to merge; nothing was changed.", messages.ERROR
            )
            return None
        form = MergeTagsForm(request.POST if "merge" in request.POST else None)
        if not form.is_valid():
            return TemplateResponse(
                request,
                "admin/taggit/tag/merge.html",
                {
                    **self.admin_site.each_context(request),
                    "title": "Merge tags",
                    "opts": self.model._meta,
                    "tags": tags,
                    "form": form,
                    "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                },
            )
        versions = self._merge(tags, form.cleaned_data["name"].strip(), acting_user(request))
        tell_what_was_recorded(
            request, versions, f"Merged {_names(tags)} into “{form.cleaned_data['name']}”."
        )
        return HttpResponseRedirect(reverse("admin:taggit_tag_changelist"))

    @transaction.atomic
    def _merge(self, tags: list[Tag], name: str, user: Any) -> list[Any]:
        if not can(user, Action.MANAGE_TAGS) or user_shows(user) is not None:
            raise PermissionDenied("Only network-wide editors can merge tags.")
        target = Tag.objects.filter(name__iexact=name).first()
        if target is None:
            target = Tag.objects.create(name=name)
            # Its name is the editor's, wherever it goes next (workflow.records_edited_in_change).
            publishing.note_record_edits(self.kind, [target.pk], user=user)
        entries = Entry.objects.filter(tags__in=tags).distinct()
        versions = []
        for entry in entries:
            names = {t.name for t in entry.tags.all()} - {t.name for t in tags} | {target.name}
            entry.tags.set(sorted(names))
            versions.append(
                publishing.record_edit(
                    entry, user=user, comment=f"Tags merged into “{target.name}”."
                )
            )
        Tag.objects.filter(pk__in=[t.pk for t in tags if t.pk != target.pk]).delete()
        return versions


def _names(tags: list[Tag]) -> str:
    return ", ".join(f"“{t.name}”" for t in tags)
