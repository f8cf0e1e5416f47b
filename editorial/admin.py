"""The editors' admin: one page edits an entry with everything it is made of."""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone

from editorial.admin_forms import CitationForm, PreloadingInlineFormSet
from glossary import publishing
from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    EntryVersion,
    Episode,
    EpisodeReference,
    LinkCheck,
    Organisation,
    Person,
    Quote,
    SeeAlso,
    Show,
    Source,
    Sponsorship,
    normalise_url,
)


class EntryPartInline(admin.StackedInline):
    formset = PreloadingInlineFormSet
    extra = 0
    show_change_link = False


class EpisodeReferenceInline(EntryPartInline):
    model = EpisodeReference
    fields = [("order", "episode", "at", "speaker"), "text"]
    autocomplete_fields = ["episode", "speaker"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[EpisodeReference]:
        return super().get_queryset(request).select_related("episode")


class QuoteInline(EntryPartInline):
    model = Quote
    fields = [
        ("order", "episode", "speaker"),
        ("start", "end", "lightly_edited"),
        "text",
        "verbatim",
    ]
    autocomplete_fields = ["episode", "speaker"]


class DisclosureInline(EntryPartInline):
    model = Disclosure
    fields = [("order", "kind", "reference"), ("episode", "at"), ("organisation", "person"), "text"]
    autocomplete_fields = ["episode", "organisation", "person"]

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "reference":
            entry_id = (
                request.resolver_match.kwargs.get("object_id") if request.resolver_match else None
            )
            kwargs["queryset"] = EpisodeReference.objects.filter(entry_id=entry_id).select_related(
                "episode"
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class CitationInline(EntryPartInline):
    model = Citation
    form = CitationForm
    fields = [
        ("order", "source"),
        ("new_url", "new_title"),
        "note",
        ("checked_on", "checked_by"),
    ]
    autocomplete_fields = ["source", "checked_by"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Citation]:
        return super().get_queryset(request).select_related("source")


class SeeAlsoInline(EntryPartInline):
    model = SeeAlso
    fk_name = "entry"
    fields = [("order", "target", "link_text"), "note"]
    autocomplete_fields = ["target"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[SeeAlso]:
        return super().get_queryset(request).select_related("target")


class ShowFilter(admin.SimpleListFilter):
    title = "show"
    parameter_name = "show"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(show.pk), show.name) for show in Show.objects.all()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Entry]) -> QuerySet[Entry]:
        if not self.value():
            return queryset
        return queryset.filter(
            Q(references__episode__show_id=self.value()) | Q(quotes__episode__show_id=self.value())
        ).distinct()


