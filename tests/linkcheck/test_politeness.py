"""Per-host and global limits, spacing between requests, and Retry-After."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
import redis

from editorial.linkcheck import fetch
from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fetch import SharedSpacing, parse_retry_after
from tests.linkcheck.helpers import check
from tests.linkcheck.server import LocalSite
from tests.redis_server import shared_redis_url

pytestmark = pytest.mark.usefixtures("allow_loopback")


@pytest.fixture
def no_collection() -> Iterator[None]:
    """No garbage collection while requests are timed: a collection of the whole suite's
    heap can pause this process for a spacing's length between a request's turn and its
    bytes leaving, and the server would see two requests at once that were spaced."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _urls(server: LocalSite, n: int, hold: float) -> list[str]:
    return [server.url(f"/track/{i}?hold={hold}") for i in range(n)]


def test_at_most_two_requests_run_at_once_on_one_host(server: LocalSite) -> None:
    results = check(*_urls(server, 8, 0.1))
    assert {r.outcome for r in results} == {Outcome.OK}
    assert server.peak_active == 2


def test_the_global_limit_caps_concurrency_when_per_host_limits_are_lifted(
    server: LocalSite, settings
) -> None:
    settings.LINKCHECK_PER_HOST_CONCURRENCY = 0
    check(*_urls(server, 12, 0.1), global_concurrency=3)
    assert server.peak_active == 3


@pytest.mark.usefixtures("no_collection")
def test_requests_to_one_host_are_spaced_apart(server: LocalSite, settings) -> None:
    settings.LINKCHECK_HOST_SPACING = 0.2
    began = time.monotonic()
    check(*_urls(server, 4, 0.0))
    # One GET per check: 4 requests, each started no earlier than its slot, 0.2 s apart.
    assert len(server.requests) == 4
    assert _before_their_slots(server.start_times, began, 0.2) == [], server.start_times


def test_retry_after_holds_back_the_whole_host(server: LocalSite, settings) -> None:
    settings.LINKCHECK_PER_HOST_CONCURRENCY = 1  # so the other page queues behind the 429
    results = check(server.url("/busy-once?after=1"), server.url("/track/x?hold=0"))
    assert [r.outcome for r in results] == [Outcome.OK, Outcome.OK]
    asked_to_wait_at = server.request_times[server.requests.index(("GET", "/busy-once?after=1"))]
    other_page_at = server.request_times[server.requests.index(("GET", "/track/x?hold=0"))]
    # The other page on the host was not asked for until Retry-After had passed.
    assert other_page_at - asked_to_wait_at >= 1.0


def test_retry_after_in_seconds_and_as_an_http_date_are_both_understood() -> None:
    assert parse_retry_after("120") == 120.0
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=90), usegmt=True)
    assert parse_retry_after(later, now=now.timestamp()) == pytest.approx(90.0)
    earlier = format_datetime(now - timedelta(seconds=90), usegmt=True)
    assert parse_retry_after(earlier, now=now.timestamp()) == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


REDIS_URL = shared_redis_url("LINKCHECK_TEST_REDIS_URL")


@pytest.fixture
def shared_spacing(allow_loopback) -> Iterator[str]:
    """Host slots shared through the test Redis, starting from a clean slate for the host."""
    client = redis.Redis.from_url(REDIS_URL)
    keys = SharedSpacing.keys("127.0.0.1")
    client.delete(*keys)
    allow_loopback.LINKCHECK_SHARED_SPACING_URL = REDIS_URL
    yield REDIS_URL
    client.delete(*keys)
    client.close()


def _before_their_slots(start_times: list[float], began: float, spacing: float) -> list[float]:
    """The requests (seconds after `began`) that started before a slot `spacing` apart let them.

    Slots fix the earliest a request may start, `spacing` apart from when the checks
    began, so the i-th request to start starts no earlier than i slots in. A busy machine
    only delays a start, so no gap between two starts is bounded below: a late one leaves
    a short gap to the next. The server's loop reads the same monotonic clock, its time
    kept per loop turn: 0.05 s allows for that.
    """
    return [
        round(start - began, 3)
        for i, start in enumerate(sorted(start_times))
        if start < began + spacing * i - 0.05
    ]


def _check_in_threads(*batches: list[str]) -> list[list[Outcome]]:
    """Run one checker per batch at the same time, each on its own loop, like two workers."""
    start = threading.Barrier(len(batches))
    outcomes: list[list[Outcome]] = [[] for _ in batches]

    def run(index: int) -> None:
        start.wait()
        outcomes[index] = [r.outcome for r in check(*batches[index])]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(batches))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.usefixtures("shared_spacing", "no_collection")
def test_two_checkers_sharing_the_slots_space_their_requests_to_one_host(
    server: LocalSite, settings
) -> None:
    settings.LINKCHECK_HOST_SPACING = 0.3
    began = time.monotonic()
    outcomes = _check_in_threads(_urls(server, 3, 0.0), _urls(server, 6, 0.0)[3:])
    assert outcomes == [[Outcome.OK] * 3] * 2
    assert len(server.start_times) == 6
    # Unshared, two requests would start in each slot.
    assert _before_their_slots(server.start_times, began, 0.3) == [], server.start_times


def test_without_shared_slots_two_checkers_each_keep_only_their_own_spacing(
    server: LocalSite, settings
) -> None:
    # The case the shared slots exist for: each checker alone is polite, together not.
    settings.LINKCHECK_HOST_SPACING = 0.3
    _check_in_threads(_urls(server, 3, 0.0), _urls(server, 6, 0.0)[3:])
    starts = sorted(server.start_times)
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert min(gaps) < 0.2


@pytest.mark.usefixtures("shared_spacing")
def test_retry_after_seen_by_one_checker_holds_back_the_host_for_another(
    server: LocalSite, settings
) -> None:
    settings.LINKCHECK_HOST_SPACING = 0.05
    check(server.url("/busy-once?after=1"))
    check(server.url("/track/y?hold=0"))  # another checker (a new session), later
    asked_to_wait_at = server.request_times[server.requests.index(("GET", "/busy-once?after=1"))]
    other_page_at = server.request_times[server.requests.index(("GET", "/track/y?hold=0"))]
    assert other_page_at - asked_to_wait_at >= 1.0


def test_a_long_lived_checker_forgets_the_gates_of_idle_hosts(monkeypatch) -> None:
    monkeypatch.setattr(fetch, "_MAX_GATES", 2)

    async def gates_kept() -> list[str]:
        checker = fetch.Checker(fetch.FetchOptions(host_spacing=0.0, per_host=2))
        busy = checker._gate("busy.example")
        assert busy is not None
        await busy.acquire()  # a request in flight: its gate must stay
        checker._gate("idle.example")
        checker._gate("new.example")  # the third gate: the idle one goes
        return sorted(checker._gates)

    assert asyncio.run(gates_kept()) == ["busy.example", "new.example"]


def test_with_a_spacing_the_global_limit_still_caps_requests_in_flight(
    server: LocalSite, settings
) -> None:
    # Checks waiting for their host's turn no longer hold a place in the pool, so
    # the pool is larger; the limit on requests actually in flight must still hold.
    settings.LINKCHECK_PER_HOST_CONCURRENCY = 0
    settings.LINKCHECK_HOST_SPACING = 0.001
    check(*_urls(server, 12, 0.1), global_concurrency=3)
    assert server.peak_active == 3
