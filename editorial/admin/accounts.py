"""Django's user and group admins and django-axes' sign-in records, with the desk's guard.

They are registered by their own apps; here they are registered again with
DeskModelAdmin in front (editorial.admin.base), so a hand-typed filter on them
(``?groups=99999999999999999999``, ``?attempt_time__year=9999``) shows the list
unfiltered instead of a 500, like every other list in the desk.
"""

from __future__ import annotations

import logging
from typing import Any

from axes.admin import AccessAttemptAdmin, AccessFailureLogAdmin, AccessLogAdmin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import Exists, Model, OuterRef, QuerySet
from django.http import HttpRequest
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from editorial import twofactor
from editorial.admin.base import DeskModelAdmin
from editorial.models import ShowMembership

logger = logging.getLogger(__name__)


class ShowMembershipInline(admin.TabularInline[ShowMembership, User]):
    """The person's show teams, on their account page (docs/shows-and-teams.md)."""

    model = ShowMembership
    extra = 0
    fields = ["show", "role"]
    verbose_name = "show team"
    verbose_name_plural = "Show teams (none: the role from their group, on the whole network)"


class DeskUserAdmin(DeskModelAdmin[User], UserAdmin[User]):
    """Django's user admin. An account that wrote versions, took workflow steps, edited
    shared records or set a show's feed URL is kept (those foreign keys PROTECT it): its
    delete page says why and offers deactivating (templates/admin/auth/user/)."""

    # Of what keeps an account, the delete page lists this many (a writer has thousands).
    protected_shown = 20
    list_display = ("username", "email", "first_name", "last_name", "is_staff", "two_factor")
    actions = ["reset_two_factor"]
    inlines = [ShowMembershipInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        enrolled = TOTPDevice.objects.filter(user=OuterRef("pk"), confirmed=True)
        return super().get_queryset(request).annotate(two_factor_on=Exists(enrolled))

    @admin.display(boolean=True, description="Two-factor login", ordering="two_factor_on")
    def two_factor(self, user: User) -> bool:
        return bool(getattr(user, "two_factor_on", False))

    @admin.action(
        description="Reset two-factor login (they set up a new app at their next sign-in)",
        permissions=["change"],
    )
    def reset_two_factor(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        reset = []
        for user in queryset.order_by("username"):
            if twofactor.reset(user):
                self.log_change(
                    request,
                    user,
                    "Reset two-factor login: removed the authenticator app and recovery codes.",
                )
                logger.warning(
                    "two-factor login reset",
                    extra={"user_id": user.pk, "by_user_id": request.user.pk},
                )
                reset.append(user.get_username())
        if reset:
            self.message_user(
                request,
                f"Two-factor login reset for {', '.join(reset)}: each sets up a new app at "
                "their next sign-in (or signs in with a password alone where it is not "
                "required).",
                messages.SUCCESS,
            )
        else:
            self.message_user(
                request, "None of them had two-factor login on: nothing to reset.", messages.INFO
            )

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        to_delete, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        if protected:
            # Refused for what keeps the account, whoever asks: Django's page would first
            # say the asker may not delete workflow steps (the protected rows themselves).
            perms_needed = set()
        if len(protected) > self.protected_shown:
            more = len(protected) - self.protected_shown
            protected = [*protected[: self.protected_shown], f"and {more:,} more"]
        return to_delete, counts, perms_needed, protected


class DeskGroupAdmin(DeskModelAdmin[Group], GroupAdmin):
    pass


class ShowMembershipAdmin(DeskModelAdmin[ShowMembership]):
    """Every show's team in one list: who works on which show, in which role."""

    list_display = ["show", "user", "role"]
    list_filter = ["show", "role"]
    list_select_related = ["show", "user"]
    search_fields = ["user__username", "user__first_name", "user__last_name", "show__name"]
    autocomplete_fields = ["user", "show"]


class DeskAccessAttemptAdmin(DeskModelAdmin[AccessAttempt], AccessAttemptAdmin):  # type: ignore[misc]
    pass


class DeskAccessLogAdmin(DeskModelAdmin[AccessLog], AccessLogAdmin):  # type: ignore[misc]
    pass


class DeskAccessFailureLogAdmin(DeskModelAdmin[AccessFailureLog], AccessFailureLogAdmin):  # type: ignore[misc]
    pass


GUARDED: dict[type[Model], type[admin.ModelAdmin]] = {  # type: ignore[type-arg]
    User: DeskUserAdmin,
    Group: DeskGroupAdmin,
    AccessAttempt: DeskAccessAttemptAdmin,
    AccessLog: DeskAccessLogAdmin,
    AccessFailureLog: DeskAccessFailureLogAdmin,
}


def register() -> None:
    """Put the guarded admins in place of those their apps registered (if they did:
    AXES_ENABLE_ADMIN may be off), and take django-otp's device admins away."""
    for model, model_admin in GUARDED.items():
        if admin.site.is_registered(model):
            admin.site.unregister(model)
            admin.site.register(model, model_admin)
    for device_model in (TOTPDevice, StaticDevice):
        if admin.site.is_registered(device_model):
            admin.site.unregister(device_model)
