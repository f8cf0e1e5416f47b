"""Versions and the workflow's audit log in the admin: history, read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from editorial.admin.base import DeskModelAdmin, ShowScoped
from editorial.models import WorkflowEvent
from glossary.models import EntryVersion

# Bulky or machine-only columns: the document, the rendered page, the search texts.
_HIDDEN_VERSION_FIELDS = ("data", "rendered_html", "search_text", "search_names")


class EntryVersionAdmin(ShowScoped, DeskModelAdmin[EntryVersion]):
    """Versions are history: read-only; compare and roll back from the entry's history page.

    None is deleted on its own (deleting an entry deletes its versions, and needs the
    admins' delete_entryversion): a deleted draft version would take its author with it,
    and the text it held, still in the working copy, would be saved again credited to
    whoever saved next, who could then approve text they did not write.
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
    show_path = "entry__show"
    list_select_related = ["entry", "created_by"]
    search_fields = ["term", "slug"]
    exclude = list(_HIDDEN_VERSION_FIELDS)
    readonly_fields = [
        f.name for f in EntryVersion._meta.fields if f.name not in _HIDDEN_VERSION_FIELDS
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

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "show_delete": False}
        )

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        messages.error(
            request,
            "A version is history and is not deleted on its own: nothing was deleted. Roll "
            "the entry back to an earlier version instead, or delete the whole entry (admins) "
            "to delete its versions.",
        )
        return HttpResponseRedirect(reverse("admin:glossary_entryversion_changelist"))


class WorkflowEventAdmin(ShowScoped, DeskModelAdmin[WorkflowEvent]):
    """The audit log of every workflow step, across entries; written only by editorial.workflow."""

    list_display = ["at", "entry", "action", "from_status", "to_status", "actor", "comment"]
    list_filter = ["action"]
    show_path = "entry__show"
    list_select_related = ["entry", "actor"]
    search_fields = ["entry__term", "comment", "override_reason"]
    date_hierarchy = "at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
