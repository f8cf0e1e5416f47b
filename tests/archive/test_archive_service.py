"""Confirming a source asks Save Page Now for a capture, politely, and fills in the archive URL.

Against a local fake of the API (tests/archive/fake_archive.py); `run_due` is given
the instant it runs at, so polls, limits and backoff are shown without waiting.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.urls import reverse

from editorial import archive, tasks
from editorial.models import ArchiveRequest
from glossary.models import Citation, Entry, Source
from tests.archive.fake_archive import TIMESTAMP, FakeArchive, Reply
from tests.personas import client_for

pytestmark = pytest.mark.django_db

State = ArchiveRequest.State
START = datetime.datetime(2026, 11, 20, 9, 0, tzinfo=datetime.UTC)
CAPTURED_ON = datetime.date(2026, 11, 20)


def later(seconds: float) -> datetime.datetime:
    return START + datetime.timedelta(seconds=seconds)


def cited_source(make_entry: Any, n: int = 1) -> Source:
    source = Source.objects.create(url=f"https://vendor.example/page-{n}", title=f"Page {n}")
    Citation.objects.create(entry=make_entry(f"Term {n}", slug=f"term-{n}"), source=source)
    return source


def confirm(fact_checker: Any, *sources: Source) -> Any:
    """A fact-checker's "Mark confirmed today" in the source admin."""
    return client_for(fact_checker).post(
        reverse("admin:glossary_source_changelist"),
        {"action": "mark_confirmed_today", "_selected_action": [s.pk for s in sources]},
        follow=True,
    )


def queued(*sources: Source) -> None:
    """Requests as a confirmation leaves them, due from START."""
    ArchiveRequest.objects.filter(source__in=sources).update(next_attempt_at=START)


