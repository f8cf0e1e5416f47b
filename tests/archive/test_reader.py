"""The rule above all, for archived copies: a capture changes nothing readers see until
someone other than its author publishes it (docs/archive.md, "What readers see")."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.urls import reverse

from editorial import archive, workflow
from editorial.models import ArchiveRequest
from glossary.models import Entry, Source
from tests.archive.fake_archive import TIMESTAMP, FakeArchive
from tests.live import make_live_unchecked
from tests.personas import client_for

pytestmark = pytest.mark.django_db

START = datetime.datetime(2026, 11, 20, 9, 0, tzinfo=datetime.UTC)
LABEL = 'Archived copy, <time datetime="2026-11-20">November 20, 2026</time></a>'


def capture(fact_checker: Any, source: Source) -> str:
    """A fact-checker confirms `source`; the archive saves it. Returns its archive URL."""
    response = client_for(fact_checker).post(
        reverse("admin:glossary_source_changelist"),
        {"action": "mark_confirmed_today", "_selected_action": [source.pk]},
        follow=True,
    )
    assert response.status_code == 200
    ArchiveRequest.objects.update(next_attempt_at=START)
    archive.run_due(START)
    assert archive.run_due(START + datetime.timedelta(seconds=30)) == {"saved": 1}
    source.refresh_from_db()
    return source.archive_url


def page(client: Any) -> str:
    return client.get("/glossary/interconnect/").content.decode()


def unarchived_source() -> Source:
    """One of the seed entry's sources, none of which the demo gives an archived copy."""
    return Source.objects.filter(citations__entry__slug="interconnect", archive_url="").earliest(
        "pk"
    )


def test_a_saved_capture_changes_nothing_readers_see_until_someone_else_publishes(
    wayback: FakeArchive, demo, client, fact_checker, second_editor
) -> None:
    entry = Entry.objects.get(slug="interconnect")
    source = unarchived_source()
    before = page(client)
    url = capture(fact_checker, source)
    assert url == f"{wayback.base}/web/{TIMESTAMP}/{source.url}"
    assert page(client) == before
    assert url not in client.get("/api/entries/interconnect").content.decode()
    # The capture is a version of the entry, credited to whoever's confirmation asked
    # for it: they wrote part of the change, so someone else must publish it.
    newest = entry.versions.order_by("-number").first()
    assert newest.created_by == fact_checker
    assert "Archived copy of" in newest.comment
    assert workflow.authorship(entry, fact_checker)
    make_live_unchecked(Entry.objects.get(pk=entry.pk), user=second_editor)
    shown = page(client)
    assert f'<a class="archive" href="{url}" rel="noopener">{LABEL}' in shown


def test_a_capture_nobody_on_the_desk_asked_for_is_credited_to_the_web_archive_user(
    wayback: FakeArchive, demo, fact_checker
) -> None:
    source = unarchived_source()
    capture(fact_checker, source)
    ArchiveRequest.objects.update(requested_by=None)
    # A later capture of the same source, asked by nobody (its asker's account deleted).
    wayback.timestamp = "20261121093000"
    ArchiveRequest.objects.create(source=source, url=source.url, next_attempt_at=START)
    archive.run_due(START)
    archive.run_due(START + datetime.timedelta(seconds=30))
    newest = Entry.objects.get(slug="interconnect").versions.order_by("-number").first()
    assert newest.created_by.username == "web-archive"
    assert not newest.created_by.is_active
    assert not newest.created_by.has_usable_password()


def test_a_dead_source_keeps_its_link_with_the_archived_copy_beside_it(
    wayback: FakeArchive, demo, client, fact_checker, second_editor
) -> None:
    source = unarchived_source()
    url = capture(fact_checker, source)
    Source.objects.filter(pk=source.pk).update(citation_status=Source.CitationStatus.DEAD)
    make_live_unchecked(Entry.objects.get(slug="interconnect"), user=second_editor)
    shown = page(client)
    line = shown[shown.index(f'href="{source.url}"') :]
    line = line[: line.index("</li>")]
    assert "The original page is no longer available as cited." in line
    assert f'<a class="archive" href="{url}" rel="noopener">{LABEL}' in line


def test_a_usurped_source_links_only_to_its_archived_copy(
    wayback: FakeArchive, demo, client, fact_checker, second_editor
) -> None:
    source = unarchived_source()
    url = capture(fact_checker, source)
    Source.objects.filter(pk=source.pk).update(citation_status=Source.CitationStatus.USURPED)
    make_live_unchecked(Entry.objects.get(slug="interconnect"), user=second_editor)
    shown = page(client)
    assert f'href="{source.url}"' not in shown
    assert f'href="{url}"' in shown
    assert "the link opens an archived copy" in shown
