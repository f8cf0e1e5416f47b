from typing import Any

from django.apps import apps
from django.contrib.auth.management import create_permissions

from editorial.permissions import ROLES, sync_roles
from glossary.management.database import DatabaseCommand


class Command(DatabaseCommand):
    help = (
        "Create or update the writer, fact-checker, editor and admin groups so each holds "
        "exactly the permissions defined in editorial/permissions.py. Safe to run again; "
        "permissions added to these groups by hand are removed."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        for app_config in apps.get_app_configs():
            create_permissions(app_config, verbosity=0)
        changes = sync_roles()
        for role in ROLES:
            added, removed = changes[role.value]
            self.stdout.write(f"{role.value}: {added} permission(s) added, {removed} removed")
        self.stdout.write(self.style.SUCCESS("Roles are up to date."))
