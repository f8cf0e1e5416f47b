"""The Celery tasks, run in process (the embedded default): thin, after-commit, idempotent."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from config.celery import app
from editorial import tasks
from editorial.linkcheck import service
from glossary.models import LinkCheck, Source
from tests.linkcheck.server import LocalSite

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


@pytest.fixture(autouse=True)
def eager() -> Iterator[None]:
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def test_beat_runs_the_due_check_on_the_configured_schedule() -> None:
    entry = django_settings.CELERY_BEAT_SCHEDULE["linkcheck-due-sources"]
    assert entry["task"] == tasks.check_due_sources.name
    assert entry["schedule"] == django_settings.LINKCHECK_SCHEDULE_SECONDS
    assert tasks.check_due_sources.name in app.tasks


def test_the_tasks_acknowledge_late_so_a_dead_worker_loses_nothing() -> None:
    assert tasks.check_due_sources.acks_late
    assert tasks.check_sources.acks_late
    assert django_settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] > 0


def test_the_due_run_queues_checks_only_after_its_claim_commits(
    server: LocalSite, make_source, settings, django_capture_on_commit_callbacks
) -> None:
    settings.LINKCHECK_BATCH_SIZE = 2
    for i in range(5):
        make_source(url=server.url(f"/track/{i}?hold=0"))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        summary = tasks.check_due_sources()
    assert summary["claimed"] == 5
    assert len(callbacks) == 3  # batches of 2, 2 and 1
    assert LinkCheck.objects.count() == 0 and server.requests == []
    for callback in callbacks:
        callback()
    assert LinkCheck.objects.count() == 5
    assert set(Source.objects.values_list("health", flat=True)) == {"ok"}


def test_a_second_due_run_finds_nothing_to_do(
    server: LocalSite, make_source, django_capture_on_commit_callbacks
) -> None:
    make_source(url=server.url("/ok"))
    with django_capture_on_commit_callbacks(execute=True):
        first = tasks.check_due_sources()
    with django_capture_on_commit_callbacks(execute=True):
        second = tasks.check_due_sources()
    assert (first["claimed"], second["claimed"]) == (1, 0)
    assert LinkCheck.objects.count() == 1


def test_a_redelivered_batch_does_not_check_again(
    server: LocalSite, make_source, django_capture_on_commit_callbacks
) -> None:
    source = make_source(url=server.url("/ok"))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        tasks.check_due_sources()
    callbacks[0]()
    callbacks[0]()  # the broker delivers the same message again
    assert LinkCheck.objects.filter(source=source).count() == 1
    assert len(server.requests) == 1


def test_check_now_queues_a_source_that_is_not_due(
    server: LocalSite, make_source, django_capture_on_commit_callbacks
) -> None:
    source = make_source(url=server.url("/ok"), next_check_at=timezone.now() + timedelta(days=9))
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.queue_check_now([source.pk]) == 1
    assert source.checks.count() == 1


def test_a_large_due_claim_is_claimed_and_queued_a_part_at_a_time(
    make_source, settings, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    settings.LINKCHECK_BATCH_SIZE = 2
    monkeypatch.setattr(service, "CLAIM_PART_BATCHES", 2)  # 2 sources, then parts of 4
    sources = [make_source(url=f"http://127.0.0.1:1/p{i}") for i in range(9)]
    queued: list[list[int]] = []
    monkeypatch.setattr(tasks.check_sources, "delay", lambda ids, lease: queued.append(ids))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        result = tasks.check_due_sources()
    assert result["claimed"] == 9
    # Parts of one batch, then of two: 2 | 2, 2 | 2, 1, each part's batches queued after
    # its commit.
    assert len(callbacks) == 5
    assert [len(batch) for batch in queued] == [2, 2, 2, 2, 1]
    assert sorted(pk for batch in queued for pk in batch) == sorted(s.pk for s in sources)
    assert tasks.check_due_sources()["claimed"] == 0  # all of them claimed once


def test_a_due_claim_comes_in_a_first_part_of_one_batch_then_parts_of_several(settings) -> None:
    settings.LINKCHECK_BATCH_SIZE = 200
    assert list(service.claim_parts(5000)) == [200, 2000, 2000, 800]
    assert list(service.claim_parts(150)) == [150]
    assert list(service.claim_parts(0)) == []