class StaleSourcesFilter(admin.SimpleListFilter):
    title = "sources"
    parameter_name = "sources"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("stale", "Has citations past the freshness window or never checked"),
            ("unhealthy", "Cites a broken, moved or failing link"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Entry]) -> QuerySet[Entry]:
        if self.value() == "stale":
            cutoff = timezone.localdate() - datetime.timedelta(
                days=settings.CITATION_FRESHNESS_DAYS
            )
            stale = Citation.objects.filter(entry=OuterRef("pk")).filter(
                Q(checked_on__isnull=True) | Q(checked_on__lt=cutoff)
            )
            return queryset.filter(Exists(stale))
        if self.value() == "unhealthy":
            bad = Citation.objects.filter(
                entry=OuterRef("pk"),
                source__health__in=[
                    Source.Health.BROKEN,
                    Source.Health.MOVED,
                    Source.Health.FAILING,
                ],
            )
            return queryset.filter(Exists(bad))
        return queryset


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["term", "status", "is_live", "has_unpublished_changes", "last_published_at"]
    list_filter = ["status", "tags", ShowFilter, StaleSourcesFilter]
    search_fields = ["term", "slug", "aliases", "summary"]
    prepopulated_fields = {"slug": ["term"]}
    readonly_fields = ["status", "public_page", "last_published_at", "significant_change_at"]
    fieldsets = [
        (None, {"fields": ["term", "slug", "aliases", "summary", "body", "tags"]}),
        (
            "Publishing",
            {"fields": ["status", "public_page", "last_published_at", "significant_change_at"]},
        ),
    ]
    inlines = [EpisodeReferenceInline, DisclosureInline, QuoteInline, CitationInline, SeeAlsoInline]
    actions = ["publish_selected", "unpublish_selected"]
    list_select_related = ["live_version"]
    save_on_top = True

    @admin.display(boolean=True, description="live")
    def is_live(self, obj: Entry) -> bool:
        return obj.is_live

    @admin.display(description="public page")
    def public_page(self, obj: Entry) -> str:
        if not obj.is_live:
            return "Not published: readers cannot see this entry."
        return obj.get_absolute_url()

    def get_queryset(self, request: HttpRequest) -> QuerySet[Entry]:
        return super().get_queryset(request).prefetch_related("tagged_items__tag")

    def save_model(self, request: HttpRequest, obj: Entry, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user
        obj.updated_by = request.user
        if change and form.has_changed():
            obj.has_unpublished_changes = True
        if obj.status == Entry.Status.PUBLISHED and change:
            # An edit to a published entry is a draft of its next version;
            # readers keep the live version until this is published.
            obj.status = Entry.Status.DRAFT
        super().save_model(request, obj, form, change)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        super().save_formset(request, form, formset, change)
        if change and formset.has_changed():
            Entry.objects.filter(pk=form.instance.pk).update(
                has_unpublished_changes=True,
                status=Entry.Status.DRAFT
                if form.instance.status == Entry.Status.PUBLISHED
                else form.instance.status,
            )

    @admin.action(description="Publish selected entries", permissions=["change"])
    def publish_selected(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        count = 0
        for entry in queryset:
            publishing.publish(entry, user=request.user)
            count += 1
        self.message_user(
            request, f"Published {count} entr{'y' if count == 1 else 'ies'}.", messages.SUCCESS
        )

    @admin.action(description="Unpublish selected entries", permissions=["change"])
    def unpublish_selected(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        count = 0
        for entry in queryset.published():
            publishing.unpublish(entry, user=request.user)
            count += 1
        self.message_user(
            request,
            f"Unpublished {count} entr{'y' if count == 1 else 'ies'}; readers no longer see them.",
            messages.SUCCESS,
        )


@admin.register(EntryVersion)
class EntryVersionAdmin(admin.ModelAdmin):
    list_display = ["entry", "number", "created_at", "created_by", "published_at", "is_material"]
    list_select_related = ["entry", "created_by"]
    search_fields = ["term", "slug"]
    readonly_fields = [f.name for f in EntryVersion._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SponsorshipInline(admin.TabularInline):
    model = Sponsorship
    extra = 0
    autocomplete_fields = ["organisation"]


class AppearanceInline(admin.TabularInline):
    model = Appearance
    extra = 0
    autocomplete_fields = ["person", "affiliation"]


@admin.register(Show)
class ShowAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "deep_link_style"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Episode)
class EpisodeAdmin(admin.ModelAdmin):
    list_display = ["number", "title", "show", "season", "air_date"]
    list_filter = ["show", "season"]
    list_select_related = ["show"]
    search_fields = ["title", "number", "show__name"]
    inlines = [SponsorshipInline, AppearanceInline]

    def get_search_results(self, request: HttpRequest, queryset: Any, search_term: str) -> Any:
        return super().get_search_results(request, queryset.select_related("show"), search_term)


@admin.register(Person)
class PersonAdmin(admin.ModelAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Organisation)
class OrganisationAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "url"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ["display_title", "url", "health", "last_checked_at", "citation_status"]
    list_filter = ["health", "kind", "citation_status"]
    search_fields = ["title", "publisher", "url"]
    fieldsets = [
        (None, {"fields": ["url", "title", "publisher", "kind"]}),
        ("Archive", {"fields": ["citation_status", "archive_url", "archive_date"]}),
        (
            "Link health (automatic)",
            {
                "fields": [
                    "health",
                    "last_checked_at",
                    "last_outcome",
                    "last_status_code",
                    "failure_streak",
                    "suggested_url",
                    "next_check_at",
                ]
            },
        ),
    ]
    readonly_fields = [
        "health",
        "last_checked_at",
        "last_outcome",
        "last_status_code",
        "failure_streak",
        "suggested_url",
        "next_check_at",
    ]

    @admin.display(description="source", ordering="title")
    def display_title(self, obj: Source) -> str:
        return obj.display_title

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        # A URL already in the library resolves to its source instead of failing.
        if request.method == "POST" and request.POST.get("url"):
            existing = Source.objects.filter(url=normalise_url(request.POST["url"])).first()
            if existing is not None:
                self.message_user(
                    request,
                    f"{existing.url} is already in the library as “{existing}”; here it is.",
                    messages.INFO,
                )
                return HttpResponseRedirect(
                    reverse("admin:glossary_source_change", args=[existing.pk])
                )
        return super().add_view(request, form_url, extra_context)


@admin.register(LinkCheck)
class LinkCheckAdmin(admin.ModelAdmin):
    list_display = ["url", "checked_at", "outcome", "status_code", "elapsed_ms"]
    list_filter = ["outcome"]
    search_fields = ["url"]
    date_hierarchy = "checked_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
