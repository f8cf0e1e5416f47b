"""How a URL is fetched: one streamed GET per page, read only as far as the fingerprint needs.

Requests are counted on the local test server; "stopped reading" is proven by
bytes read and by bodies that never end (a reader that did not stop would
hit the byte cap or the read timeout instead of finishing with `ok`).
"""

from __future__ import annotations

from typing import Any

import pytest

from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fetch import _find_text_end
from editorial.linkcheck.fingerprint import fingerprint
from tests.linkcheck.helpers import check, check_one
from tests.linkcheck.server import LONG_PAGE_TEXT, LocalSite, long_page_head, page

pytestmark = pytest.mark.usefixtures("allow_loopback")

CAP = 2 * 1024 * 1024


@pytest.fixture
def full_cap(allow_loopback: Any) -> Any:
    """The production byte cap, so that reading to it would be megabytes."""
    allow_loopback.LINKCHECK_MAX_BYTES = CAP
    return allow_loopback


def test_an_html_page_is_checked_with_exactly_one_get(server: LocalSite, settings) -> None:
    assert settings.LINKCHECK_HEAD_FIRST is False  # the default
    result = check_one(server.url("/ok"))
    assert result.outcome is Outcome.OK and result.fingerprint
    assert server.requests == [("GET", "/ok")]


def test_every_page_of_a_run_costs_one_request(server: LocalSite) -> None:
    urls = [server.url(f"/ok?page={i}") for i in range(20)]
    results = check(*urls)
    assert {r.outcome for r in results} == {Outcome.OK}
    assert sorted(path for _method, path in server.requests) == sorted(
        f"/ok?page={i}" for i in range(20)
    )
    assert {method for method, _path in server.requests} == {"GET"}


def test_a_redirect_costs_one_request_per_hop(server: LocalSite) -> None:
    result = check_one(server.url("/redirect/301?to=/ok"))
    assert result.outcome is Outcome.MOVED and result.fingerprint
    assert server.requests == [("GET", "/redirect/301?to=/ok"), ("GET", "/ok")]


def test_with_head_first_an_html_page_costs_a_head_and_a_get(server: LocalSite, settings) -> None:
    settings.LINKCHECK_HEAD_FIRST = True
    result = check_one(server.url("/ok"))
    assert result.outcome is Outcome.OK and result.fingerprint
    assert server.requests == [("HEAD", "/ok"), ("GET", "/ok")]


def test_with_head_first_a_head_refused_with_405_falls_back_to_get(
    server: LocalSite, settings
) -> None:
    settings.LINKCHECK_HEAD_FIRST = True
    result = check_one(server.url("/head-405"))
    assert result.outcome is Outcome.OK
    assert server.requests == [("HEAD", "/head-405"), ("GET", "/head-405")]


def test_a_file_like_path_whose_head_is_refused_gets_a_get(server: LocalSite) -> None:
    result = check_one(server.url("/refuses-head.pdf"))
    assert result.outcome is Outcome.OK
    assert server.requests == [("HEAD", "/refuses-head.pdf"), ("GET", "/refuses-head.pdf")]


def test_a_file_like_path_that_serves_a_page_is_fetched_for_its_fingerprint(
    server: LocalSite,
) -> None:
    result = check_one(server.url("/page.pdf"))
    assert result.outcome is Outcome.OK
    assert result.fingerprint == fingerprint(page("Not a PDF after all."))
    assert server.requests == [("HEAD", "/page.pdf"), ("GET", "/page.pdf")]


@pytest.mark.usefixtures("full_cap")
def test_a_body_that_is_not_text_is_not_read(server: LocalSite) -> None:
    result = check_one(server.url("/download"))  # endless: reading it could never finish
    assert result.outcome is Outcome.OK
    assert (result.bytes_read, result.fingerprint, result.truncated) == (0, "", False)
    assert server.requests == [("GET", "/download")]
    assert server.hung_up["/download"].wait(10), "the checker kept the download open"


# A byte cap far beyond what the kernel's socket buffers hold, and the most a server
# can hand to a connection whose reader has stopped before it notices the hang-up.
HUGE_CAP = 128 * 1024 * 1024
BUFFERED_AT_MOST = 16 * 1024 * 1024


@pytest.fixture
def huge_cap(allow_loopback: Any) -> Any:
    """A cap so large that a reader going on to it would make the server send it all."""
    allow_loopback.LINKCHECK_MAX_BYTES = HUGE_CAP
    return allow_loopback


@pytest.mark.usefixtures("huge_cap")
@pytest.mark.parametrize("path", ["/long?after=main", "/long?after=html", "/download"])
def test_the_server_sends_only_what_fits_in_the_buffers_before_the_checker_hangs_up(
    server: LocalSite, path: str
) -> None:
    """Counted at the server: stopping early (the main text is complete, or the body
    is not text) means the server stops writing, not just that the checker ignores it."""
    result = check_one(server.url(path))
    assert result.outcome is Outcome.OK and not result.truncated
    endpoint = path.split("?", 1)[0]
    assert server.hung_up[endpoint].wait(10), "the checker kept the connection open"
    assert 0 < server.bytes_sent[endpoint] < BUFFERED_AT_MOST
    assert result.bytes_read < BUFFERED_AT_MOST
    assert server.requests == [("GET", path)]


