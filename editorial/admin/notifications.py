"""The admin for email notifications: the log of what was sent, and people's choices.

Everyone chooses their own delivery at /admin/notifications/ (editorial.notify_views);
these pages let admins see what went out and change a person's choice.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from editorial import tasks
from editorial.admin.base import DeskModelAdmin
from editorial.models import Notification, NotificationPreference


class NotificationAdmin(DeskModelAdmin[Notification]):
    list_display = ["created_at", "recipient", "kind", "subject", "outcome", "sent_at", "problem"]
    list_filter = ["kind", "outcome"]
    list_select_related = ["recipient"]
    search_fields = ["subject", "recipient__username", "recipient__email"]
    date_hierarchy = "created_at"
    actions = ["send_again"]

    @admin.display(description="delivery problem")
    def problem(self, obj: Notification) -> str:
        if not obj.error:
            return ""
        tries = f"{obj.attempts} failed attempt{'s' if obj.attempts != 1 else ''}"
        return f"{obj.error} ({tries})"

    @admin.action(description="Send the selected failed emails again")
    def send_again(self, request: HttpRequest, queryset: QuerySet[Notification]) -> None:
        """After the address or the mail settings are fixed: the rows wait again, their
        failure forgotten, and a delivery is queued once this commits."""
        with transaction.atomic():
            again = queryset.filter(outcome=Notification.Outcome.FAILED).update(
                sent_at=None,
                outcome=Notification.Outcome.WAITING,
                failed_at=None,
                attempts=0,
                error="",
            )
            if again:
                transaction.on_commit(lambda: tasks.deliver_notifications.delay())
        if not again:
            self.message_user(
                request, "None of the selected emails had failed; nothing to send.", messages.INFO
            )
            return
        self.message_user(
            request,
            f"{again} notification{'s' if again != 1 else ''} will be emailed again now (a "
            "daily-digest person's at the next digest). If it fails again, the dashboard says why.",
            messages.SUCCESS,
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class NotificationPreferenceAdmin(DeskModelAdmin[NotificationPreference]):
    list_display = ["user", "delivery", "last_digest_at", "changed_at"]
    list_filter = ["delivery"]
    list_select_related = ["user"]
    search_fields = ["user__username", "user__email"]
    fields = ["user", "delivery", "last_digest_at"]
    readonly_fields = ["last_digest_at"]
    autocomplete_fields = ["user"]
