"""Give the roles the permissions of the refused edits and presence marks (admins read
everyone's refused edits; editorial.permissions). Data only, like 0015; `manage.py
setup_roles` does the same at any time.
"""

import importlib
from typing import Any

from django.db import migrations


def resync_roles(apps: Any, schema_editor: Any) -> None:
    importlib.import_module("editorial.migrations.0005_resync_roles_for_tags").resync_roles(
        apps, schema_editor
    )


class Migration(migrations.Migration):
    dependencies = [("editorial", "0019_who_is_editing")]

    operations = [migrations.RunPython(resync_roles, migrations.RunPython.noop)]
