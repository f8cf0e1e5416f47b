"""The admin for scheduled publishing: editors pick a time in the newsroom's zone.

Registered from editorial/admin.py. Times are typed and shown in
settings.NEWSROOM_TIME_ZONE (the form names it, with its current abbreviation)
and stored in UTC. Only people allowed to schedule (editorial.permissions,
Action.SCHEDULE) can add, change or cancel; a row that has run is read-only.
"""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AdminDateWidget, AdminTimeWidget
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from editorial import scheduling
from editorial.models import InterestDisclosureWaiver, ScheduledAction
from editorial.permissions import Action, can


class ScheduledActionForm(forms.ModelForm):
    due_date = forms.DateField(label="Date", widget=AdminDateWidget)
    due_time = forms.TimeField(
        label="Time", widget=AdminTimeWidget, help_text="24-hour clock, e.g. 09:00 or 17:30."
    )

    class Meta:
        model = ScheduledAction
        fields = ["entry", "action"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        zone = scheduling.zone_label()
        self.fields["due_date"].help_text = f"Times are in {zone}."
        self.fields["due_time"].help_text = (
            f"Times are in {zone}; 24-hour clock, e.g. 09:00 or 17:30. The entry is "
            "published at the scheduler's first run after this (within a minute), and only "
            "if it passes the publish checks then."
        )
        if self.instance.pk and self.instance.due_at:
            local = scheduling.to_newsroom(self.instance.due_at)
            self.initial.setdefault("due_date", local.date())
            self.initial.setdefault("due_time", local.time().replace(second=0, microsecond=0))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        day, time = data.get("due_date"), data.get("due_time")
        if day is None or time is None:
            return data
        try:
            due_at = scheduling.from_newsroom(datetime.datetime.combine(day, time))
        except ValidationError as exc:
            raise ValidationError({"due_time": exc.messages}) from None
        if due_at <= timezone.now():
            raise ValidationError(
                {
                    "due_time": f"{scheduling.format_newsroom(due_at)} has already passed; "
                    "choose a time in the future."
                }
            )
        self.instance.due_at = due_at
        entry, action = data.get("entry"), data.get("action")
        if entry is not None and action:
            waiting = ScheduledAction.objects.filter(
                entry=entry, action=action, state=ScheduledAction.State.PENDING
            ).exclude(pk=self.instance.pk)
            if waiting.exists():
                raise ValidationError(
                    f"“{entry.term}” already has a {action} waiting; change that one's time "
                    "or cancel it first."
                )
        return data


@admin.register(ScheduledAction)
class ScheduledActionAdmin(admin.ModelAdmin):
    form = ScheduledActionForm
    list_display = ["entry", "action", "when", "state", "created_by", "result"]
    list_filter = ["state", "action"]
    list_select_related = ["entry", "created_by"]
    search_fields = ["entry__term"]
    autocomplete_fields = ["entry"]
    actions = ["cancel_selected"]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and obj.state != ScheduledAction.State.PENDING:
            return [(None, {"fields": ["entry", "action", "when", "state", "result"]})]
        return [
            (
                f"Times are in {scheduling.zone_label()}",
                {"fields": ["entry", "action", ("due_date", "due_time")]},
            )
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and obj.state != ScheduledAction.State.PENDING:
            return ["entry", "action", "when", "state", "result"]
        return []

    @admin.display(description="when", ordering="due_at")
    def when(self, obj: ScheduledAction) -> str:
        return scheduling.format_newsroom(obj.due_at)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can(request.user, Action.VIEW)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.VIEW)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.SCHEDULE)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.state != ScheduledAction.State.PENDING:
            return False
        return can(request.user, Action.SCHEDULE)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # cancel instead: the record of what was planned stays

    def save_model(
        self, request: HttpRequest, obj: ScheduledAction, form: Any, change: bool
    ) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def response_add(self, request: HttpRequest, obj: ScheduledAction, *args: Any) -> Any:
        self.message_user(
            request,
            f"{obj.get_action_display()} of “{obj.entry.term}” scheduled for "
            f"{scheduling.format_newsroom(obj.due_at)}. If the publish checks fail then, it "
            "is not published and the dashboard says why.",
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


@admin.register(InterestDisclosureWaiver)
class InterestDisclosureWaiverAdmin(admin.ModelAdmin):
    list_display = ["entry", "organisation", "decided_by", "decided_at", "reason"]
    list_select_related = ["entry", "organisation", "decided_by"]
    search_fields = ["entry__term", "organisation__name"]
    readonly_fields = ["entry", "organisation", "decided_by", "decided_at"]
    fields = ["entry", "organisation", "decided_by", "decided_at", "reason"]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can(request.user, Action.VIEW)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.VIEW)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made from the publish checks' "mark it not needed" link

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can(request.user, Action.PUBLISH)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Deleting brings the warning back: the disclosure is needed after all.
        return can(request.user, Action.PUBLISH)
