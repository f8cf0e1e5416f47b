"""The dashboard finds failing published entries with the SQL form of the blocking checks.

`editorial.gates.may_fail_blocking` must find every entry a blocking check fails
on (the real checks then run on what it finds); each case below breaks one check.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from editorial import gates, workflow
from glossary.models import (
    Citation,
    Disclosure,
    Entry,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    Quote,
    Source,
    Sponsorship,
)

BREAKS: dict[str, Callable[[Entry, Episode, Person], object]] = {
    "an empty summary": lambda e, ep, p: Entry.objects.filter(pk=e.pk).update(summary="  "),
    "no citation": lambda e, ep, p: Citation.objects.filter(entry=e).delete(),
    "a stale citation": lambda e, ep, p: Citation.objects.filter(entry=e).update(
        checked_on=datetime.date(2020, 1, 1)
    ),
    "a citation never checked": lambda e, ep, p: Citation.objects.filter(entry=e).update(
        checked_on=None
    ),
    "a broken source": lambda e, ep, p: Source.objects.filter(citations__entry=e).update(
        health=Source.Health.BROKEN
    ),
    "a quote past the episode's end": lambda e, ep, p: Quote.objects.create(
        entry=e, episode=ep, speaker=p, start=30, end=(ep.duration or 0) + 5, text="q"
    ),
    "a reference past the episode's end": lambda e, ep, p: EpisodeReference.objects.create(
        entry=e, episode=ep, speaker=p, at=(ep.duration or 0) + 5, text="r"
    ),
    "a timed disclosure without its episode": lambda e, ep, p: Disclosure.objects.create(
        entry=e, kind="other", at=30, text="d"
    ),
    "a sponsored episode without a disclosure": lambda e, ep, p: (
        Sponsorship.objects.create(
            episode=ep, organisation=Organisation.objects.create(name="Acme", slug="acme")
        ),
        Quote.objects.create(entry=e, episode=ep, speaker=p, start=30, text="q"),
    ),
}


@pytest.fixture
def published(entry_in_review: Callable[..., Entry], editor: User) -> Entry:
    entry = entry_in_review("Interconnect")
    workflow.publish_entry(entry, user=editor)
    return entry


def found(entry: Entry) -> bool:
    return Entry.objects.filter(gates.may_fail_blocking(), pk=entry.pk).exists()


def fails(entry: Entry) -> bool:
    entry.refresh_from_db()
    return bool(gates.blocking_failures(gates.run_gates(entry)))


def test_an_entry_passing_every_check_is_not_a_candidate(published: Entry) -> None:
    assert not fails(published) and not found(published)


@pytest.mark.parametrize("case", list(BREAKS))
def test_each_blocking_failure_is_found_by_the_sql_form(
    case: str, published: Entry, episode: Episode, person: Person
) -> None:
    BREAKS[case](published, episode, person)
    assert fails(published), case
    assert found(published), case


def test_a_disclosed_sponsorship_is_not_a_candidate(
    published: Entry, episode: Episode, person: Person
) -> None:
    BREAKS["a sponsored episode without a disclosure"](published, episode, person)
    Disclosure.objects.create(entry=published, kind="sponsorship", episode=episode)
    assert not fails(published) and not found(published)


def test_the_dashboard_lists_a_failing_published_entry(
    client: Client, editor: User, published: Entry
) -> None:
    BREAKS["a broken source"](published, None, None)  # type: ignore[arg-type]
    client.force_login(editor)
    body = client.get("/admin/dashboard/").content.decode()
    section = body.split('id="published-failing"')[1].split("</section>")[0]
    assert "Interconnect" in section


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's parallel query")
def test_the_search_for_failing_entries_runs_without_parallel_workers(published: Entry) -> None:
    """Each parallel worker built every hash table of the search again: at 10,000 entries
    two workers made it take twice as long (92 against 46 ms). Parallel plans are made as
    cheap as they can be here, so the planner would take one if a worker were allowed."""
    candidates = Entry.objects.published().filter(gates.may_fail_blocking())
    sql, params = candidates.query.sql_with_params()
    with connection.cursor() as cursor:
        for setting in (
            "parallel_setup_cost = 0",
            "parallel_tuple_cost = 0",
            "min_parallel_table_scan_size = 0",
            "min_parallel_index_scan_size = 0",
        ):
            cursor.execute(f"SET LOCAL {setting}")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(line for (line,) in cursor.fetchall())
    assert "Gather" not in plan, plan


# What each of the dashboard's lists filters on, and the index that finds its rows. (The
# aging report's index, entry_live_published_at_idx, is left out: on a table this small
# any index of live entries serves its plan as cheaply, and the planner picks one by
# chance; at 10,000 entries it is the one taken, bench/README.md.)
INDEXED_LISTS = {
    '("glossary_entry"."has_unpublished_changes" AND': "entry_live_unpublished_idx",
    '"glossary_citation"."checked_on" IS NULL': "citation_checked_on_idx",
    '"editorial_notification"."failed_at" IS NOT NULL': "notification_failed_idx",
}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_the_dashboards_lists_find_their_rows_by_index(
    client: Client, editor: User, published: Entry
) -> None:
    """The lists of live entries with changes and of citations never checked read only
    their rows: without an index each read every row of its table (15 ms for the entries
    at 10,000). A small table is read whole whenever it can be, so the plans are asked for
    with sequential scans ruled out."""
    statements = []

    def keep(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements.append((sql, params))
        return execute(sql, params, many, context)

    client.force_login(editor)
    with connection.execute_wrapper(keep):
        assert client.get("/admin/dashboard/").status_code == 200
    plans = {}
    with connection.cursor() as cursor:
        # Statistics of these rows, not of whatever the tables held when last analysed:
        # with stale ones the planner weighed the indexes on what was no longer there.
        cursor.execute("ANALYZE glossary_entry, glossary_citation, editorial_notification")
        cursor.execute("SET LOCAL enable_seqscan = off")
        for condition in INDEXED_LISTS:
            sql, params = next(s for s in statements if condition in s[0])
            cursor.execute(f"EXPLAIN {sql}", params)
            plans[condition] = "\n".join(line for (line,) in cursor.fetchall())
    for condition, index in INDEXED_LISTS.items():
        assert index in plans[condition], plans[condition]
