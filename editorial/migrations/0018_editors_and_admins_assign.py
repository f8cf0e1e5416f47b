"""Give editors the permission to assign entries, and every role the view of assignments
(editorial.permissions).

Data only, like 0005; `manage.py setup_roles` does the same at any time.
"""

import importlib
from typing import Any

from django.db import migrations


def resync_roles(apps: Any, schema_editor: Any) -> None:
    importlib.import_module("editorial.migrations.0005_resync_roles_for_tags").resync_roles(
        apps, schema_editor
    )


class Migration(migrations.Migration):
    dependencies = [("editorial", "0017_assignments_and_calendar_feeds")]

    operations = [migrations.RunPython(resync_roles, migrations.RunPython.noop)]
