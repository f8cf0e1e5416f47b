"""Give the admin role the permissions of show team memberships (0017); data only, like 0005.

`manage.py setup_roles` does the same at any time.
"""

import importlib
from typing import Any

from django.db import migrations


def resync_roles(apps: Any, schema_editor: Any) -> None:
    importlib.import_module("editorial.migrations.0005_resync_roles_for_tags").resync_roles(
        apps, schema_editor
    )


class Migration(migrations.Migration):
    dependencies = [("editorial", "0021_show_teams")]

    operations = [migrations.RunPython(resync_roles, migrations.RunPython.noop)]
