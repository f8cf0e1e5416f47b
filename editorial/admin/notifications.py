"""The admin for email notifications: the log of what was sent, and people's choices.

Everyone chooses their own delivery at /admin/notifications/ (editorial.notify_views);
these pages let admins see what went out and change a person's choice.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from editorial.admin.base import DeskModelAdmin
from editorial.models import Notification, NotificationPreference


class NotificationAdmin(DeskModelAdmin[Notification]):
    list_display = ["created_at", "recipient", "kind", "subject", "outcome", "sent_at"]
    list_filter = ["kind", "outcome"]
    list_select_related = ["recipient"]
    search_fields = ["subject", "recipient__username", "recipient__email"]
    date_hierarchy = "created_at"

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
