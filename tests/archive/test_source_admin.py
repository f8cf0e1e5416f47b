"""The source admin tells editors what the Wayback Machine captures did."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from editorial.models import ArchiveRequest
from glossary.models import Source
from tests.personas import client_for

pytestmark = pytest.mark.django_db

AT = datetime.datetime(2026, 11, 20, 14, 0, tzinfo=datetime.UTC)


def change_page(user, source: Source) -> str:
    response = client_for(user).get(reverse("admin:glossary_source_change", args=[source.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_source_page_shows_a_saved_capture_with_its_link_and_a_failed_one_with_why(
    editor, fact_checker, make_source
) -> None:
    source = make_source()
    ArchiveRequest.objects.create(
        source=source,
        url=source.url,
        requested_by=fact_checker,
        requested_at=AT,
        state=ArchiveRequest.State.FAILED,
        error="the archive could not save the page: error:blocked-url",
        finished_at=AT,
    )
    ArchiveRequest.objects.create(
        source=source,
        url=source.url,
        requested_by=fact_checker,
        requested_at=AT + datetime.timedelta(days=1),
        state=ArchiveRequest.State.SAVED,
        archive_url=f"https://web.archive.org/web/20261121140000/{source.url}",
        captured_at=AT + datetime.timedelta(days=1),
    )
    page = change_page(editor, source)
    assert "Wayback Machine captures" in page
    assert f'href="https://web.archive.org/web/20261121140000/{source.url}"' in page
    assert f"by {fact_checker.get_username()}" in page
    assert "failed — the archive could not save the page: error:blocked-url" in page


def test_a_source_never_captured_says_how_a_capture_comes_about(editor, make_source) -> None:
    page = change_page(editor, make_source())
    assert "Confirming the source asks the Wayback Machine to save it" in page


def test_a_queued_capture_says_when_it_is_tried_next_and_what_went_wrong_last(
    editor, make_source
) -> None:
    source = make_source()
    ArchiveRequest.objects.create(
        source=source,
        url=source.url,
        requested_at=AT,
        next_attempt_at=AT + datetime.timedelta(minutes=2),
        attempts=1,
        error="the archive asked us to slow down (HTTP 429)",
    )
    page = change_page(editor, source)
    assert "queued, next step after" in page
    assert "last try: the archive asked us to slow down (HTTP 429)" in page


def test_the_source_list_says_which_sources_have_an_archived_copy(editor, make_source) -> None:
    archived = make_source()
    Source.objects.filter(pk=archived.pk).update(
        archive_url=f"https://web.archive.org/web/2026/{archived.url}"
    )
    page = client_for(editor).get(reverse("admin:glossary_source_changelist")).content.decode()
    assert "Archived copy" in page  # the column
    assert 'alt="True"' in page
