"""The admin for scheduled publishing, and for interest-disclosure decisions.

Editors pick a time in the newsroom's zone. Times are typed and shown in
settings.NEWSROOM_TIME_ZONE (every desk page names it once, at the top, with its
current abbreviation; the shortcuts fill it in) and stored in UTC. Only people
allowed to schedule (editorial.permissions, Action.SCHEDULE) can add, change or
cancel; a row that has run is read-only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from editorial import newsroom, scheduling
from editorial.admin.base import DeskModelAdmin, ShowScoped
from editorial.admin.forms import ScheduledActionForm
from editorial.models import InterestDisclosureWaiver, ScheduledAction
from editorial.permissions import Action, acting_user, can


class ScheduledActionAdmin(ShowScoped, DeskModelAdmin[ScheduledAction]):
    show_path = "entry__show"
    form = ScheduledActionForm
    list_display = ["entry", "action", "when", "state", "approved_by", "result"]
    list_filter = ["state", "action"]
    list_select_related = ["entry", "approved_by"]
    search_fields = ["entry__term"]
    autocomplete_fields = ["entry"]
    actions = ["cancel_selected"]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and obj.state != ScheduledAction.State.PENDING:
            return [
                (
                    None,
                    {
                        "fields": [
                            *("entry", "action", "version", "approved_by", "when", "state"),
                            "result",
                        ]
                    },
                )
            ]
        fields: list[Any] = [
            *("entry", "action", ("due_date", "due_time")),
            ("shown_version", "seen_through"),
        ]
        if obj is not None:
            fields[-1:-1] = ["version", "approved_by"]
        return [
            (
                None,
                {
                    "fields": fields,
                    "description": "A publish puts out the version this page names when you "
                    "save it: saving approves it, and it is then done as you. If anyone saves "
                    "the entry, unpublishes it or sends it back before the time, it is not "
                    "published and the dashboard says why.",
                },
            )
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and obj.state != ScheduledAction.State.PENDING:
            return ["entry", "action", "version", "approved_by", "when", "state", "result"]
        if obj is not None:
            # A row approves one entry's version: another entry is another schedule (the
            # page showed nothing of it), made by cancelling this one and adding that.
            return ["entry", "version", "approved_by"]
        return ["version", "approved_by"]

    @admin.display(description="when", ordering="due_at")
    def when(self, obj: ScheduledAction) -> str:
        return newsroom.format_instant(obj.due_at)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can(request.user, Action.VIEW, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.VIEW)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.SCHEDULE)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.state != ScheduledAction.State.PENDING:
            return False
        return can(request.user, Action.SCHEDULE, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # cancel instead: the record of what was planned stays

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        # The form refuses a schedule its saver may not approve (ScheduledActionForm.clean).
        return type(form.__name__, (form,), {"approver": acting_user(request)})

    def save_model(
        self, request: HttpRequest, obj: ScheduledAction, form: Any, change: bool
    ) -> None:
        if not change:
            obj.created_by = acting_user(request)
        # Saving the schedule approves the version the page showed (the form checked it is
        # still the newest) and what had happened to the entry by now, as the saver.
        obj.approved_by = acting_user(request)
        obj.version = form.cleaned_data.get("shown_version")
        obj.seen_event = form.cleaned_data.get("seen_through")
        super().save_model(request, obj, form, change)

    def response_add(self, request: HttpRequest, obj: ScheduledAction, *args: Any) -> Any:
        self.message_user(
            request,
            f"{obj.get_action_display()} of “{obj.entry.term}”"
            + (f" (version {obj.version})" if obj.version else "")
            + f" scheduled for {newsroom.format_instant(obj.due_at)}. If the publish checks "
            "fail then, or someone saves the entry before, it is not published and the "
            "dashboard says why.",
            messages.SUCCESS,
        )
        return self.response_post_save_add(request, obj)

    @admin.action(description="Cancel the selected scheduled actions", permissions=["change"])
    def cancel_selected(self, request: HttpRequest, queryset: QuerySet[ScheduledAction]) -> None:
        cancelled = sum(scheduling.cancel(row, user=request.user) for row in queryset)
        skipped = queryset.count() - cancelled
        text = f"Cancelled {cancelled} scheduled action{'s' if cancelled != 1 else ''}."
        if skipped:
            text += f" {skipped} had already run or been cancelled and were left as they were."
        self.message_user(request, text, messages.SUCCESS if cancelled else messages.WARNING)


class InterestDisclosureWaiverAdmin(ShowScoped, DeskModelAdmin[InterestDisclosureWaiver]):
    show_path = "entry__show"
    list_display = ["entry", "organisation", "decided_by", "decided_at", "reason"]
    list_select_related = ["entry", "organisation", "decided_by"]
    search_fields = ["entry__term", "organisation__name"]
    readonly_fields = ["entry", "organisation", "decided_by", "decided_at"]
    fields = ["entry", "organisation", "decided_by", "decided_at", "reason"]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can(request.user, Action.VIEW, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.VIEW)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made from the publish checks' "mark it not needed" link

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can(request.user, Action.PUBLISH, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Deleting brings the warning back: the disclosure is needed after all.
        return can(request.user, Action.PUBLISH, obj)
