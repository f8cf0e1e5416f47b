"""Two saves of the same stale form at the same instant: the row lock lets exactly one in."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections

from glossary.models import Entry
from tests.personas import client_for
from tests.workflow.formdata import form_data

# SQLite serialises writers on its own and has no row locks to test.
pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locking is a PostgreSQL behaviour"
)


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_saves_of_the_same_form_let_exactly_one_through(
    ready_entry, writer, editor
):
    url = f"/admin/glossary/entry/{ready_entry.pk}/change/"
    sessions = {"wanda": client_for(writer), "ed": client_for(editor)}
    forms = {name: form_data(c.get(url).content.decode()) for name, c in sessions.items()}
    assert forms["wanda"]["edit_token"] == forms["ed"]["edit_token"]
    forms["wanda"]["body"] = "Wanda's version."
    forms["ed"]["body"] = "Ed's version."
    start = threading.Barrier(2)
    results: dict[str, Any] = {}

    def save(name: str) -> None:
        try:
            start.wait(timeout=10)
            results[name] = sessions[name].post(url, forms[name]).status_code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=save, args=(name,)) for name in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(results.values()) == [200, 302]
    winner = next(name for name, status in results.items() if status == 302)
    ready_entry.refresh_from_db()
    assert ready_entry.body == forms[winner]["body"]
    assert ready_entry.versions.count() == 2
    assert Entry.objects.get(pk=ready_entry.pk).updated_by.username in ("wanda_writer", "ed_editor")