def test_confirming_a_source_queues_a_capture_without_touching_the_network(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    source = cited_source(make_entry)
    response = confirm(fact_checker, source)
    assert response.status_code == 200
    assert Citation.objects.get(source=source).checked_on is not None  # the confirmation stands
    request = ArchiveRequest.objects.get()
    assert (request.source, request.url, request.state) == (source, source.url, State.QUEUED)
    assert request.requested_by == fact_checker
    assert wayback.seen == []  # sent by a worker after the commit, never by the request


def test_a_capture_is_requested_with_the_keys_and_its_archive_url_goes_on_the_source(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    assert archive.run_due(START) == {"capturing": 1}
    [save] = wayback.saves()
    assert save.form == {"url": "https://vendor.example/page-1"}
    assert save.authorization == "LOW access:secret"
    assert archive.run_due(later(30)) == {"saved": 1}
    assert wayback.polls()[0].authorization == "LOW access:secret"
    source.refresh_from_db()
    assert source.archive_url == f"{wayback.base}/web/{TIMESTAMP}/https://vendor.example/page-1"
    assert source.archive_date == CAPTURED_ON
    request = ArchiveRequest.objects.get()
    assert request.state == State.SAVED
    assert request.archive_url == source.archive_url
    assert request.captured_at == datetime.datetime(2026, 11, 20, 9, 30, tzinfo=datetime.UTC)


def test_a_pending_capture_is_asked_about_no_more_often_than_the_poll_interval(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    wayback.pending_polls = 2
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    archive.run_due(START)
    assert archive.run_due(later(10)) == {}  # not due yet: nothing asked
    assert wayback.polls() == []
    assert archive.run_due(later(30)) == {"capturing": 1}
    assert archive.run_due(later(45)) == {}
    assert archive.run_due(later(60)) == {"capturing": 1}
    assert archive.run_due(later(90)) == {"saved": 1}
    assert len(wayback.polls()) == 3
    assert len(wayback.saves()) == 1
    source.refresh_from_db()
    assert source.archive_url.endswith(f"/web/{TIMESTAMP}/https://vendor.example/page-1")


def test_a_capture_still_pending_after_the_last_poll_fails_saying_so(
    wayback: FakeArchive, make_entry, fact_checker, settings
) -> None:
    settings.ARCHIVE_MAX_POLLS = 2
    wayback.pending_polls = 5
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    archive.run_due(START)
    archive.run_due(later(30))
    assert archive.run_due(later(60)) == {"failed": 1}
    request = ArchiveRequest.objects.get()
    assert request.state == State.FAILED
    assert request.error == "the capture was still pending after 2 status checks"
    source.refresh_from_db()
    assert source.archive_url == ""


def test_an_error_from_the_archive_fails_the_request_in_its_own_words(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    wayback.status_replies.append(
        Reply(
            200,
            {
                "status": "error",
                "status_ext": "error:blocked-url",
                "message": "This URL is in the Save Page Now service block list.",
            },
        )
    )
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    archive.run_due(START)
    assert archive.run_due(later(30)) == {"failed": 1}
    request = ArchiveRequest.objects.get()
    assert request.error == (
        "the archive could not save the page: error:blocked-url "
        "This URL is in the Save Page Now service block list."
    )
    source.refresh_from_db()
    assert source.archive_url == ""


def test_a_429_holds_every_send_until_its_retry_after_then_both_go(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    first, second = cited_source(make_entry, 1), cited_source(make_entry, 2)
    confirm(fact_checker, first, second)
    queued(first, second)
    wayback.save_replies.append(
        Reply(429, {"message": "You have already reached the limit"}, {"Retry-After": "120"})
    )
    assert archive.run_due(START) == {"queued": 2}
    # The second capture, claimed with the first, is not sent into the 429.
    assert len(wayback.saves()) == 1
    limited = ArchiveRequest.objects.get(source=first)
    assert limited.attempts == 1
    assert limited.error == "the archive asked us to slow down (HTTP 429)"
    assert limited.next_attempt_at >= later(120)
    assert ArchiveRequest.objects.get(source=second).attempts == 0  # not its fault
    assert archive.run_due(later(119)) == {}
    assert len(wayback.saves()) == 1
    assert archive.run_due(later(121)) == {"capturing": 2}
    assert archive.run_due(later(151)) == {"saved": 2}


def test_a_passing_fault_is_tried_again_with_doubling_backoff_then_given_up(
    wayback: FakeArchive, make_entry, fact_checker, settings
) -> None:
    settings.ARCHIVE_RETRIES = 2
    wayback.save_replies.extend([Reply(503, "<h1>Service unavailable</h1>") for _ in range(3)])
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    assert archive.run_due(START) == {"queued": 1}
    assert ArchiveRequest.objects.get().next_attempt_at == later(60)
    assert archive.run_due(later(59)) == {}
    assert archive.run_due(later(60)) == {"queued": 1}
    assert ArchiveRequest.objects.get().next_attempt_at == later(60 + 120)
    assert archive.run_due(later(180)) == {"failed": 1}
    request = ArchiveRequest.objects.get()
    assert request.error == (
        "the archive answered HTTP 503 with something that is not JSON (gave up after 3 attempts)"
    )
    assert len(wayback.saves()) == 3


def test_no_more_captures_are_under_way_than_the_concurrency_allows(
    wayback: FakeArchive, make_entry, fact_checker, settings
) -> None:
    settings.ARCHIVE_CONCURRENCY = 2
    settings.ARCHIVE_RATE_PER_MINUTE = 10
    wayback.pending_polls = 100
    sources = [cited_source(make_entry, n) for n in range(1, 5)]
    confirm(fact_checker, *sources)
    queued(*sources)
    assert archive.run_due(START) == {"capturing": 2}
    assert archive.run_due(later(61)) == {"capturing": 2}  # two polls, no new sends
    assert len(wayback.saves()) == 2


def test_no_more_capture_requests_go_out_in_a_minute_than_the_rate_allows(
    wayback: FakeArchive, make_entry, fact_checker, settings
) -> None:
    settings.ARCHIVE_CONCURRENCY = 10
    settings.ARCHIVE_RATE_PER_MINUTE = 3
    sources = [cited_source(make_entry, n) for n in range(1, 6)]
    confirm(fact_checker, *sources)
    queued(*sources)
    assert archive.run_due(START) == {"capturing": 3}
    assert archive.run_due(later(30)) == {"saved": 3}  # polls are not capture requests
    assert len(wayback.saves()) == 3
    assert archive.run_due(later(61)) == {"capturing": 2}
    assert len(wayback.saves()) == 5


def test_a_private_archive_address_is_never_requested_unless_allowed(
    wayback: FakeArchive, make_entry, fact_checker, settings
) -> None:
    settings.LINKCHECK_ALLOW_PRIVATE = []
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    assert archive.run_due(START) == {"failed": 1}
    assert wayback.seen == []
    request = ArchiveRequest.objects.get()
    assert "was not requested" in request.error
    assert "127.0.0.1" in request.error


def test_an_archive_that_does_not_answer_leaves_the_confirmation_and_tries_later(
    wayback: FakeArchive, make_entry, fact_checker, settings
) -> None:
    settings.ARCHIVE_BASE_URL = "http://127.0.0.1:9"  # discard: nothing listens
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    assert archive.run_due(START) == {"queued": 1}
    request = ArchiveRequest.objects.get()
    assert request.attempts == 1
    assert "did not answer" in request.error
    assert Citation.objects.get(source=source).checked_on is not None


@pytest.mark.parametrize(
    ("original_url", "http_status", "error"),
    [
        (
            "https://elsewhere.example/",
            200,
            "the archive captured https://elsewhere.example/, not "
            "https://vendor.example/page-1; not used",
        ),
        ("", 404, "the archive captured an HTTP 404 answer; not used"),
    ],
)
def test_a_capture_of_another_address_or_of_an_error_page_is_not_used(
    wayback: FakeArchive, make_entry, fact_checker, original_url, http_status, error
) -> None:
    wayback.original_url, wayback.http_status = original_url, http_status
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    archive.run_due(START)
    assert archive.run_due(later(30)) == {"failed": 1}
    assert ArchiveRequest.objects.get().error == error
    source.refresh_from_db()
    assert source.archive_url == ""


def test_a_capture_of_an_address_the_source_no_longer_has_is_not_used(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    archive.run_due(START)
    Source.objects.filter(pk=source.pk).update(url="https://vendor.example/moved")
    assert archive.run_due(later(30)) == {"failed": 1}
    source.refresh_from_db()
    assert source.archive_url == ""


def test_confirming_again_while_a_capture_is_under_way_asks_for_nothing_more(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    confirm(fact_checker, source)
    assert ArchiveRequest.objects.count() == 1


def test_a_source_cited_as_dead_or_found_broken_is_not_sent_for_capture(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    dead, broken = cited_source(make_entry, 1), cited_source(make_entry, 2)
    Source.objects.filter(pk=dead.pk).update(citation_status=Source.CitationStatus.DEAD)
    Source.objects.filter(pk=broken.pk).update(health=Source.Health.BROKEN)
    confirm(fact_checker, dead, broken)
    assert not ArchiveRequest.objects.exists()


def test_nothing_is_queued_while_archive_on_confirm_is_off(
    wayback: FakeArchive, make_entry, fact_checker, settings
) -> None:
    settings.ARCHIVE_ON_CONFIRM = False
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    assert not ArchiveRequest.objects.exists()


def test_the_checked_on_date_in_the_entry_admin_queues_a_capture_too(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    from tests.sourcetext.helpers import confirm_in_admin

    source = cited_source(make_entry)
    confirm_in_admin(fact_checker, Entry.objects.get(slug="term-1"))
    assert ArchiveRequest.objects.get().source == source


def test_the_task_runs_the_sweep(wayback: FakeArchive, make_entry, fact_checker) -> None:
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    assert tasks.archive_due.apply().get() == {"capturing": 1}
    assert len(wayback.saves()) == 1


def test_retry_after_reads_seconds_and_dates_and_caps_them(settings) -> None:
    settings.ARCHIVE_RETRY_AFTER_MAX = 600.0
    from editorial.linkcheck.download import Answer

    def wait(value: str) -> datetime.timedelta | None:
        return archive.retry_after(Answer(429, {"retry-after": value}, b""), START)

    assert wait("90") == datetime.timedelta(seconds=90)
    assert wait("Fri, 20 Nov 2026 09:02:00 GMT") == datetime.timedelta(seconds=120)
    assert wait("86400") == datetime.timedelta(seconds=600)
    assert wait("soon") is None


def test_a_source_deleted_while_its_capture_runs_ends_it_quietly(
    wayback: FakeArchive, make_entry, fact_checker
) -> None:
    source = cited_source(make_entry)
    confirm(fact_checker, source)
    queued(source)
    archive.run_due(START)
    Citation.objects.filter(source=source).delete()
    source.delete()
    assert archive.run_due(later(30)) == {}
    assert not ArchiveRequest.objects.exists()
