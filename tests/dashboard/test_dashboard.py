"""/admin/dashboard/: what needs attention, each row linked to its fix, at a fixed query cost."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from editorial import scheduling, workflow
from editorial.admin import dashboard
from editorial.linkcheck import service
from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fetch import CheckResult
from glossary.models import Citation, Entry, Source

NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)
URL = "/admin/dashboard/"


@pytest.fixture(autouse=True)
def frozen() -> Any:
    with time_machine.travel(NOW, tick=False):
        yield


def page(client: Client, user: User) -> str:
    client.force_login(user)
    response = client.get(URL)
    assert response.status_code == 200
    return response.content.decode()


def test_anonymous_visitors_are_sent_to_the_login_page(client: Client) -> None:
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_staff_without_permission_to_view_entries_are_refused(client: Client, db: None) -> None:
    client.force_login(User.objects.create_user("clerk", is_staff=True))
    assert client.get(URL).status_code == 403


def test_the_admin_index_links_to_the_dashboard(client: Client, editor: User) -> None:
    client.force_login(editor)
    assert f'href="{URL}"' in client.get("/admin/").content.decode()


def test_it_lists_entries_awaiting_review_and_changes_requested_with_the_comment(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    waiting = entry_in_review("Waiting")
    sent_back = entry_in_review("Sent back")
    workflow.request_changes(sent_back, user=editor, comment="Cite the NVLink spec, please.")
    body = page(client, editor)
    review = body[body.index('id="awaiting-review"') : body.index('id="changes-requested"')]
    assert f'href="/admin/glossary/entry/{waiting.pk}/change/">Waiting</a>' in review
    assert "Sent back" not in review
    changes = body[body.index('id="changes-requested"') : body.index('id="scheduled"')]
    assert "Cite the NVLink spec, please." in changes
    assert f"/admin/glossary/entry/{sent_back.pk}/change/" in changes


def test_it_lists_scheduled_publications_and_failed_ones_with_the_reason(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    later = scheduling.schedule(
        entry_in_review("Later"),
        action="publish",
        due_at=NOW + datetime.timedelta(days=1),
        user=editor,
    )
    stale = entry_in_review("Stale", checked_on=datetime.date(2026, 1, 1))
    due = scheduling.schedule(
        stale, action="publish", due_at=NOW + datetime.timedelta(minutes=1), user=editor
    )
    scheduling.run_due(now=NOW + datetime.timedelta(minutes=2))
    body = page(client, editor)
    section = body[body.index('id="scheduled"') : body.index('id="published-failing"')]
    assert f"/admin/editorial/scheduledaction/{later.pk}/change/" in section
    assert "Dec 1, 2026, 10:00 EST" in section
    assert f"/admin/editorial/scheduledaction/{due.pk}/change/" in section
    assert "<strong>Failed</strong>" in section
    assert "Not published: the publish checks failed" in section
    assert "last checked 333 days ago" in section


def test_it_lists_citations_past_the_freshness_window(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    entry = entry_in_review("Old", checked_on=datetime.date(2026, 5, 1))
    entry_in_review("Fresh")
    body = page(client, editor)
    section = body[body.index('id="stale-citations"') : body.index('id="sources"')]
    assert f"/admin/glossary/entry/{entry.pk}/change/#citations-group" in section
    assert "May 1, 2026 (213 days ago)" in section
    assert "Fresh" not in section


def test_it_lists_sources_broken_moved_or_changed_since_confirmed(
    client: Client, editor: User, make_source: Callable[..., Source]
) -> None:
    broken = make_source(title="Gone", health=Source.Health.BROKEN)
    moved = make_source(
        title="Elsewhere", health=Source.Health.MOVED, suggested_url="https://new.example/"
    )
    changed = make_source(
        title="Rewritten", health=Source.Health.OK, confirmed_fingerprint="a", last_fingerprint="b"
    )
    make_source(
        title="Fine", health=Source.Health.OK, confirmed_fingerprint="a", last_fingerprint="a"
    )
    body = page(client, editor)
    section = body[body.index('id="sources"') : body.index('id="aging"')]
    for source in (broken, moved, changed):
        assert f"/admin/glossary/source/{source.pk}/change/" in section
    assert "Moved to https://new.example/" in section
    assert "page changed since it was confirmed" in section
    assert "Fine" not in section


def test_it_lists_published_entries_that_now_fail_their_checks(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    entry = entry_in_review("Rotting")
    workflow.publish_entry(entry, user=editor)
    Source.objects.filter(citations__entry=entry).update(health=Source.Health.BROKEN)
    healthy = entry_in_review("Healthy")
    workflow.publish_entry(healthy, user=editor)
    body = page(client, editor)
    section = body[body.index('id="published-failing"') : body.index('id="stale-citations"')]
    assert f"/admin/glossary/entry/{entry.pk}/change/" in section
    assert "is broken" in section
    assert "Healthy" not in section


def test_the_aging_report_says_when_and_by_whom_an_entry_was_last_published(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    old = entry_in_review("Old news")
    with time_machine.travel(NOW - datetime.timedelta(days=400), tick=False):
        Citation.objects.filter(entry=old).update(checked_on=datetime.date(2025, 10, 26))
        workflow.publish_entry(old, user=editor)
    recent = entry_in_review("Recent")
    workflow.publish_entry(recent, user=editor)
    body = page(client, editor)
    section = body[body.index('id="aging"') : body.index('id="source-health"')]
    assert "Old news" in section and "Oct 26, 2025" in section and "editor" in section
    assert "Recent" not in section


def test_it_warns_when_the_scheduler_has_not_run(client: Client, editor: User) -> None:
    assert "The scheduler is not running." in page(client, editor)
    scheduling.run_due(now=NOW - datetime.timedelta(minutes=1))
    body = page(client, editor)
    assert "The scheduler is not running." not in body
    assert "The scheduler last ran at Nov 30, 2026, 09:59 EST." in body
    with time_machine.travel(NOW + datetime.timedelta(minutes=10), tick=False):
        assert "The scheduler last ran 11 minutes ago" in page(client, editor)


def _check(source: Source, days_ago: float, outcome: str) -> None:
    """Record a check as the link checker does: the check, the state, any health change."""
    source.refresh_from_db()
    result = CheckResult(url=source.url, outcome=Outcome(outcome))
    service.record([(source, result)], None, now=NOW - datetime.timedelta(days=days_ago))


def test_the_health_chart_reads_each_sources_health_week_by_week(
    make_source: Callable[..., Source],
) -> None:
    rotting = make_source(title="Rotting")
    steady = make_source(title="Steady")
    Source.objects.update(created_at=NOW - datetime.timedelta(days=200))
    _check(steady, 150, "ok")
    _check(rotting, 100, "ok")
    # Three failures at least three days apart: broken from the third (17 days ago).
    for days in (31, 24, 17):
        _check(rotting, days, "broken")
    _check(steady, 20, "moved")
    late = make_source(title="New")  # created now: only in the last week
    history = dashboard.health_history(NOW)
    assert len(history) == 12
    week = {k: history[11 - k] for k in range(12)}  # k weeks ago
    assert week[11]["ok"] == 2
    assert (week[4]["ok"], week[4]["failing"]) == (1, 1)  # 28 days ago: one failure
    assert (week[3]["failing"], week[3]["moved"]) == (1, 0)  # 21 days ago: two failures
    assert (week[2]["broken"], week[2]["moved"]) == (1, 1)  # 14 days ago
    assert week[1]["unchecked"] == 0
    assert week[0]["unchecked"] == 1 and sum(week[0].values()) == 3
    assert late.pk


def test_the_chart_is_an_accessible_svg_with_a_table(
    client: Client, editor: User, make_source: Callable[..., Source]
) -> None:
    make_source(title="One")
    body = page(client, editor)
    assert '<svg xmlns="http://www.w3.org/2000/svg" role="img"' in body
    assert '<title id="health-title">' in body and '<desc id="health-desc">' in body
    assert "<caption>Sources per link-health state at the end of each week</caption>" in body
    assert body.count('<tr><th scope="row">') == 12


def _populate(n: int, editor: User, entry_in_review: Callable[..., Entry]) -> None:
    for i in range(n):
        review = entry_in_review(f"Review {n}-{i}", checked_on=datetime.date(2026, 1, 1))
        sent = entry_in_review(f"Sent {n}-{i}")
        workflow.request_changes(sent, user=editor, comment="No.")
        live = entry_in_review(f"Live {n}-{i}")
        workflow.publish_entry(live, user=editor)
        Source.objects.filter(citations__entry=live).update(health=Source.Health.BROKEN)
        scheduling.schedule(
            review, action="publish", due_at=NOW + datetime.timedelta(days=1), user=editor
        )
        for source in Source.objects.filter(citations__entry=review):
            _check(source, 10, "ok")


def test_the_query_count_does_not_grow_with_the_rows(
    client: Client, editor: User, entry_in_review: Callable[..., Entry]
) -> None:
    client.force_login(editor)
    _populate(1, editor, entry_in_review)
    with CaptureQueriesContext(connection) as few:
        assert client.get(URL).status_code == 200
    _populate(12, editor, entry_in_review)
    with CaptureQueriesContext(connection) as many:
        body = client.get(URL).content.decode()
    assert "Review 12-11" in body and "Live 12-11" in body and "Sent 12-11" in body
    assert len(few) == len(many)
    assert len(many) <= 30, [q["sql"][:80] for q in many.captured_queries]
