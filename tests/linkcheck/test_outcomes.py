"""Every case of the issue, served for real on 127.0.0.1, gets its documented outcome."""

from __future__ import annotations

import time

import pytest

from editorial.linkcheck.classify import Outcome
from tests.linkcheck.helpers import check_one
from tests.linkcheck.server import LocalSite

pytestmark = pytest.mark.usefixtures("allow_loopback")


def test_a_page_that_answers_is_ok_with_a_fingerprint(server: LocalSite) -> None:
    result = check_one(server.url("/ok"))
    assert result.outcome is Outcome.OK
    assert result.status_code == 200
    assert result.final_url == server.url("/ok")
    assert result.redirects == []
    assert len(result.fingerprint) == 64
    assert server.requests == [("GET", "/ok")]


def test_requests_name_the_project_and_a_contact_url(server: LocalSite, settings) -> None:
    check_one(server.url("/ok"))
    assert server.user_agents[0] == settings.LINKCHECK_USER_AGENT
    assert settings.LINKCHECK_CONTACT_URL in server.user_agents[0]


def test_a_file_that_is_not_text_is_checked_with_head_alone(server: LocalSite) -> None:
    result = check_one(server.url("/file.pdf"))
    assert result.outcome is Outcome.OK
    assert result.fingerprint == ""
    assert server.requests == [("HEAD", "/file.pdf")]


@pytest.mark.parametrize("status", [301, 308])
def test_a_permanent_redirect_is_moved_and_suggests_the_new_url(
    server: LocalSite, status: int
) -> None:
    result = check_one(server.url(f"/redirect/{status}?to=/ok"))
    assert result.outcome is Outcome.MOVED
    assert result.final_url == server.url("/ok")
    assert result.redirects == [
        {
            "url": server.url(f"/redirect/{status}?to=/ok"),
            "status": status,
            "location": server.url("/ok"),
        }
    ]


@pytest.mark.parametrize("status", [302, 303, 307])
def test_a_temporary_redirect_is_ok(server: LocalSite, status: int) -> None:
    result = check_one(server.url(f"/redirect/{status}?to=/ok"))
    assert result.outcome is Outcome.OK
    assert result.final_url == server.url("/ok")
    assert [hop["status"] for hop in result.redirects] == [status]


def test_a_redirect_loop_is_broken_and_stops(server: LocalSite) -> None:
    result = check_one(server.url("/loop-a"))
    assert result.outcome is Outcome.BROKEN
    assert "redirect loop" in result.error
    assert len(server.requests) == 2


def test_too_many_redirects_is_broken(server: LocalSite, settings) -> None:
    settings.LINKCHECK_MAX_REDIRECTS = 1
    chain = "/redirect/302?to=/redirect/302%3Fto%3D/ok"
    result = check_one(server.url(chain))
    assert result.outcome is Outcome.BROKEN
    assert "more than 1 redirects" in result.error


def test_a_redirect_to_the_site_root_is_broken(server: LocalSite) -> None:
    assert check_one(server.url("/redirect/301?to=/")).outcome is Outcome.BROKEN


def test_a_redirect_to_a_not_found_page_is_broken(server: LocalSite) -> None:
    assert check_one(server.url("/redirect/302?to=/not-found")).outcome is Outcome.BROKEN


@pytest.mark.parametrize("code", [404, 410])
def test_not_found_and_gone_are_broken_without_retries(server: LocalSite, code: int) -> None:
    result = check_one(server.url(f"/status/{code}"))
    assert result.outcome is Outcome.BROKEN
    assert result.status_code == code
    assert result.attempts == 1


def test_a_500_then_ok_is_retried_within_the_run(server: LocalSite) -> None:
    result = check_one(server.url("/flaky?case=500-then-ok"))
    assert result.outcome is Outcome.OK
    assert result.attempts == 2


def test_a_persistent_5xx_is_transient_after_the_retries(server: LocalSite, settings) -> None:
    result = check_one(server.url("/status/502"))
    assert result.outcome is Outcome.TRANSIENT
    assert result.attempts == settings.LINKCHECK_RETRIES + 1


