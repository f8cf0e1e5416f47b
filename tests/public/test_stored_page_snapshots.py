"""A stored first page served without reading its rows again: while no transaction that
changed a table the page reads has committed since the snapshot its rows were read in
(glossary.page_fingerprints, the triggers of migration 0041).

These tests commit, as the site does (a test inside one transaction sees its own writes in
every snapshot, where no page keeps one). Each stored page is marked and its fingerprint
spoiled, so a page served as stored can only have come through the snapshot's check: the
rule they hold is that such a page is never one whose rows have changed since.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction
from django.test import Client

from glossary import page_fingerprints, publishing, stored_pages
from glossary.models import Entry, Organisation, StoredPage
from glossary.prepared import fetch
from tests.live import make_live_unchecked
from tests.public.test_stored_pages import EPISODE, ORGANISATION, PAGES, PERSON, guest

__all__ = ["guest"]

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_page_cache"),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="pages are stored on PostgreSQL only; elsewhere each is built per request",
    ),
]

ADDRESSES = (
    ("person", "gwen-guest"),
    ("organisation", "acme-labs"),
    ("episode", "stored-show/1/4"),
)
NOTE = "glossary_note_public_change"


def _store_all() -> None:
    stored_pages.store_all_first_pages()


def _mark_all() -> None:
    """Mark each stored page and spoil its fingerprint: served, it came by its snapshot."""
    for page in StoredPage.objects.all():
        page.parts = page.parts.replace("Gwen Guest", "STORED MARK")
        page.fingerprint = "0" * 64
        page.save()


def _served_as_stored(path: str) -> bool:
    return b"STORED MARK" in Client().get(path).content


def test_a_stored_page_is_served_by_its_snapshot_in_one_query(
    guest: dict[str, Any], django_assert_num_queries: Any
) -> None:
    _store_all()
    assert all(page.snapshot for page in StoredPage.objects.all())
    _mark_all()
    for path in PAGES:
        assert _served_as_stored(path)
    with django_assert_num_queries(1):
        assert _served_as_stored(PERSON)


def test_a_withdrawal_committed_after_the_snapshot_is_never_undone_by_the_stored_page(
    guest: dict[str, Any],
) -> None:
    """The pages stored before the withdrawal, put back whole, snapshot and all (a render
    that read the rows just before the withdrawal committed and wrote just after)."""
    _store_all()
    before = list(StoredPage.objects.values())
    with transaction.atomic():
        publishing.unpublish(guest["entries"][0])
    StoredPage.objects.all().delete()
    StoredPage.objects.bulk_create(StoredPage(**row) for row in before)
    for path in PAGES:
        body = Client().get(path).content
        assert b"Stored Alpha" not in body
        assert b"Stored Beta" in body


@pytest.mark.parametrize(
    "table",
    [
        "glossary_publicrecord",
        "glossary_publicrecordlink",
        "glossary_listingname",
        "glossary_listingcount",
        "glossary_listing",
    ],
)
def test_any_committed_write_to_a_table_a_page_reads_stops_serving_it_as_stored(
    guest: dict[str, Any], table: str
) -> None:
    _store_all()
    _mark_all()
    assert _served_as_stored(PERSON)
    with connection.cursor() as cursor:
        # A statement that changes no row is noted too.
        cursor.execute(f"DELETE FROM {table} WHERE FALSE")  # noqa: S608 - a constant
    for path in PAGES:
        assert not _served_as_stored(path)


def test_a_writer_saving_a_working_copy_leaves_the_stored_pages_served(
    guest: dict[str, Any],
) -> None:
    """Drafts are saved all day; readers' pages read none of their rows."""
    _store_all()
    _mark_all()
    Entry.objects.filter(pk=guest["entries"][0].pk).update(summary="A draft's new summary.")
    for path in PAGES:
        assert _served_as_stored(path)


def test_a_change_is_noted_whatever_the_session_set_the_flag_to(guest: dict[str, Any]) -> None:
    """The flag that a transaction has noted its change holds its own id: a value set for a
    whole session (or role) never stands for it."""
    _store_all()
    _mark_all()
    with connection.cursor() as cursor:
        cursor.execute("SET glossary.public_changed = 'yes'")
        try:
            cursor.execute("DELETE FROM glossary_publicrecord WHERE FALSE")
        finally:
            cursor.execute("RESET glossary.public_changed")
    assert not _served_as_stored(PERSON)


def test_storing_an_address_twice_at_once_stores_it_once(guest: dict[str, Any]) -> None:
    stored_pages.store_first_pages([ADDRESSES[0], ADDRESSES[0]], again=True)
    assert StoredPage.objects.filter(kind="person", slug="gwen-guest").count() == 1


def test_a_rolled_back_write_leaves_the_stored_page_served(guest: dict[str, Any]) -> None:
    _store_all()
    _mark_all()
    with pytest.raises(RuntimeError), transaction.atomic():
        Organisation.objects.filter(pk=guest["org"].pk).update(name="Never")
        with connection.cursor() as cursor:
            cursor.execute("UPDATE glossary_publicrecord SET name = name")
        raise RuntimeError("rolled back")
    assert _served_as_stored(PERSON)


def _another_transaction_writes_and_commits() -> None:
    """A later transaction id than this one's, completed: this transaction's own id is then
    below the next snapshot's xmax, and in no snapshot's list of those still running."""
    other = psycopg.connect(**connection.get_connection_params(), autocommit=True)
    try:
        other.execute("SELECT pg_current_xact_id()")
    finally:
        other.close()


