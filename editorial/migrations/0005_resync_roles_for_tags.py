"""Give the roles the permissions added since they were created: editors manage tags.

Data only, like 0002; `manage.py setup_roles` does the same at any time.
"""

from typing import Any

from django.db import migrations


def resync_roles(apps: Any, schema_editor: Any) -> None:
    from django.contrib.auth.management import create_permissions

    # Permissions are normally created after all migrations ran; the groups need them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None

    from editorial.permissions import sync_roles

    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [("editorial", "0004_share_links_that_can_be_revoked")]

    operations = [migrations.RunPython(resync_roles, migrations.RunPython.noop)]