@pytest.mark.usefixtures("full_cap")
def test_a_long_page_is_read_only_until_its_main_text_is_complete(server: LocalSite) -> None:
    result = check_one(server.url("/long?after=main"))  # an endless footer after </main>
    assert result.outcome is Outcome.OK
    assert not result.truncated
    assert len(long_page_head("main")) <= result.bytes_read < CAP // 4
    assert server.requests == [("GET", "/long?after=main")]
    assert server.hung_up["/long"].wait(10), "the checker kept reading the footer"
    # The same fingerprint as the whole page had it ended after its footer.
    assert result.fingerprint == fingerprint(page(LONG_PAGE_TEXT))


@pytest.mark.usefixtures("full_cap")
def test_a_page_followed_by_an_endless_tail_is_read_only_to_its_end(server: LocalSite) -> None:
    result = check_one(server.url("/long?after=html"))
    assert result.outcome is Outcome.OK
    assert not result.truncated
    assert result.bytes_read < CAP // 4
    assert result.fingerprint == fingerprint(page(LONG_PAGE_TEXT))
    assert server.hung_up["/long"].wait(10)


@pytest.mark.usefixtures("full_cap")
def test_a_slow_endless_tail_does_not_hold_the_check_until_it_times_out(
    server: LocalSite,
) -> None:
    # The read timeout is 0.5 s and the tail trickles every 0.05 s: a reader that
    # waited for the end would run into the total timeout and call the page transient.
    result = check_one(server.url("/long?after=main&slow=1"))
    assert result.outcome is Outcome.OK
    assert result.attempts == 1
    assert result.fingerprint == fingerprint(page(LONG_PAGE_TEXT))


def test_an_endless_page_with_no_end_tag_is_still_read_only_up_to_the_cap(
    server: LocalSite, settings
) -> None:
    result = check_one(server.url("/endless"))
    assert result.truncated
    assert result.bytes_read == settings.LINKCHECK_MAX_BYTES


def _end_found_feeding(body: bytes, chunk_size: int) -> int | None:
    """Feed `body` to the end-of-text search in chunks, as the streamed read does."""
    buffer = bytearray()
    scan_from = tries = 0
    for start in range(0, len(body), chunk_size):
        buffer += body[start : start + chunk_size]
        cut, scan_from, tries = _find_text_end(buffer, scan_from, tries, "utf-8", CAP)
        if cut is not None:
            return cut
    return None


@pytest.mark.parametrize("chunk_size", [1, 3, 7, 64, 1000, 100_000])
def test_the_end_of_the_main_text_is_found_however_the_body_is_split(chunk_size: int) -> None:
    body = (page("Split anywhere.") + "<p>tail</p>" * 100).encode()
    end = body.index(b"</main>") + len(b"</main>")
    assert _end_found_feeding(body, chunk_size) == end


def test_an_end_tag_inside_a_script_does_not_end_the_text() -> None:
    body = (
        b'<html><body><script>var t = "</main></body></html>";</script>'
        b"<main><p>Real text.</p></main><footer>f</footer></body></html>"
    )
    assert _end_found_feeding(body, 10) == body.index(b"</main><footer>") + len(b"</main>")


def test_a_compressed_page_is_read_and_fingerprinted_as_its_words(server: LocalSite) -> None:
    result = check_one(server.url("/gzip"))
    assert result.outcome is Outcome.OK
    assert result.fingerprint == fingerprint(page("Sent compressed."))
    assert result.bytes_read == len(page("Sent compressed.").encode())  # decoded bytes
    assert server.requests == [("GET", "/gzip")]


def test_pages_read_to_their_end_leave_the_connection_for_the_next_request(
    server: LocalSite, settings
) -> None:
    settings.LINKCHECK_PER_HOST_CONCURRENCY = 1  # one after the other
    results = check(*(server.url(f"/ok?n={i}") for i in range(3)))
    assert {r.outcome for r in results} == {Outcome.OK}
    assert len(set(server.peers)) == 1  # one client address and port: one connection


@pytest.mark.usefixtures("full_cap")
def test_a_body_left_unread_costs_its_connection_and_the_next_request_opens_another(
    server: LocalSite, settings
) -> None:
    settings.LINKCHECK_PER_HOST_CONCURRENCY = 1
    results = check(server.url("/download"), server.url("/ok"))
    assert [r.outcome for r in results] == [Outcome.OK, Outcome.OK]
    assert server.hung_up["/download"].wait(10)
    assert len(set(server.peers)) == 2
