"""Give writers, fact-checkers and editors the comment permissions (editorial.permissions).

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
    dependencies = [("editorial", "0014_comments_on_drafts")]

    operations = [migrations.RunPython(resync_roles, migrations.RunPython.noop)]
