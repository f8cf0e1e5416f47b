"""The entry admin: one page edits an entry with everything it is made of.

Every save of the working copy is recorded as a version credited to whoever
saved (glossary.publishing.record_edit), after the form has checked nobody saved
in between (editorial.admin.forms.ConflictCheckingForm). The workflow's own
pages (submit, publish, history, compare, rollback, share) are in
editorial.admin.entry_workflow; they and the bulk actions go through
editorial.workflow, so gates, roles and the audit log apply to all of them.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, reverse
from django.utils.safestring import SafeString
from taggit.models import Tag, TaggedItem

from editorial import gates, newsroom, refused, workflow
from editorial.admin.assignments import assign_selected_form, assignments_panel
from editorial.admin.base import DeskModelAdmin, ShowScoped, scope_choices, with_scoped_choices
from editorial.admin.comments import CommentPages, panel_context
from editorial.admin.entry_workflow import EntryWorkflowPages, entry_id, unpublish_confirmation
from editorial.admin.forms import (
    CitationForm,
    ConflictCheckingForm,
    KnownAutocompleteSelect,
    PreloadingInlineFormSet,
)
from editorial.admin.gates import gate_panel, viewed_by, viewer
from editorial.admin.presence import panel_context as presence_context
from editorial.admin.quote_verdicts import (
    QuoteForm,
    checks_by_quote,
    quote_checks_shared,
    verdict_html,
)
from editorial.permissions import Action, acting_user, can, for_user, require, shows_where
from editorial.sourcetext import service as sourcetext
from glossary import publishing
from glossary.models import (
    Citation,
    Disclosure,
    Entry,
    EntryVersion,
    EpisodeReference,
    Quote,
    SeeAlso,
    Show,
    Source,
)

# At most this many choices in a list filter's sidebar, whatever the table's size.
FILTER_CHOICES = 30

# The entry's own fields a person without the edit permission sees read-only.
CONTENT_FIELDS = ["term", "slug", "show", "aliases", "summary", "body", "tags"]


class EntryPartInline(admin.StackedInline[Any, Entry]):
    formset = PreloadingInlineFormSet
    extra = 0
    show_change_link = False

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        # A show member quotes, cites and links their shows' episodes and entries only.
        scope_choices(db_field, request, kwargs)
        if db_field.name in self.get_autocomplete_fields(request) and "widget" not in kwargs:
            # Labels its selected value from what the formset preloaded, not a query per row.
            kwargs["widget"] = KnownAutocompleteSelect(
                db_field, self.admin_site, using=kwargs.get("using")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        formset = super().get_formset(request, obj, **kwargs)
        formset.form = with_scoped_choices(formset.form)
        return formset


class EpisodeReferenceInline(EntryPartInline):
    model = EpisodeReference
    fields = [("order", "episode", "at", "speaker"), "text"]
    autocomplete_fields = ["episode", "speaker"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[EpisodeReference]:
        return super().get_queryset(request).select_related("episode")


class QuoteInline(EntryPartInline):
    model = Quote
    form = QuoteForm
    fields = [
        ("order", "episode", "speaker"),
        ("start", "end", "lightly_edited"),
        "text",
        "verbatim",
        "transcript_check",
    ]
    readonly_fields = ["transcript_check"]
    autocomplete_fields = ["episode", "speaker"]

    @admin.display(description="checked against the transcript")
    def transcript_check(self, obj: Quote | None) -> SafeString | str:
        if obj is None or obj.pk is None:
            return verdict_html(None)
        # Inline instances are made per request: every quote of the page is checked at
        # once, at a fixed number of queries, when the first one is drawn.
        checks = getattr(self, "_checks", None)
        if checks is None:
            checks = self._checks = checks_by_quote(obj.entry_id)
        return verdict_html(checks.get(obj.pk))


class DisclosureInline(EntryPartInline):
    model = Disclosure
    fields = [("order", "kind", "reference"), ("episode", "at"), ("organisation", "person"), "text"]
    autocomplete_fields = ["episode", "organisation", "person"]

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "reference":
            # Only this entry's own references (none on the add page).
            match = request.resolver_match
            object_id = match.kwargs.get("object_id") if match else None
            own = EpisodeReference.objects.select_related("episode")
            pk = entry_id(str(object_id)) if object_id else None
            kwargs["queryset"] = own.filter(entry_id=pk) if pk is not None else own.none()
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
        if not can(request.user, Action.CONFIRM_CITATION, obj):
            fields.append("checked_on")
        return fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Citation]:
        # Who confirmed each citation is shown read-only: with the rows, not a query each.
        return super().get_queryset(request).select_related("source", "checked_by")

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        formset = super().get_formset(request, obj, **kwargs)
        # A source made from a pasted URL is written by whoever pasted it (RecordEdit).
        formset.form = type(formset.form.__name__, (formset.form,), {"writer": request.user})
        return formset


class SeeAlsoInline(EntryPartInline):
    model = SeeAlso
    fk_name = "entry"
    fields = [("order", "target", "link_text"), "note"]
    autocomplete_fields = ["target"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[SeeAlso]:
        return super().get_queryset(request).select_related("target")


class ShowFilter(admin.SimpleListFilter):
    """Entries that quote or cite an episode of a show.

    Lists at most FILTER_CHOICES shows (a network has a handful; the sidebar must
    not grow with a table); any show can still be named in the address.
    """

    title = "show"
    parameter_name = "show"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        mine = for_user(Show.objects.all(), request.user, "pk")
        shows = mine.order_by("name").values_list("pk", "name")[:FILTER_CHOICES]
        return [(str(pk), name) for pk, name in shows]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Entry]) -> QuerySet[Entry]:
        value = self.value()
        if not value:
            return queryset
        try:
            show_id = int(value)
        except ValueError:
            # Django's answer to a filter value it cannot read: the list, unfiltered.
            raise IncorrectLookupParameters(f"show={value!r} names no show") from None
        # EXISTS, not a join and DISTINCT: one probe per entry row, whatever the quotes.
        quoted = Quote.objects.filter(entry=OuterRef("pk"), episode__show_id=show_id)
        referenced = EpisodeReference.objects.filter(entry=OuterRef("pk"), episode__show_id=show_id)
        return queryset.filter(Q(Exists(quoted)) | Q(Exists(referenced)))


class TagFilter(admin.SimpleListFilter):
    """Entries with a tag, chosen from the most used tags (and the one chosen).

    Django's related-field filter lists every tag, which grows without bound;
    this lists the FILTER_CHOICES most used. Any tag can be named by its slug in
    the address (`?tag=networking`), and the search box finds the rest.
    """

    title = "tag"
    parameter_name = "tag"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        used = (
            Tag.objects.annotate(uses=Count("taggit_taggeditem_items"))
            .filter(uses__gt=0)
            .order_by("-uses", "name")
            .values_list("slug", "name")[:FILTER_CHOICES]
        )
        choices = sorted(used, key=lambda c: c[1].casefold())
        chosen = self.value()
        if chosen and chosen not in {slug for slug, _ in choices}:
            choices.append((chosen, chosen))
        return choices

    def queryset(self, request: HttpRequest, queryset: QuerySet[Entry]) -> QuerySet[Entry]:
        value = self.value()
        if not value:
            return queryset
        return queryset.filter(
            Exists(
                TaggedItem.objects.filter(
                    content_type__app_label="glossary",
                    content_type__model="entry",
                    object_id=OuterRef("pk"),
                    tag__slug=value,
                )
            )
        )


class StaleSourcesFilter(admin.SimpleListFilter):
    title = "sources"
    parameter_name = "sources"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("stale", "Has citations past the freshness window or never checked"),
            ("unhealthy", "Cites a broken, moved, empty or failing link"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Entry]) -> QuerySet[Entry]:
        if self.value() == "stale":
            stale = Citation.objects.stale(newsroom.today()).filter(entry=OuterRef("pk"))
            return queryset.filter(Exists(stale))
        if self.value() == "unhealthy":
            bad = Citation.objects.filter(
                entry=OuterRef("pk"),
                source__health__in=[
                    Source.Health.BROKEN,
                    Source.Health.MOVED,
                    Source.Health.EMPTY,
                    Source.Health.FAILING,
                ],
            )
            return queryset.filter(Exists(bad))
        return queryset


class EntryAdmin(ShowScoped, DeskModelAdmin[Entry]):
    list_display = [
        "term",
        "slug",
        "show",
        "status_label",
        "is_live",
        "unpublished_changes",
        "last_published_at",
    ]
    list_filter = ["status", TagFilter, ShowFilter, StaleSourcesFilter]
    search_fields = ["term", "slug", "aliases", "summary"]
    prepopulated_fields = {"slug": ["term"]}
    readonly_fields = [
        "status_label",
        "public_page",
        "last_published_at",
        "significant_change_at",
        "publish_checks",
        "assignments",
    ]
    fieldsets = [
        (None, {"fields": ["term", "slug", "show", "aliases", "summary", "body", "tags"]}),
        (
            "Publishing",
            {
                "fields": [
                    "status_label",
                    "public_page",
                    "last_published_at",
                    "significant_change_at",
                ]
            },
        ),
        # editorial.gates: what would block publishing the saved working copy, and the fixes.
        ("Publish checks", {"fields": ["publish_checks"]}),
        # editorial.assignments: who writes and who checks it, by when (never in a version).
        ("Assignments", {"fields": ["assignments"]}),
    ]
    inlines = [EpisodeReferenceInline, DisclosureInline, QuoteInline, CitationInline, SeeAlsoInline]
    actions = ["publish_selected", "unpublish_selected", "archive_selected", "assign_selected"]
    list_select_related = ["live_version", "show"]
    autocomplete_fields = ["show"]
    save_on_top = True
    form = ConflictCheckingForm
    change_form_template = "admin/glossary/entry/change_form.html"
    formfield_overrides = {
        models.TextField: {"widget": forms.Textarea(attrs={"rows": 4, "cols": 90})},
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pages = EntryWorkflowPages(self)
        self.comment_pages = CommentPages(self.admin_site)

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "summary":
            kwargs["widget"] = forms.Textarea(attrs={"rows": 2, "cols": 90})
        elif db_field.name == "body":
            kwargs["widget"] = forms.Textarea(attrs={"rows": 18, "cols": 90})
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "show":
            kwargs.setdefault(
                "widget",
                KnownAutocompleteSelect(db_field, self.admin_site, using=kwargs.get("using")),
            )
            shows = shows_where(request.user, Action.EDIT)
            if shows is not None:
                # A show member files entries under a show whose team lets them write.
                kwargs["queryset"] = Show.objects.filter(pk__in=shows)
                kwargs["required"] = True
                kwargs.setdefault(
                    "error_messages",
                    {
                        "invalid_choice": "Choose one of your shows: you may not write "
                        "entries for that one.",
                        "required": "Choose the show this entry belongs to (one of yours).",
                    },
                )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Entry]:
        # The show's name labels the form's show field with the entry's row (no query).
        return super().get_queryset(request).select_related("show")

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        field = form.base_fields.get("show")
        widget = getattr(getattr(field, "widget", None), "widget", None)
        if isinstance(widget, KnownAutocompleteSelect) and request.method == "GET":
            # The show the page opens with, labelled from what is already read.
            if obj is not None:
                widget.known = {str(obj.show_id): str(obj.show)} if obj.show_id else {}
            else:
                only = self._only_show(request)
                widget.known = {str(only.pk): str(only)} if only is not None else {}
        return self._with_keeper(form, request, obj)

    def _only_show(self, request: HttpRequest) -> Show | None:
        """The show a new entry belongs to unless told otherwise: the only one there is,
        or a show member's only show they may write for (read once per request)."""
        if not hasattr(request, "_entry_only_show"):
            shows = shows_where(request.user, Action.ADD)
            choices = Show.objects.all() if shows is None else Show.objects.filter(pk__in=shows)
            only = list(choices.order_by("pk")[:2])
            request._entry_only_show = only[0] if len(only) == 1 else None  # type: ignore[attr-defined]
        found: Show | None = request._entry_only_show  # type: ignore[attr-defined]
        return found

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial: dict[str, Any] = dict(super().get_changeform_initial_data(request))
        if "show" not in initial:
            only = self._only_show(request)
            if only is not None:
                # One show (a single-show glossary, or a member of one team): it is theirs.
                initial["show"] = only.pk
        return initial

    @admin.display(description="status", ordering="status")
    def status_label(self, obj: Entry) -> str:
        return obj.status_label()

    @admin.display(boolean=True, description="live")
    def is_live(self, obj: Entry) -> bool:
        return obj.is_live

    @admin.display(description="has unpublished changes", ordering="has_unpublished_changes")
    def unpublished_changes(self, obj: Entry) -> str:
        # Words, not the boolean icons: a red ✖ on every up-to-date entry read as an error.
        return "Yes" if obj.has_unpublished_changes else "No"

    @admin.display(description="public page")
    def public_page(self, obj: Entry) -> str:
        if not obj.is_live:
            return "Not published: readers cannot see this entry."
        return obj.get_absolute_url()

    @admin.display(description="checks")
    def publish_checks(self, obj: Entry | None) -> SafeString:
        return gate_panel(obj)

    @admin.display(description="assigned")
    def assignments(self, obj: Entry | None) -> SafeString:
        # The assign link shows only to whoever may assign (the page's reader).
        return assignments_panel(obj, viewer())

    def view_on_site(self, obj: Entry) -> str:
        # An unpublished entry has no public page: "view on site" opens its preview.
        if obj.is_live:
            return obj.get_absolute_url()
        return reverse("preview:working_copy", args=[obj.pk])

    # --- permissions -------------------------------------------------------------------

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and can(request.user, Action.ADD)

    def has_publish_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.PUBLISH)

    def has_unpublish_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.UNPUBLISH)

    def has_archive_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.ARCHIVE)

    def has_assign_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.ASSIGN)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can(request.user, Action.DELETE, obj)

    # --- deleting: admins only, and the whole history goes with the entry ---------------

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        # The versions and audit log go with the entry; whoever may delete an entry
        # may delete its history, though nobody may delete history on its own.
        to_delete, model_count, _, protected = super().get_deleted_objects(objs, request)
        return to_delete, model_count, set(), protected

    def delete_model(self, request: HttpRequest, obj: Entry) -> None:
        workflow.delete_entry(obj, user=acting_user(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        user = acting_user(request)
        for entry in queryset:
            workflow.delete_entry(entry, user=user)

    def _with_keeper(self, form: Any, request: HttpRequest, obj: Any) -> Any:
        """The entry form, keeping a stale save for its author (editorial.refused)."""
        if obj is None or not request.user.is_authenticated:
            return form
        author = request.user

        def keep(current: Entry, submitted: Any, opened: int | None, latest: int) -> str:
            """A stale save is kept for its author (editorial.refused): its page's address."""
            kept = refused.keep(
                current,
                author=author,
                submitted=submitted,
                opened_version=opened,
                conflicting_version=latest,
                saved_by=current.updated_by,
            )
            return reverse("desk:refused", args=[kept.pk])

        return type(form.__name__, (form,), {"keeper": staticmethod(keep)})

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and not can(request.user, Action.EDIT, obj):
            fields += [f for f in CONTENT_FIELDS if f not in fields]
        return fields

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        fieldsets = list(super().get_fieldsets(request, obj))
        if obj is not None:
            # The hidden edit token travels with the form so a stale save is caught.
            name, options = fieldsets[0]
            fieldsets[0] = (name, {**options, "fields": [*options["fields"], "edit_token"]})
        return fieldsets

    def get_prepopulated_fields(self, request: HttpRequest, obj: Any = None) -> dict[str, Any]:
        if obj is not None and not can(request.user, Action.EDIT, obj):
            return {}
        return super().get_prepopulated_fields(request, obj)

    # --- saving: every change is a version credited to who made it -------------------------

    def save_model(self, request: HttpRequest, obj: Entry, form: Any, change: bool) -> None:
        if change and not form.has_changed():
            # Nothing on the entry itself changed: leave updated_at alone so nobody
            # else's open form goes stale. Inline changes are recorded in save_related.
            return
        if not change:
            obj.created_by = acting_user(request)
        super().save_model(request, obj, form, change)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        confirmed: list[Citation] = []
        if formset.model is Citation:
            # Whoever sets or changes the check date is who confirmed the source.
            for row in formset.forms:
                if "checked_on" in row.changed_data:
                    checked = row.cleaned_data.get("checked_on")
                    row.instance.checked_by = request.user if checked else None
                    if checked and not row.cleaned_data.get("DELETE"):
                        confirmed.append(row.instance)
        super().save_formset(request, form, formset, change)
        if confirmed:
            # The same rule as "Mark confirmed today": confirmed fingerprint, stored
            # text and the reader's excerpt, before save_related records the version.
            done = sourcetext.confirm_citations(confirmed, user=request.user)
            for source in done.empty:
                messages.warning(request, sourcetext.empty_page_warning(source))

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        entry: Entry = form.instance
        if change and not form.has_changed() and not any(fs.has_changed() for fs in formsets):
            messages.info(request, "Nothing changed, so no new version was saved.")
            return
        version = publishing.record_edit(entry, user=request.user, comment="Saved in the admin.")
        confirmed = [
            row.instance
            for formset in formsets
            if formset.model is Citation
            for row in formset.forms
            if "checked_on" in row.changed_data
            and row.cleaned_data.get("checked_on")
            and not row.cleaned_data.get("DELETE")
        ]
        if confirmed:
            # A step of the review, in the history beside submit and publish.
            workflow.record_fact_checks(
                {entry.pk: confirmed},
                user=request.user,
                versions={entry.pk: version},
                on=max(c.checked_on for c in confirmed),
            )
        live = entry.live_version
        tail = (
            f" Readers still see version {live.number} until this is published."
            if live is not None
            else ""
        )
        messages.info(request, f"Saved as version {version.number}.{tail}")
        clashes = gates.duplicate_names(entry)
        if clashes:
            listed = "; ".join(f"“{name}” is also used by “{term}”" for name, term in clashes)
            messages.warning(
                request,
                f"Another entry has the same name: {listed}. Readers will find both; merge "
                "them or make the terms distinct.",
            )

    # --- the change page and the workflow's pages ----------------------------------------

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        extra_context = extra_context or {}
        pk = entry_id(object_id)
        entry = Entry.objects.filter(pk=pk).select_related("live_version").first() if pk else None
        if entry is not None:
            require(request.user, Action.VIEW, entry)  # another show's: 403 before anything
            extra_context["workflow"] = self.pages.context(request, entry)
            if request.user.has_perm("editorial.view_comment"):
                extra_context["comments"] = panel_context(request, entry)
            if can(request.user, Action.VIEW):
                # Who else has it open (editorial.presence); this page counts as open too.
                extra_context["presence"] = presence_context(request, entry)
        # Rendered here, so the quotes' verdicts and the publish checks' panel, both drawn
        # while the page renders, share one check of the quotes against the transcripts.
        with quote_checks_shared(), viewed_by(request.user):
            response = super().change_view(request, object_id, form_url, extra_context)
            if isinstance(response, TemplateResponse):
                response.render()
        return response

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        return self.pages.history(request, object_id, extra_context)

    def get_urls(self) -> list[URLPattern]:
        return self.pages.urls() + self.comment_pages.urls() + super().get_urls()

    # --- bulk actions ----------------------------------------------------------------

    @admin.action(
        description="Publish selected entries (in review, checks passing)", permissions=["publish"]
    )
    def publish_selected(
        self, request: HttpRequest, queryset: QuerySet[Entry]
    ) -> TemplateResponse | None:
        """Ask first, showing the version of each entry that would go out; the answer names
        those versions, so a save in between stops that entry instead of publishing what
        nobody reviewed."""
        entries = list(queryset.order_by("term"))
        if request.POST.get("confirmed") != "yes":
            latest = dict(
                EntryVersion.objects.filter(entry__in=entries)
                .values("entry")
                .annotate(n=Max("number"))
                .values_list("entry", "n")
            )
            seen = workflow.last_event_ids(entries)  # what had happened to each by now
            return TemplateResponse(
                request,
                "admin/glossary/entry/publish_selected.html",
                {
                    **self.admin_site.each_context(request),
                    "title": "Publish these entries?",
                    "opts": self.model._meta,
                    "rows": [(e, latest.get(e.pk), seen.get(e.pk, 0)) for e in entries],
                    "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                },
            )

        def publish(entry: Entry, *, user: Any) -> Any:
            shown = request.POST.get(f"version_{entry.pk}", "")
            if not shown.isdecimal():
                raise workflow.InvalidTransition(
                    "the confirmation did not say which version you reviewed; nothing published"
                )
            seen = workflow.seen_on_form(entry, request.POST.get(f"seen_{entry.pk}", ""), shown)
            return workflow.publish_entry(
                entry, user=user, expected_version=int(shown), seen_event=seen
            )

        self._bulk(request, entries, publish, "Published")
        return None

    @admin.action(description="Unpublish selected entries…", permissions=["unpublish"])
    def unpublish_selected(
        self, request: HttpRequest, queryset: QuerySet[Entry]
    ) -> TemplateResponse | None:
        """Ask first, and why: the reason goes into each entry's history, as on its page."""
        entries = list(queryset.select_related("live_version").order_by("term"))
        live = [entry for entry in entries if entry.is_live]
        if not live:
            messages.warning(request, "None of the selected entries is published.")
            return None
        reason = request.POST.get("reason", "")
        if request.POST.get("confirmed") != "yes" or not reason.strip():
            error = (
                "Write why the entries are coming down: the reason is kept in each one's "
                "history. Nothing was unpublished."
                if request.POST.get("confirmed") == "yes"
                else ""
            )
            return unpublish_confirmation(
                request, self.admin_site, live, reason=reason, error=error, bulk=True
            )

        def unpublish(entry: Entry, *, user: Any) -> Any:
            return workflow.unpublish_entry(entry, user=user, comment=reason.strip())

        self._bulk(request, live, unpublish, "Unpublished")
        return None

    @admin.action(description="Archive selected entries", permissions=["archive"])
    def archive_selected(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        self._bulk(request, queryset, workflow.archive_entry, "Archived")

    @admin.action(description="Assign selected entries…", permissions=["assign"])
    def assign_selected(
        self, request: HttpRequest, queryset: QuerySet[Entry]
    ) -> HttpResponse | None:
        """One writer or fact-checker, by one day, for each selected entry (docs/assignments.md)."""
        return assign_selected_form(request, list(queryset.order_by("term")))

    def _bulk(self, request: HttpRequest, queryset: Any, func: Any, verb: str) -> None:
        done: list[str] = []
        refused: list[str] = []
        for entry in queryset:
            try:
                func(entry, user=request.user)
            except workflow.GateFailed as exc:
                refused.append(f"“{entry.term}” ({len(exc.blocking)} blocking check(s) failed)")
            except (workflow.WorkflowError, PermissionDenied) as exc:
                refused.append(f"“{entry.term}” ({exc})")
            else:
                done.append(entry.term)
        if done:
            messages.success(request, f"{verb} {len(done)} entr{'y' if len(done) == 1 else 'ies'}.")
        if refused:
            messages.warning(
                request,
                f"Not {verb.lower()}: " + "; ".join(refused) + ". Open each entry to see why.",
            )
