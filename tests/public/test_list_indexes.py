"""A-Z lists read their first page from an index in term order, on both databases."""

import pytest
from django.db import connection

from glossary import selectors


@pytest.mark.django_db
def test_the_api_entry_list_reads_the_term_index():
    rows = selectors.live_versions().order_by("term").values_list("term", "slug", "summary")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Too few rows for the planner to choose the index unaided: forbid the sort's
            # way in, so only an ordered walk of an index can serve the query.
            cursor.execute("SET enable_seqscan = off")
            cursor.execute("SET enable_sort = off")
        plan = rows[:50].explain()
        if connection.vendor == "postgresql":
            cursor.execute("RESET enable_seqscan")
            cursor.execute("RESET enable_sort")
    assert "entryversion_term_idx" in plan
