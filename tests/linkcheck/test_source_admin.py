"""The Source admin shows link health and offers "check now" and "mark confirmed today"."""

from __future__ import annotations

import datetime
import socket
from collections.abc import Iterator

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from config.celery import app
from editorial import newsroom
from editorial.models import SourceHealthChange
from glossary.models import Citation, LinkCheck, Source
from tests.linkcheck.server import LocalSite
from tests.personas import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


@pytest.fixture(autouse=True)
def eager() -> Iterator[None]:
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture
def fact_checker_client(fact_checker: User) -> Client:
    return client_for(fact_checker)


@pytest.fixture
def writer_client(writer: User) -> Client:
    return client_for(writer)


def test_the_source_page_shows_state_history_and_citing_entries(
    fact_checker_client: Client, make_source, make_entry
) -> None:
    source = make_source(health=Source.Health.FAILING, failure_streak=1)
    entry = make_entry("Interconnect")
    Citation.objects.create(entry=entry, source=source)
    LinkCheck.objects.create(
        source=source, url=source.url, outcome="broken", status_code=404, error="gone"
    )
    response = fact_checker_client.get(reverse("admin:glossary_source_change", args=[source.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Failing" in html
    assert "<td>broken</td><td>404</td>" in html
    assert "Interconnect" in html
    assert reverse("admin:glossary_entry_change", args=[entry.pk]) in html


def test_the_source_page_lists_its_health_changes_read_only(
    fact_checker_client: Client, make_source
) -> None:
    source = make_source()
    at = timezone.now() - datetime.timedelta(days=2)
    SourceHealthChange.objects.create(
        source=source,
        url=source.url,
        at=at,
        from_health="ok",
        to_health="failing",
        outcome="broken",
        status_code=404,
        error="gone",
    )
    response = fact_checker_client.get(reverse("admin:glossary_source_change", args=[source.pk]))
    html = response.content.decode()
    assert "Last 20 health changes" in html
    assert (
        f"<tr><td>{newsroom.format_instant(at)}</td><td>ok → failing</td><td>broken</td>"
        "<td>404</td><td>gone</td></tr>"
    ) in html
    assert 'name="health_changes"' not in html  # shown, never a form field


def test_sources_can_be_filtered_by_health_and_by_changed_text(
    fact_checker_client: Client, make_source
) -> None:
    make_source(title="Healthy one", health=Source.Health.OK)
    make_source(title="Broken one", health=Source.Health.BROKEN)
    make_source(title="Changed one", last_fingerprint="b" * 64, confirmed_fingerprint="a" * 64)
    url = reverse("admin:glossary_source_changelist")
    broken = fact_checker_client.get(url, {"health__exact": "broken"}).content.decode()
    assert "Broken one" in broken and "Healthy one" not in broken
    changed = fact_checker_client.get(url, {"changed": "yes"}).content.decode()
    assert "Changed one" in changed and "Broken one" not in changed


def test_check_now_queues_a_check_and_records_it(
    fact_checker_client: Client, server: LocalSite, make_source, django_capture_on_commit_callbacks
) -> None:
    source = make_source(url=server.url("/status/404"))
    with django_capture_on_commit_callbacks(execute=True):
        response = fact_checker_client.post(
            reverse("admin:glossary_source_changelist"),
            {"action": "check_now", "_selected_action": [source.pk]},
            follow=True,
        )
    assert "Queued a link check for 1 source(s)" in response.content.decode()
    source.refresh_from_db()
    assert source.health == Source.Health.FAILING
    assert source.checks.get().outcome == "broken"


def test_mark_confirmed_today_records_the_fingerprint_and_the_citations_date(
    fact_checker_client: Client, make_source, make_entry
) -> None:
    source = make_source(last_fingerprint="b" * 64, confirmed_fingerprint="a" * 64)
    citation = Citation.objects.create(entry=make_entry(), source=source)
    response = fact_checker_client.post(
        reverse("admin:glossary_source_changelist"),
        {"action": "mark_confirmed_today", "_selected_action": [source.pk]},
        follow=True,
    )
    assert "Confirmed 1 source(s) today" in response.content.decode()
    source.refresh_from_db()
    citation.refresh_from_db()
    assert source.confirmed_fingerprint == "b" * 64
    assert not source.changed_since_confirmed
    assert citation.checked_on == newsroom.today()
    assert citation.checked_by.username == "fiona_checker"


# 21:30 on November 30 in New York is already December 1 in UTC.
EVENING_IN_NEW_YORK = datetime.datetime(2026, 12, 1, 2, 30, tzinfo=datetime.UTC)


def test_mark_confirmed_today_writes_the_newsrooms_date_not_utcs(
    fact_checker_client: Client, make_source, make_entry, settings
) -> None:
    settings.NEWSROOM_TIME_ZONE = "America/New_York"
    source = make_source(last_fingerprint="b" * 64)
    citation = Citation.objects.create(entry=make_entry(), source=source)
    with time_machine.travel(EVENING_IN_NEW_YORK, tick=False):
        response = fact_checker_client.post(
            reverse("admin:glossary_source_changelist"),
            {"action": "mark_confirmed_today", "_selected_action": [source.pk]},
            follow=True,
        )
    citation.refresh_from_db()
    assert citation.checked_on == datetime.date(2026, 11, 30)
    assert "checked November 30, 2026" in response.content.decode()


def test_only_fact_checkers_can_mark_a_source_confirmed(writer_client: Client, make_source) -> None:
    source = make_source(last_fingerprint="b" * 64)
    response = writer_client.get(reverse("admin:glossary_source_changelist"))
    if response.status_code == 200:
        assert "mark_confirmed_today" not in response.content.decode()
    writer_client.post(
        reverse("admin:glossary_source_changelist"),
        {"action": "mark_confirmed_today", "_selected_action": [source.pk]},
    )
    source.refresh_from_db()
    assert source.confirmed_at is None


def test_check_now_with_the_queue_down_says_so_and_claims_nothing(
    fact_checker_client: Client, make_source
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]  # nothing listens once the socket is closed
    before = timezone.now() + datetime.timedelta(days=9)
    source = make_source(next_check_at=before)
    app.conf.task_always_eager = False
    saved_broker = app.conf.broker_url
    app.conf["broker_url"] = f"redis://127.0.0.1:{closed}/0"
    try:
        response = fact_checker_client.post(
            reverse("admin:glossary_source_changelist"),
            {"action": "check_now", "_selected_action": [source.pk]},
            follow=True,
        )
    finally:
        app.conf["broker_url"] = saved_broker
    assert response.status_code == 200
    assert "The task queue is not answering" in response.content.decode()
    source.refresh_from_db()
    assert source.next_check_at == before
    assert not LinkCheck.objects.filter(source=source).exists()
