"""Two stores of first pages at once (glossary.stored_pages.write_stored_pages): publishes
that touch the same episode, person or organisation store its page in the same moment, and
neither may fail the other by deadlock."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, transaction

from glossary.models import StoredPage
from glossary.page_fingerprints import Seen
from glossary.stored_pages import write_stored_pages
from tests.concurrency import backends_waiting_on_a_lock, in_thread, poll

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="pages are stored on PostgreSQL"),
]


def _page(slug: str, parts: str) -> tuple[str, str, str, Seen]:
    return ("person", slug, parts, Seen(fingerprint=f"{slug}-{parts}"))


def _waiting_stores() -> int:
    return backends_waiting_on_a_lock(f"%INSERT INTO {StoredPage._meta.db_table}%")


def test_two_stores_given_the_same_pages_in_opposite_orders_never_deadlock() -> None:
    """One store holds page A and then wants page B; the other is given B before A. Taken in
    the order given, the second would hold B and wait on A while the first waits on B, and
    PostgreSQL would fail one of them. Taken in address order, the second waits on A holding
    nothing, and both finish."""
    write_stored_pages([_page("a", "old"), _page("b", "old")])
    holding, go_on = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def first() -> str:
        with transaction.atomic():
            write_stored_pages([_page("a", "first")])
            holding.set()
            go_on.wait(30)
            write_stored_pages([_page("b", "first")])
        return "stored"

    def second() -> str:
        write_stored_pages([_page("b", "second"), _page("a", "second")])
        return "stored"

    one, two = in_thread("first", results, first), in_thread("second", results, second)
    one.start()
    try:
        poll(holding.is_set, "the first store to hold page a")
        two.start()
        poll(lambda: _waiting_stores() == 1, "the second store to wait on a page")
    finally:
        go_on.set()
        one.join(30)
        two.join(30)

    assert results == {"first": "stored", "second": "stored"}
    # The second waited for the first to commit, so its pages are the ones kept.
    kept = dict(StoredPage.objects.values_list("slug", "parts"))
    assert kept == {"a": "second", "b": "second"}