def test_429_with_retry_after_waits_that_long_and_retries(server: LocalSite) -> None:
    started = time.monotonic()
    result = check_one(server.url("/busy-once?after=1"))
    assert result.outcome is Outcome.OK
    assert time.monotonic() - started >= 1.0
    assert result.attempts == 2


def test_429_asking_for_longer_than_the_cap_is_rate_limited_without_waiting(
    server: LocalSite,
) -> None:
    started = time.monotonic()
    result = check_one(server.url("/status/429?retry_after=3600"))
    assert result.outcome is Outcome.RATE_LIMITED
    assert result.retry_after == 3600
    assert time.monotonic() - started < 1.0
    assert len(server.requests) == 1


def test_503_with_retry_after_is_rate_limited_not_broken(server: LocalSite) -> None:
    result = check_one(server.url("/status/503?retry_after=3600"))
    assert result.outcome is Outcome.RATE_LIMITED


def test_a_response_slower_than_the_timeout_is_transient(server: LocalSite, settings) -> None:
    started = time.monotonic()
    result = check_one(server.url("/slow?seconds=5"))
    assert result.outcome is Outcome.TRANSIENT
    assert "timed out" in result.error
    assert result.attempts == settings.LINKCHECK_RETRIES + 1
    assert time.monotonic() - started < 3.0


def test_a_connection_reset_is_transient(server: LocalSite) -> None:
    result = check_one(server.url("/reset"))
    assert result.outcome is Outcome.TRANSIENT
    assert "reset" in result.error


def test_an_endless_body_is_read_only_up_to_the_cap(server: LocalSite, settings) -> None:
    result = check_one(server.url("/endless"))
    assert result.outcome is Outcome.OK
    assert result.truncated
    assert result.bytes_read == settings.LINKCHECK_MAX_BYTES
    assert result.fingerprint


def test_a_refused_connection_is_broken(server: LocalSite) -> None:
    result = check_one("http://127.0.0.1:1/page")
    assert result.outcome is Outcome.BROKEN
    assert "connection refused" in result.error
    assert result.attempts == 1


def test_a_name_that_does_not_exist_is_broken() -> None:
    result = check_one("http://no-such-host.invalid/page")
    assert result.outcome is Outcome.BROKEN
    assert "not found" in result.error


@pytest.mark.parametrize("code", [401, 402, 403, 999])
def test_forbidding_statuses_are_blocked(server: LocalSite, code: int) -> None:
    assert check_one(server.url(f"/status/{code}")).outcome is Outcome.BLOCKED


def test_a_bot_challenge_is_blocked(server: LocalSite) -> None:
    result = check_one(server.url("/status/200?challenge=1"))
    assert result.outcome is Outcome.BLOCKED


def test_a_non_http_scheme_is_refused(server: LocalSite) -> None:
    result = check_one("file:///etc/passwd")
    assert result.outcome is Outcome.REFUSED
    assert server.requests == []


# --- Pages that answer with nothing ------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/empty",  # 200, text/html, zero bytes
        "/app-shell",  # 200, a title, scripts and an empty <div id="root">
        "/no-content",  # 204
        "/empty-file",  # 200, Content-Length: 0
    ],
)
def test_a_page_that_answers_with_no_text_is_empty_not_ok(server: LocalSite, path: str) -> None:
    result = check_one(server.url(path))
    assert result.outcome is Outcome.EMPTY
    assert result.status_code in (200, 204)
    assert result.fingerprint == ""
    assert result.error == ("the page answered with no text to read (emptied, or built by scripts)")
    # Not retried within the run: an empty page is not a passing fault.
    assert server.requests == [("GET", path)]


def test_a_permanent_redirect_to_an_empty_page_is_empty_not_moved(server: LocalSite) -> None:
    result = check_one(server.url("/redirect/301?to=/empty"))
    assert result.outcome is Outcome.EMPTY
    assert result.final_url == server.url("/empty")


def test_a_file_checked_with_head_is_not_called_empty(server: LocalSite) -> None:
    # HEAD answers carry no body by definition; only a GET can find a page empty.
    assert check_one(server.url("/file.pdf")).outcome is Outcome.OK
