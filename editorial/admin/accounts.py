"""Django's user and group admins and django-axes' sign-in records, with the desk's guard.

They are registered by their own apps; here they are registered again with
DeskModelAdmin in front (editorial.admin.base), so a hand-typed filter on them
(``?groups=99999999999999999999``, ``?attempt_time__year=9999``) shows the list
unfiltered instead of a 500, like every other list in the desk.
"""

from __future__ import annotations

from typing import Any

from axes.admin import AccessAttemptAdmin, AccessFailureLogAdmin, AccessLogAdmin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import Model
from django.http import HttpRequest

from editorial.admin.base import DeskModelAdmin


class DeskUserAdmin(DeskModelAdmin[User], UserAdmin[User]):
    """Django's user admin. An account that wrote versions, took workflow steps, edited
    shared records or set a show's feed URL is kept (those foreign keys PROTECT it): its
    delete page says why and offers deactivating (templates/admin/auth/user/)."""

    # Of what keeps an account, the delete page lists this many (a writer has thousands).
    protected_shown = 20

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
    AXES_ENABLE_ADMIN may be off)."""
    for model, model_admin in GUARDED.items():
        if admin.site.is_registered(model):
            admin.site.unregister(model)
            admin.site.register(model, model_admin)
