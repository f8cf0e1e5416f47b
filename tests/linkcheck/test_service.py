"""Selecting, claiming, checking and recording sources (no Celery involved)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from editorial.linkcheck import service
from editorial.linkcheck.state import SourceRow
from glossary.models import Citation, Entry, LinkCheck, Source
from tests.linkcheck.server import LocalSite

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


def test_due_sources_come_never_checked_first_and_skip_those_not_due(make_source) -> None:
    checked_due = make_source(
        last_checked_at=NOW - timedelta(days=20), next_check_at=NOW - timedelta(days=1)
    )
    never = make_source()
    make_source(last_checked_at=NOW - timedelta(days=1), next_check_at=NOW + timedelta(days=13))
    assert list(service.due_sources(NOW)) == [never, checked_due]


def test_a_claim_is_taken_once(make_source) -> None:
    sources = [make_source() for _ in range(3)]
    first = service.claim_due(NOW)
    second = service.claim_due(NOW)
    assert first.source_ids == sorted(s.pk for s in sources)
    assert second.source_ids == []
    assert set(Source.objects.values_list("next_check_at", flat=True)) == {first.lease}


def test_a_claim_lost_with_its_worker_comes_due_again_after_the_lease(
    make_source, settings
) -> None:
    make_source()
    claim = service.claim_due(NOW)
    later = NOW + timedelta(seconds=settings.LINKCHECK_CLAIM_SECONDS + 1)
    assert service.claim_due(later).source_ids == claim.source_ids


def test_checking_a_claim_records_a_check_and_updates_the_source(
    server: LocalSite, make_source
) -> None:
    source = make_source(url=server.url("/redirect/301?to=/ok"))
    claim = service.claim_sources([source.pk])
    service.check_claimed(claim)
    source.refresh_from_db()
    check = LinkCheck.objects.get(source=source)
    assert check.outcome == "moved"
    assert check.status_code == 200
    assert check.final_url == server.url("/ok")
    assert check.redirects[0]["status"] == 301
    assert check.elapsed_ms is not None and check.fingerprint
    assert source.health == Source.Health.MOVED
    assert source.suggested_url == server.url("/ok")
    assert source.last_fingerprint == check.fingerprint
    assert source.next_check_at > timezone.now() + timedelta(days=13)


def test_a_source_cited_by_many_entries_is_fetched_once_per_run(
    server: LocalSite, make_source, make_entry
) -> None:
    source = make_source(url=server.url("/ok"))
    for _ in range(3):
        Citation.objects.create(entry=make_entry(), source=source)
    service.check_claimed(service.claim_due())
    assert LinkCheck.objects.filter(source=source).count() == 1
    assert server.requests == [("GET", "/ok")]


def test_running_the_same_claim_twice_records_once_and_fetches_once(
    server: LocalSite, make_source
) -> None:
    source = make_source(url=server.url("/ok"))
    claim = service.claim_sources([source.pk])
    service.check_claimed(claim)
    service.check_claimed(claim)  # e.g. a task redelivered after its worker died
    assert LinkCheck.objects.filter(source=source).count() == 1
    assert len(server.requests) == 1


def test_a_newer_claim_wins_over_an_older_one(server: LocalSite, make_source) -> None:
    source = make_source(url=server.url("/ok"))
    old = service.claim_sources([source.pk], now=timezone.now() - timedelta(minutes=5))
    new = service.claim_sources([source.pk])
    service.check_claimed(old)
    assert LinkCheck.objects.count() == 0
    service.check_claimed(new)
    assert LinkCheck.objects.count() == 1


def test_sources_cited_only_by_archived_entries_are_checked_less_often(
    server: LocalSite, make_source, make_entry, settings
) -> None:
    archived = make_source(url=server.url("/ok"))
    Citation.objects.create(entry=make_entry(status=Entry.Status.ARCHIVED), source=archived)
    live = make_source(url=server.url("/head-405"))
    Citation.objects.create(entry=make_entry(status=Entry.Status.ARCHIVED), source=live)
    Citation.objects.create(entry=make_entry(status=Entry.Status.PUBLISHED), source=live)
    assert service.archived_only_ids([archived.pk, live.pk]) == {archived.pk}
    service.check_claimed(service.claim_due())
    archived.refresh_from_db()
    live.refresh_from_db()
    factor = settings.LINKCHECK_ARCHIVED_FACTOR
    assert archived.next_check_at - archived.last_checked_at >= timedelta(days=14 * factor)
    assert live.next_check_at - live.last_checked_at <= timedelta(days=28)


def test_editors_are_told_when_a_source_changes_state_and_not_otherwise(
    server: LocalSite, make_source, caplog, django_capture_on_commit_callbacks
) -> None:
    source = make_source(url=server.url("/ok"))
    caplog.set_level(logging.WARNING, logger="editorial.linkcheck.editors")
    with django_capture_on_commit_callbacks(execute=True):
        service.check_claimed(service.claim_sources([source.pk]))
    assert caplog.records == []  # a new source found healthy is not news
    Source.objects.filter(pk=source.pk).update(url=server.url("/status/404"))
    with django_capture_on_commit_callbacks(execute=True):
        service.check_claimed(service.claim_sources([source.pk]))
    with django_capture_on_commit_callbacks(execute=True):
        service.check_claimed(service.claim_sources([source.pk]))  # still failing
    assert [r.message for r in caplog.records] == [
        f"Source #{source.pk} {server.url('/status/404')}: link is now failing (was ok)"
    ]


def test_ad_hoc_url_checks_are_recorded_as_history_only(server: LocalSite, make_source) -> None:
    source = make_source(url=server.url("/ok"))
    results = service.run_checks([server.url("/ok"), server.url("/status/410")])
    service.record_urls(results)
    source.refresh_from_db()
    assert source.health == Source.Health.UNCHECKED
    rows = {row.url: row for row in LinkCheck.objects.all()}
    assert rows[server.url("/ok")].source == source
    assert rows[server.url("/status/410")].source is None
    assert rows[server.url("/status/410")].outcome == "broken"


def test_due_selection_uses_the_clock(make_source) -> None:
    source = make_source(next_check_at=NOW + timedelta(days=1), last_checked_at=NOW)
    with time_machine.travel(NOW, tick=False):
        assert service.claim_due().source_ids == []
    with time_machine.travel(NOW + timedelta(days=1, seconds=1), tick=False):
        assert service.claim_due().source_ids == [source.pk]


def test_a_claim_larger_than_a_chunk_is_checked_and_recorded_chunk_by_chunk(
    server: LocalSite, make_source, monkeypatch, django_assert_num_queries
) -> None:
    monkeypatch.setattr(service, "CHUNK_SIZE", 2)
    sources = [make_source(url=server.url(f"/ok?page={i}")) for i in range(5)]
    taken = make_source(url=server.url("/ok?page=taken"))
    claim = service.claim_sources([s.pk for s in sources] + [taken.pk])
    # Another run claims one source of the last chunk before this run reaches it.
    service.claim_sources([taken.pk], now=timezone.now() + timedelta(minutes=1))
    # Eight statements a chunk, however large: load, citations, savepoint, lock,
    # one executemany UPDATE, one executemany INSERT of the checks, one of the health
    # changes (every source here goes from unchecked to ok), release.
    with django_assert_num_queries(3 * 8):
        chunks = list(service.iter_check_claimed(claim))
    assert [len(chunk) for chunk in chunks] == [2, 2, 1]
    assert LinkCheck.objects.count() == 5
    assert not LinkCheck.objects.filter(source=taken).exists()
    for source in sources:
        source.refresh_from_db()
        assert source.last_outcome == "ok" and source.health == Source.Health.OK
    assert len(server.requests) == 5  # one GET for each claimed page, once
    # Checked again, no health changes: no INSERT of changes, seven statements a chunk.
    again = service.claim_sources([s.pk for s in sources])
    with django_assert_num_queries(3 * 7):
        list(service.iter_check_claimed(again))


def test_a_source_row_holds_each_loaded_column_under_its_own_name() -> None:
    values = [f"value of {name}" for name in SourceRow.LOAD_FIELDS]
    row = SourceRow(values)
    assert [getattr(row, name) for name in SourceRow.LOAD_FIELDS] == values


def _state_updates(queries: CaptureQueriesContext) -> list[str]:
    # The claim's UPDATE comes first; the recording's is an executemany ("N times: UPDATE").
    table = Source._meta.db_table
    return [q["sql"] for q in queries.captured_queries if f'times: UPDATE "{table}"' in q["sql"]]


def test_a_recheck_that_changes_nothing_writes_only_the_check_times(
    server: LocalSite, make_source
) -> None:
    source = make_source(url=server.url("/ok"))
    service.check_claimed(service.claim_sources([source.pk]))
    first = Source.objects.get(pk=source.pk)
    with CaptureQueriesContext(connection) as queries:
        service.check_claimed(service.claim_sources([source.pk]))
    [state_update] = _state_updates(queries)
    assert state_update.count("= %s") == 3  # two columns and the id
    assert '"last_checked_at" = %s' in state_update and '"next_check_at" = %s' in state_update
    again = Source.objects.get(pk=source.pk)
    assert again.health == first.health == Source.Health.OK
    assert again.last_fingerprint == first.last_fingerprint != ""
    assert again.last_checked_at is not None and first.last_checked_at is not None
    assert again.last_checked_at > first.last_checked_at


def test_a_check_that_changes_the_health_writes_the_changed_columns(
    server: LocalSite, make_source
) -> None:
    source = make_source(url=server.url("/status/404"))
    service.check_claimed(service.claim_sources([source.pk]))
    source.url = server.url("/ok")  # the page is back (as if the site fixed it)
    Source.objects.filter(pk=source.pk).update(url=source.url)
    service.check_claimed(service.claim_sources([source.pk]))
    source.refresh_from_db()
    assert source.health == Source.Health.OK
    assert (source.failure_streak, source.first_failure_at) == (0, None)
    assert source.last_status_code == 200 and source.last_fingerprint


def test_a_kept_checker_reuses_its_connections_from_one_batch_to_the_next(
    server: LocalSite, make_source
) -> None:
    first, second = make_source(url=server.url("/ok?a")), make_source(url=server.url("/ok?b"))
    try:
        service.check_claimed(service.claim_sources([first.pk]), keep_checker=True)
        service.check_claimed(service.claim_sources([second.pk]), keep_checker=True)
    finally:
        service.close_kept_checkers()
    assert server.paths() == ["/ok?a", "/ok?b"]
    assert server.peers[0] == server.peers[1]  # the same client socket: one connection


def test_without_a_kept_checker_each_batch_opens_its_own_connections(
    server: LocalSite, make_source
) -> None:
    first, second = make_source(url=server.url("/ok?a")), make_source(url=server.url("/ok?b"))
    service.check_claimed(service.claim_sources([first.pk]))
    service.check_claimed(service.claim_sources([second.pk]))
    assert server.peers[0] != server.peers[1]
