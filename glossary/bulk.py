"""A bulk write leaves the glossary as fast as one served for weeks: `bulk_write`.

`generate_glossary`, `import_glossary` (and its `--merge`), `import_entries`, `rerender`
and the data migrations that fill tables write thousands of rows at once. Served at
once afterwards, a glossary of 2,000 generated entries answered search at 5% of the
trivial view's speed, and at 32% after `VACUUM ANALYZE` (bench/README.md, the cold
runs), because:

- every listing row a publish wrote was still in the search indexes' pending lists (GIN's
  `fastupdate`), which each search reads in full until a vacuum merges them: 1,900
  buffers a search instead of 540;
- no page of any table was marked all-visible, so every index-only scan (the A–Z index,
  a letter, the sitemap, the counts) read the table's rows too;
- the rows publishing rewrote (an entry's three updates, the counts, the records) were
  still there, dead, for readers to step over;
- the planner's statistics described the empty tables the write began with, unless the
  write analysed them itself (only the generator did).

Autovacuum mends all of this eventually, at a time nobody chooses. So every bulk write
runs inside `bulk_write`, which also stores the first pages its publishes touched once,
at its end (glossary.stored_pages.storing_once), then vacuums and analyses the tables
it filled once they are committed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from functools import partial

from django.apps import apps
from django.db import DatabaseError, connection, transaction
from django.db.models import Model

from glossary.stored_pages import storing_once

logger = logging.getLogger(__name__)


def tables_of(*owners: str | type[Model]) -> list[str]:
    """The tables of these apps (by label) or models, their many-to-many tables included."""
    found: set[str] = set()
    for owner in owners:
        models = (
            apps.get_app_config(owner).get_models(include_auto_created=True)
            if isinstance(owner, str)
            else [owner]
        )
        for model in models:
            found.add(model._meta.db_table)
            for field in model._meta.local_many_to_many:
                through = getattr(field.remote_field, "through", None)
                if through is not None:
                    found.add(through._meta.db_table)
    return sorted(found)


@contextmanager
def bulk_write(tables: Iterable[str]) -> Iterator[None]:
    """Wrap a bulk write of `tables`. Publishes and re-renders inside store no first page
    each; at the end of the block the pages they touched are stored, each once. Then, once
    the write is committed (at once when no transaction is open), `refresh_statistics`.
    Nothing happens after a block that raised: the write is rolled back."""
    chosen = sorted(set(tables))
    with storing_once():
        yield
    transaction.on_commit(partial(refresh_statistics, chosen))


def refresh_statistics(tables: Iterable[str]) -> None:
    """`VACUUM (ANALYZE)` these tables on PostgreSQL: the planner's statistics, the
    visibility map index-only scans rely on, the search indexes' pending lists merged and
    dead rows gone. Inside a transaction (a test's, or a caller's that never commits
    before asking), where VACUUM cannot run, `ANALYZE` alone.

    A no-op on SQLite: it plans without statistics unless ANALYZE was ever run there, and
    its plans (the demo's, and bench/web's demo run) were chosen that way. A failure is
    logged and never undoes the write, which is committed: autovacuum will get there.
    """
    if connection.vendor != "postgresql":
        return
    existing = set(connection.introspection.table_names())
    names = [connection.ops.quote_name(t) for t in sorted(set(tables)) if t in existing]
    if not names:
        return
    inside = connection.in_atomic_block
    command = "ANALYZE" if inside else "VACUUM (ANALYZE)"
    # Inside a transaction, a savepoint: a failure leaves the transaction usable.
    guard = transaction.atomic() if inside else nullcontext()
    try:
        with guard, connection.cursor() as cursor:
            cursor.execute(f"{command} {', '.join(names)}")
    except DatabaseError:
        logger.exception("Could not %s the tables a bulk write filled: %s", command, names)
