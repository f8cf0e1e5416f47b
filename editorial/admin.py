"""The editors' admin: one page edits an entry with everything it is made of."""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db import models
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from editorial import workflow
from editorial.admin_forms import (
    CitationForm,
    KnownAutocompleteSelect,
    PreloadingInlineFormSet,
)
from editorial.admin_linkcheck import SourceLinkHealthMixin
from editorial.gates import gate_panel
from editorial.models import WorkflowEvent
from editorial.permissions import Action, can
from editorial.workflow_admin import WorkflowEntryAdminMixin
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

admin.site.site_header = "Glossary Desk"
admin.site.site_title = "Glossary Desk"
admin.site.index_title = "Editorial desk"


class EntryPartInline(admin.StackedInline):
    formset = PreloadingInlineFormSet
    extra = 0
    show_change_link = False

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name in self.get_autocomplete_fields(request) and "widget" not in kwargs:
            # Labels its selected value from what the formset preloaded, not a query per row.
            kwargs["widget"] = KnownAutocompleteSelect(
                db_field, self.admin_site, using=kwargs.get("using")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


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

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # Only fact-checkers confirm a source; who confirmed is recorded, not typed.
        fields = [*super().get_readonly_fields(request, obj), "checked_by"]
        if not can(request.user, Action.CONFIRM_CITATION):
            fields.append("checked_on")
        return fields

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
class EntryAdmin(WorkflowEntryAdminMixin, admin.ModelAdmin):
    list_display = ["term", "status", "is_live", "has_unpublished_changes", "last_published_at"]
    list_filter = ["status", "tags", ShowFilter, StaleSourcesFilter]
    search_fields = ["term", "slug", "aliases", "summary"]
    prepopulated_fields = {"slug": ["term"]}
    readonly_fields = [
        "status",
        "public_page",
        "last_published_at",
        "significant_change_at",
        "publish_checks",
    ]
    fieldsets = [
        (None, {"fields": ["term", "slug", "aliases", "summary", "body", "tags"]}),
        (
            "Publishing",
            {"fields": ["status", "public_page", "last_published_at", "significant_change_at"]},
        ),
        # editorial.gates: what would block publishing the saved working copy, and the fixes.
        ("Publish checks", {"fields": ["publish_checks"]}),
    ]
    inlines = [EpisodeReferenceInline, DisclosureInline, QuoteInline, CitationInline, SeeAlsoInline]
    actions = ["publish_selected", "unpublish_selected", "archive_selected"]
    list_select_related = ["live_version"]
    save_on_top = True
    formfield_overrides = {
        models.TextField: {"widget": forms.Textarea(attrs={"rows": 4, "cols": 90})},
    }

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "summary":
            kwargs["widget"] = forms.Textarea(attrs={"rows": 2, "cols": 90})
        elif db_field.name == "body":
            kwargs["widget"] = forms.Textarea(attrs={"rows": 18, "cols": 90})
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(boolean=True, description="live")
    def is_live(self, obj: Entry) -> bool:
        return obj.is_live

    @admin.display(description="public page")
    def public_page(self, obj: Entry) -> str:
        if not obj.is_live:
            return "Not published: readers cannot see this entry."
        return obj.get_absolute_url()

    @admin.display(description="checks")
    def publish_checks(self, obj: Entry | None) -> str:
        return gate_panel(obj)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Entry]:
        return super().get_queryset(request).prefetch_related("tagged_items__tag")

    # Saving (versions, conflict checks) and the workflow's pages live in
    # editorial.workflow_admin.WorkflowEntryAdminMixin. Bulk actions go through the
    # same workflow functions, so gates, roles and the audit log apply to them too.

    @admin.action(
        description="Publish selected entries (in review, checks passing)", permissions=["publish"]
    )
    def publish_selected(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        self._bulk(request, queryset, workflow.publish_entry, "Published")

    @admin.action(description="Unpublish selected entries", permissions=["unpublish"])
    def unpublish_selected(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        self._bulk(request, queryset, workflow.unpublish_entry, "Unpublished")

    @admin.action(description="Archive selected entries", permissions=["archive"])
    def archive_selected(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        self._bulk(request, queryset, workflow.archive_entry, "Archived")


@admin.register(EntryVersion)
class EntryVersionAdmin(admin.ModelAdmin):
    """Versions are history: read-only; compare and roll back from the entry's history page.

    Only admins (delete_entryversion) can delete them, which deleting an entry needs.
    """

    list_display = [
        "entry",
        "number",
        "created_at",
        "created_by",
        "published_at",
        "is_material",
        "links",
    ]
    list_select_related = ["entry", "created_by"]
    search_fields = ["term", "slug"]
    exclude = ["data", "rendered_html", "search_text"]
    readonly_fields = [
        f.name
        for f in EntryVersion._meta.fields
        if f.name not in ("data", "rendered_html", "search_text")
    ] + ["links"]

    @admin.display(description="see")
    def links(self, obj: EntryVersion) -> str:
        return format_html(
            '<a href="{}">preview</a> · <a href="{}">history of the entry</a>',
            reverse("preview:version", args=[obj.entry_id, obj.number]),
            reverse("admin:glossary_entry_history", args=[obj.entry_id]),
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(WorkflowEvent)
class WorkflowEventAdmin(admin.ModelAdmin):
    """The audit log of every workflow step, across entries; written only by editorial.workflow."""

    list_display = ["at", "entry", "action", "from_status", "to_status", "actor", "comment"]
    list_filter = ["action"]
    list_select_related = ["entry", "actor"]
    search_fields = ["entry__term", "comment", "override_reason"]
    date_hierarchy = "at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
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
class SourceAdmin(SourceLinkHealthMixin, admin.ModelAdmin):
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


# Scheduled publishing and interest-disclosure decisions register their own admins.
from editorial import scheduling_admin  # noqa: E402, F401
