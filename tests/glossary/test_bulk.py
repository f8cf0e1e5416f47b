"""Every bulk write leaves its tables vacuumed and analysed and its first pages stored
(glossary.bulk): `generate_glossary`, `import_glossary`, `import_entries`, `rerender` and the
data migrations that fill tables."""

from __future__ import annotations

import importlib
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection, transaction

from glossary import bulk
from glossary.models import PublicRecord, StoredPage

postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="statistics and stored pages: PostgreSQL only"
)

# What readers' statements read, all filled by a generated or imported glossary.
READ_BY_PAGES = [
    "glossary_entry",
    "glossary_entryversion",
    "glossary_listing",
    "glossary_listingname",
    "glossary_listingcount",
    "glossary_publicrecord",
    "glossary_publicrecordlink",
    "glossary_storedpage",
]


def maintained(tables: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Each table's (VACUUM, ANALYZE) counts, autovacuum's not included."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, vacuum_count, analyze_count FROM pg_stat_user_tables "
            "WHERE relname = ANY(%s)",
            [list(tables)],
        )
        return {name: (vacuums, analyses) for name, vacuums, analyses in cursor.fetchall()}


def assert_vacuumed_and_analysed(before: dict[str, tuple[int, int]], tables: list[str]) -> None:
    after = maintained(tables)
    stale = [t for t in tables if not (after[t][0] > before[t][0] and after[t][1] > before[t][1])]
    assert not stale, f"not vacuumed and analysed: {stale}"


def assert_every_first_page_stored() -> None:
    kinds = ["episode", "person", "organisation"]
    records = set(PublicRecord.objects.filter(kind__in=kinds).values_list("kind", "slug"))
    assert records and set(StoredPage.objects.values_list("kind", "slug")) == records


def generate(entries: int) -> None:
    call_command(
        "generate_glossary", entries=entries, seed=1, no_progress=True, stdout=io.StringIO()
    )


@postgresql
@pytest.mark.django_db(transaction=True)
def test_generate_glossary_leaves_its_tables_vacuumed_and_analysed_and_its_pages_stored(
    roles: None,
) -> None:
    filled = [*READ_BY_PAGES, "glossary_quote", "glossary_citation", "taggit_taggeditem"]
    before = maintained(filled)
    generate(12)
    assert_vacuumed_and_analysed(before, filled)
    assert_every_first_page_stored()


@postgresql
@pytest.mark.django_db(transaction=True)
def test_the_search_indexes_hold_no_pending_rows_after_generating(roles: None) -> None:
    # Each search reads a GIN index's pending list in full until a vacuum merges it: every
    # row a bulk write listed would stay there until autovacuum came (bench/README.md).
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pageinspect'")
        if cursor.fetchone() is None:
            pytest.skip("PostgreSQL's contrib module pageinspect is not installed")
    generate(12)
    with connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
        cursor.execute(
            "SELECT c.relname, (gin_metapage_info(get_raw_page(c.relname, 0))).n_pending_tuples "
            "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_am a ON a.oid = c.relam "
            "WHERE a.amname = 'gin' AND i.indrelid = 'glossary_listing'::regclass"
        )
        pending = dict(cursor.fetchall())
    assert pending and set(pending.values()) == {0}, pending


@postgresql
@pytest.mark.django_db(transaction=True)
def test_import_glossary_leaves_its_tables_vacuumed_and_analysed_and_its_pages_stored(
    roles: None, tmp_path: Path
) -> None:
    generate(12)
    path = tmp_path / "glossary.json"
    call_command("export_glossary", str(path), "--no-progress")
    call_command("flush", interactive=False)
    StoredPage.objects.all().delete()
    before = maintained(READ_BY_PAGES)
    call_command("import_glossary", str(path), "--no-progress", stdout=io.StringIO())
    assert_vacuumed_and_analysed(before, READ_BY_PAGES)
    assert_every_first_page_stored()


@postgresql
@pytest.mark.django_db(transaction=True)
def test_import_entries_leaves_the_tables_of_its_drafts_vacuumed_and_analysed(
    writer: User, tmp_path: Path
) -> None:
    (tmp_path / "entries.csv").write_text(
        "term,aliases,summary,tags,sources,body\n"
        "Scale-up fabric,NVLink domain,The tight network inside a rack.,networking,"
        "https://a.example/x Page,First paragraph.\n"
    )
    filled = ["glossary_entry", "glossary_entryname", "glossary_entryversion"]
    filled += ["glossary_citation", "glossary_source", "taggit_tag", "taggit_taggeditem"]
    before = maintained(filled)
    call_command("import_entries", str(tmp_path), "--as", writer.username, stdout=io.StringIO())
    assert_vacuumed_and_analysed(before, filled)


@postgresql
@pytest.mark.django_db(transaction=True)
def test_rerender_leaves_its_tables_vacuumed_and_analysed_and_every_page_stored(
    roles: None,
) -> None:
    generate(12)
    StoredPage.objects.all().delete()
    before = maintained(READ_BY_PAGES)
    call_command("rerender", stdout=io.StringIO())
    assert_vacuumed_and_analysed(before, READ_BY_PAGES)
    assert_every_first_page_stored()


@postgresql
@pytest.mark.django_db(transaction=True)
def test_a_data_migration_that_fills_a_table_leaves_it_vacuumed_and_analysed(
    roles: None,
) -> None:
    generate(12)
    through = "glossary_entryversion_shows"
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {through}")  # noqa: S608 - a constant
    migration = importlib.import_module("glossary.migrations.0029_a_version_names_its_shows")
    before = maintained([through])
    # As `migrate` runs it: in the migration's transaction, committed after.
    with connection.schema_editor(atomic=True) as schema_editor:
        migration.index_shows(apps, schema_editor)
    assert_vacuumed_and_analysed(before, [through])


@postgresql
@pytest.mark.django_db(transaction=True)
def test_statistics_wait_for_the_commit_and_a_rolled_back_write_refreshes_none(
    roles: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    refreshed: list[list[str]] = []
    monkeypatch.setattr(bulk, "refresh_statistics", refreshed.append)

    class Undone(Exception):
        pass

    with pytest.raises(Undone), bulk.bulk_write(["glossary_entry"]), transaction.atomic():
        raise Undone
    assert refreshed == []
    with transaction.atomic():
        with bulk.bulk_write(["glossary_entry", "glossary_entry"]):
            pass
        assert refreshed == []  # not before the commit
    assert refreshed == [["glossary_entry"]]


@postgresql
@pytest.mark.django_db
def test_inside_a_transaction_the_tables_are_analysed_only() -> None:
    # VACUUM cannot run in a transaction; ANALYZE can, and is kept if the transaction is.
    statements: list[str] = []

    def record(execute: Any, sql: str, *args: Any) -> Any:
        statements.append(sql)
        return execute(sql, *args)

    with connection.execute_wrapper(record):
        bulk.refresh_statistics(["glossary_entry", "no_such_table"])
    maintenance = [s for s in statements if s.startswith(("ANALYZE", "VACUUM"))]
    assert maintenance == ['ANALYZE "glossary_entry"']


def test_tables_of_an_app_include_its_many_to_many_tables() -> None:
    tables = bulk.tables_of("glossary")
    assert {"glossary_entryversion", "glossary_entryversion_shows"} <= set(tables)
    assert bulk.tables_of(User) == ["auth_user", "auth_user_groups", "auth_user_user_permissions"]