def test_a_page_read_by_a_transaction_that_goes_on_to_change_its_rows_is_not_served(
    guest: dict[str, Any],
) -> None:
    """A transaction that wrote before storing (so its id is in no snapshot's terms) and
    then withdrew an entry: the pages it stored hold the rows before its withdrawal."""
    with transaction.atomic():
        StoredPage.objects.create(kind="person", slug="first-write", fingerprint="", parts="{}")
        _another_transaction_writes_and_commits()
        _store_all()
        in_between = list(StoredPage.objects.exclude(slug="first-write").values())
        assert all(row["snapshot_writer"] for row in in_between)
        publishing.unpublish(guest["entries"][0])
    StoredPage.objects.all().delete()
    StoredPage.objects.bulk_create(StoredPage(**row) for row in in_between)
    _mark_all()
    for path in PAGES:
        body = Client().get(path).content
        assert b"STORED MARK" not in body
        assert b"Stored Alpha" not in body


def test_a_transaction_that_changed_a_page_table_keeps_no_snapshot(guest: dict[str, Any]) -> None:
    with transaction.atomic():
        Organisation.objects.filter(pk=guest["org"].pk).update(name="Acme Research")
        make_live_unchecked(guest["entries"][1])
        stored_pages.store_first_pages(ADDRESSES, again=True)
        assert [page.snapshot for page in StoredPage.objects.all()] == ["", "", ""]


def test_a_snapshot_from_another_server_is_not_trusted(guest: dict[str, Any]) -> None:
    """A restored dump brings snapshots whose transaction ids are another server's."""
    _store_all()
    _mark_all()
    StoredPage.objects.update(snapshot_server="2020-01-01 00:00:00+00")
    for path in PAGES:
        assert not _served_as_stored(path)


def test_a_page_whose_rows_are_unchanged_keeps_the_snapshot_of_the_next_read(
    guest: dict[str, Any],
) -> None:
    """After a change elsewhere, the first reader finds the page's rows unchanged by their
    fingerprint, and the page keeps that reader's snapshot: the next is served as stored."""
    _store_all()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE glossary_publicrecord SET id = id WHERE FALSE")
    kept = StoredPage.objects.get(kind="person", slug="gwen-guest").snapshot
    Client().get(PERSON)
    again = StoredPage.objects.get(kind="person", slug="gwen-guest")
    assert again.snapshot != kept
    _mark_all()
    assert _served_as_stored(PERSON)


def test_a_failure_to_keep_the_snapshot_still_serves_the_page(
    guest: dict[str, Any], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _store_all()
    before = Client().get(PERSON)
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM glossary_publicrecord WHERE FALSE")

    def broken(**_: Any) -> Any:
        raise DatabaseError("could not obtain lock on row")

    monkeypatch.setattr(page_fingerprints, "prepared_cursor", broken)
    served = Client().get(PERSON)
    assert served.status_code == 200
    assert served.content == before.content
    assert "Could not keep the snapshot of the stored page person gwen-guest" in caplog.text


def _relations(plan: Any) -> set[str]:
    if isinstance(plan, dict):
        found = {plan["Relation Name"]} if "Relation Name" in plan else set()
        return found.union(*(_relations(value) for value in plan.values()))
    if isinstance(plan, list):
        return set().union(*(_relations(item) for item in plan))
    return set()


def _page_statements(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any]]]:
    """The statements the three pages run, as they run them, nothing stored."""
    StoredPage.objects.all().delete()
    statements: list[tuple[str, list[Any]]] = []

    def recorded(sql: str, params: list[Any], **kwargs: Any) -> Any:
        statements.append((sql, list(params)))
        return fetch(sql, params, **kwargs)

    monkeypatch.setattr(page_fingerprints, "fetch", recorded)
    for path in (PERSON, ORGANISATION, EPISODE):
        assert Client().get(path).status_code == 200
    assert len(statements) == 3
    return statements


def test_each_page_statement_is_short_enough_for_psycopg_to_keep_its_conversion(
    guest: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """psycopg converts a statement's placeholders once and keeps it only up to 4,096
    characters (psycopg._queries.MAX_CACHED_STATEMENT_LENGTH); beyond, every request pays
    for converting it again (0.4 ms of a stored page's ~1 ms)."""
    for sql, _ in _page_statements(monkeypatch):
        assert len(sql) <= 4096


def test_every_table_a_stored_page_statement_reads_notes_its_changes(
    guest: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The statements as the pages run them, planned: each table they read has the trigger
    that notes a change (else a change to it would leave a stale page served)."""
    statements = _page_statements(monkeypatch)
    read: set[str] = set()
    with connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
            plan = cursor.fetchone()[0]
            read |= _relations(json.loads(plan) if isinstance(plan, str) else plan)
    read -= {StoredPage._meta.db_table, "glossary_public_change"}
    assert {
        "glossary_publicrecord",
        "glossary_publicrecordlink",
        "glossary_listingname",
        "glossary_listingcount",
    } <= read
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE t.tgname = %s",
            [NOTE],
        )
        noted = {name for (name,) in cursor.fetchall()}
    assert read <= noted, f"read without a trigger: {sorted(read - noted)}"
