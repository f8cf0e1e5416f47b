"""A cited page that comes back empty (200, no text) is told to the people citing it.

Not "ok" (the desk could no longer read what it cites), and not "broken" either: the
address still answers, and a page built by scripts reads fine in a browser. Like a
failure, one empty answer flags nothing; empty answers on checks days apart make the
source "empty", which alerts the fact-checkers and the entry's writer, shows on the
dashboard and warns in the publish checks. Checked against the local HTTP server.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User

from editorial import gates, notify
from editorial.linkcheck import service
from editorial.models import Notification
from glossary.models import Entry, LinkCheck, Source
from tests.linkcheck.server import LocalSite
from tests.personas import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]

NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)
Health = Source.Health


def check_at(source: Source, when: datetime.datetime, capture: Any) -> Source:
    """A scheduled check of `source` at `when`, its alerts recorded after commit."""
    with time_machine.travel(when), capture(execute=True):
        service.check_claimed(service.claim_sources([source.pk]))
    source.refresh_from_db()
    return source


@pytest.fixture
def cited(
    server: LocalSite, make_ready_entry: Any, writer: User, fact_checker: User
) -> tuple[Entry, Source]:
    entry = make_ready_entry("Interconnect")
    source = Source.objects.get(citations__entry=entry)
    Source.objects.filter(pk=source.pk).update(url=server.url("/ok"))
    return entry, source


def test_a_cited_page_that_went_empty_becomes_empty_after_checks_days_apart(
    server: LocalSite,
    cited: tuple[Entry, Source],
    writer: User,
    fact_checker: User,
    editor: User,
    django_capture_on_commit_callbacks: Any,
) -> None:
    entry, source = cited
    source = check_at(source, NOW, django_capture_on_commit_callbacks)
    assert source.health == Health.OK
    fingerprint = source.last_fingerprint
    # The publisher's CMS loses the page's content: it still answers 200.
    Source.objects.filter(pk=source.pk).update(url=server.url("/empty"))

    source = check_at(source, NOW + datetime.timedelta(days=1), django_capture_on_commit_callbacks)
    assert source.health == Health.FAILING  # once is not enough: it may be a bad hour
    assert not Notification.objects.exists()
    check_at(source, NOW + datetime.timedelta(days=5), django_capture_on_commit_callbacks)
    source = check_at(source, NOW + datetime.timedelta(days=9), django_capture_on_commit_callbacks)

    assert source.health == Health.EMPTY
    assert source.last_fingerprint == fingerprint  # no text is not a change of text
    last = LinkCheck.objects.filter(source=source).latest()
    assert (last.outcome, last.status_code) == ("empty", 200)
    assert "no text to read" in last.error

    # The fact-checker and the entry's writer hear it, in words.
    alerts = Notification.objects.filter(kind=Notification.Kind.SOURCE_CHANGED)
    assert sorted(alerts.values_list("recipient__username", flat=True)) == [
        fact_checker.username,
        writer.username,
    ]
    assert "The page came back empty (no text) on several checks days apart" in alerts[0].text

    # The dashboard lists it with the other sources that need a look.
    page = client_for(editor).get("/admin/dashboard/").content.decode()
    sources = page[page.index('id="sources"') : page.index('id="claims"')]
    assert source.url in sources
    assert "Empty page: it answered with no text on several checks days apart" in sources

    # A warning in the publish checks, never a block: the address still works.
    results = gates.run_gates(entry)
    [empty] = [r for r in results if r.code == gates.SOURCE_EMPTY]
    assert not empty.passed and not empty.blocking
    assert "answered with an empty page on several checks days apart" in empty.message
    assert not [r for r in results if r.blocking and not r.passed]


def test_a_script_built_page_is_never_called_broken(
    server: LocalSite, cited: tuple[Entry, Source], django_capture_on_commit_callbacks: Any
) -> None:
    _, source = cited
    Source.objects.filter(pk=source.pk).update(url=server.url("/app-shell"))
    for days in range(0, 40, 4):
        source = check_at(
            source, NOW + datetime.timedelta(days=days), django_capture_on_commit_callbacks
        )
    assert source.health == Health.EMPTY
    assert source.health != Health.BROKEN


def test_readers_see_what_an_empty_page_said_when_it_was_checked(
    cited: tuple[Entry, Source], server: LocalSite
) -> None:
    from glossary import document

    entry, source = cited
    Source.objects.filter(pk=source.pk).update(health=Health.EMPTY)
    [citation] = document.build(Entry.objects.get(pk=entry.pk)).citations
    assert citation.source_changed  # the dated excerpt is shown once this is published


def test_a_source_that_became_empty_alerts_the_people_citing_it(
    cited: tuple[Entry, Source],
) -> None:
    from editorial.linkcheck.state import Transition

    _, source = cited
    made = notify.tell_source_changes([(source, Transition("failing", "empty", False, False))])
    assert made == 2
    alert = Notification.objects.filter(kind=Notification.Kind.SOURCE_CHANGED).first()
    assert alert is not None
    assert "it may have been emptied, or be built by scripts the desk does not run" in alert.text
