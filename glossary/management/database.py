"""Commands that read or write the glossary say so in one sentence when the database
is not ready for them, instead of a traceback from the first missing table.

Every such command subclasses `DatabaseCommand` (or calls `require_migrated` first):
`import_glossary` run on a fresh clone before `migrate` says "The database has no
tables yet: run `python manage.py migrate` first." and exits with status 1.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

MIGRATE = "run `python manage.py migrate` first."


def require_migrated(using: str = DEFAULT_DB_ALIAS) -> None:
    """Raise CommandError naming the problem unless every migration is applied."""
    connection = connections[using]
    tables = set(connection.introspection.table_names())
    if MigrationRecorder.Migration._meta.db_table not in tables:
        raise CommandError(f"The database has no tables yet: {MIGRATE}")
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        first = plan[0][0]
        raise CommandError(
            f"The database is {len(plan)} migration{'s' if len(plan) != 1 else ''} behind "
            f"the code (the first is {first.app_label}.{first.name}): {MIGRATE}"
        )


class DatabaseCommand(BaseCommand):
    """A management command that needs the glossary's tables: it refuses, in one
    sentence, on a database that `migrate` has not brought up to date."""

    def execute(self, *args: Any, **options: Any) -> Any:
        require_migrated(options.get("database") or DEFAULT_DB_ALIAS)
        return super().execute(*args, **options)
