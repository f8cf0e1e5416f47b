"""The one door for the checker's outbound HTTP.

`Checker` owns one transport session (libcurl's multi handle: a shared
connection pool, `transport`) and checks many URLs concurrently, politely and
safely:

* every hop is vetted by the guard (IP literals here, names in the resolver),
  and every socket once more on the address it connects to (`transport`);
* one GET per URL (per redirect hop): the body of a text page is streamed
  only until the fingerprint has what it needs (the main text is complete,
  `fingerprint.text_complete`) and at most `max_bytes`; any other body is not
  read, the connection is dropped instead. A path that names a file (.pdf,
  .mp3, ...) gets a HEAD first, and a GET only if HEAD is refused (405/403/501)
  or the answer is text after all; `head_first` does that for every URL.
  Redirects are followed here, hop by hop, so each hop is vetted and the
  chain recorded;
* per-host concurrency and spacing, a global concurrency limit, and
  Retry-After on 429/503 pushes the host's next request back;
* timeouts, resets and 5xx are retried with backoff within the run.

The global limit is a fixed pool of `global_concurrency` worker tasks pulling
URLs from one queue (not a task per URL behind a semaphore): at 10,000 URLs a
task per URL cost more CPU and memory than the requests themselves. The guard's
verdict on an IP-literal host is cached for the checker's lifetime (it cannot
change); names are vetted by the resolver, which keeps its vetted answers a minute.
"""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field, replace
from email.utils import parsedate_to_datetime
from typing import Any, Self, TypeVar

from django.conf import settings
from yarl import URL

from editorial.linkcheck import guard, transport
from editorial.linkcheck.classify import REDIRECTS, Attempt, ErrorKind, Outcome, classify
from editorial.linkcheck.fingerprint import END_MARK, END_MARK_OVERLAP, fingerprint, text_complete

HEAD_REFUSED = frozenset({403, 405, 501})
# What a check's history says of an empty page (Outcome.EMPTY).
EMPTY_PAGE = "the page answered with no text to read (emptied, or built by scripts)"
TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "text/xml", "application/xml")
# Files a podcast's sources link to that are never text: such a URL gets a HEAD
# first, so checking it keeps the connection and never starts a download.
BINARY_SUFFIXES = frozenset(
    {
        "mp3",
        "m4a",
        "aac",
        "ogg",
        "opus",
        "wav",
        "flac",
        "mp4",
        "m4v",
        "mov",
        "webm",
        "mkv",
        "pdf",
        "zip",
        "gz",
        "tgz",
        "bz2",
        "xz",
        "7z",
        "rar",
        "epub",
        "dmg",
        "exe",
        "iso",
        "png",
        "jpg",
        "jpeg",
        "gif",
        "webp",
    }
)
# With a host spacing, checks that may wait for their host's turn per request in flight.
# A check takes its host's next slot only once a place in the pool is free, so the pool
# must hold a few waiting checks per host, or a host's slot passes unused while its
# next URL queues for a place (and, slots being kept from real starts, the host's run
# drifts by a spacing): 2,048 places (64 x 32) hold two per host at 1,000 hosts.
_WAITING_PER_REQUEST = 32
# Per-host gates a checker keeps before it forgets the idle ones.
_MAX_GATES = 10_000
# End tags checked per body with text_complete before reading on to the end or cap.
_END_TRIES = 8
# Bytes of HTML taken within one read before looking for the end of the main text
# (otherwise looked for once what had arrived is taken, and only if the body goes on).
_SCAN_EVERY = 64 * 1024

# A URL, the fingerprints whose text is not wanted (None: no text at all), its future.
_Job = tuple[str, "Collection[str] | None", "asyncio.Future[CheckResult]"] | None
_Body_info = tuple[str, int, bool, str, str]
_NO_BODY: _Body_info = ("", 0, False, "", "")
T = TypeVar("T")


@dataclass(frozen=True)
class FetchOptions:
    """How the checker behaves; `from_settings` reads the LINKCHECK_* settings."""

    user_agent: str = "GlossaryDesk-LinkCheck/1.0"
    connect_timeout: float = 10.0
    read_timeout: float = 15.0
    total_timeout: float = 30.0
    max_bytes: int = 2 * 1024 * 1024
    max_redirects: int = 10
    per_host: int = 2  # 0 lifts the per-host limit
    host_spacing: float = 1.0
    global_concurrency: int = 64
    retries: int = 2
    backoff: float = 1.0
    retry_after_max: float = 60.0
    head_first: bool = False
    want_fingerprint: bool = True
    # Redis holding per-host start slots shared by every checker (all workers); "" keeps
    # the spacing within this checker only.
    shared_spacing_url: str = ""
    allow: tuple[guard.IPNetwork, ...] = ()

    @classmethod
    def from_settings(cls, **overrides: Any) -> FetchOptions:
        s = settings
        options = cls(
            user_agent=s.LINKCHECK_USER_AGENT,
            connect_timeout=s.LINKCHECK_CONNECT_TIMEOUT,
            read_timeout=s.LINKCHECK_READ_TIMEOUT,
            total_timeout=s.LINKCHECK_TOTAL_TIMEOUT,
            max_bytes=s.LINKCHECK_MAX_BYTES,
            max_redirects=s.LINKCHECK_MAX_REDIRECTS,
            per_host=s.LINKCHECK_PER_HOST_CONCURRENCY,
            host_spacing=s.LINKCHECK_HOST_SPACING,
            global_concurrency=s.LINKCHECK_CONCURRENCY,
            retries=s.LINKCHECK_RETRIES,
            backoff=s.LINKCHECK_BACKOFF,
            retry_after_max=s.LINKCHECK_RETRY_AFTER_MAX,
            head_first=s.LINKCHECK_HEAD_FIRST,
            shared_spacing_url=s.LINKCHECK_SHARED_SPACING_URL,
            allow=guard.allowed_networks(),
        )
        overrides = {k: v for k, v in overrides.items() if v is not None}
        return replace(options, **overrides)


@dataclass
class CheckResult:
    """The outcome of checking one URL, with everything a LinkCheck row records."""

    url: str
    outcome: Outcome
    status_code: int | None = None
    final_url: str = ""
    redirects: list[dict[str, object]] = field(default_factory=list)
    elapsed_ms: int = 0
    error: str = ""
    fingerprint: str = ""
    attempts: int = 1
    retry_after: float | None = None
    bytes_read: int = 0
    truncated: bool = False
    # The body as read (up to where the fingerprint stopped) and its Content-Type, kept
    # only when asked for and the fingerprint is not one the caller has the text of
    # (editorial.sourcetext stores the page's words). Never serialised.
    body: str = ""
    content_type: str = ""

    def as_json(self) -> dict[str, object]:
        return {
            "url": self.url,
            "outcome": str(self.outcome),
            "status_code": self.status_code,
            "final_url": self.final_url,
            "redirects": self.redirects,
            "elapsed_ms": self.elapsed_ms,
            "error": self.error,
            "fingerprint": self.fingerprint,
        }


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None or when.tzinfo is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


_NOW_MS = """
local now = redis.call('TIME')
local t = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
"""


class _Batched:
    """One Lua script called for many waiters at once: each waiter gives its keys (and
    its own arguments after the common ones) and gets the script's number for
    them. Waiters arriving within `gather` seconds share a call."""

    def __init__(self, script: Any, args: list[int], gather: float) -> None:
        self._script, self._args, self._gather = script, args, gather
        self._pending: list[tuple[list[str], list[int], asyncio.Future[int]]] = []
        self._flusher: asyncio.Task[None] | None = None

    async def __call__(self, keys: list[str], args: list[int] | None = None) -> int:
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append((keys, args or [], future))
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        try:
            while self._pending:
                await asyncio.sleep(self._gather)
                batch, self._pending = self._pending, []
                try:
                    keys = [key for waiter_keys, _, _ in batch for key in waiter_keys]
                    args = self._args + [arg for _, waiter_args, _ in batch for arg in waiter_args]
                    results = await self._script(keys=keys, args=args)
                except Exception as exc:  # every waiter gets the error, none hangs
                    for _, _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_, _, future), result in zip(batch, results, strict=True):
                    if not future.done():
                        future.set_result(int(result))
        finally:
            self._flusher = None

    def close(self) -> None:
        if self._flusher is not None:
            self._flusher.cancel()


class SharedSpacing:
    """Per-host request starts kept apart in Redis, for every checker on it.

    Each worker's checker has its own per-host gate; without this, two workers
    (or two tasks) checking URLs of one host would each keep their own spacing
    and together send twice as often. A request first takes the host's next
    free slot (a queue place, so waiters do not stampede) and sleeps until it
    (`wait_turn`); then, right before it is sent, it *starts* (`start`): Redis
    notes when, and refuses a start less than `spacing` after the host's last
    one, which a neighbour that was held up after its slot (a busy loop, the
    global limit) would otherwise make. Both are atomic Lua calls on Redis's
    clock, so workers on different machines agree. Requests that reach either
    step within `_GATHER` of each other share one Redis call: a round trip each
    cost more CPU than the rest of the check.
    """

    _PREFIX = "linkcheck:host:"
    _GATHER = 0.005  # seconds
    # KEYS: each waiter's next-free-slot key (a host may repeat); ARGV[1] spacing in ms,
    # ARGV[1 + i] the phase (ms) of KEYS[i]'s host should it have no slot yet.
    # Returns per key the ms until its slot.
    _RESERVE = (
        _NOW_MS
        + """
local spacing = tonumber(ARGV[1])
local waits = {}
for i, key in ipairs(KEYS) do
  local free = redis.call('GET', key)
  local slot = t + tonumber(ARGV[1 + i])
  if free then slot = math.max(t, tonumber(free)) end
  local free = slot + spacing
  redis.call('SET', key, free, 'PX', free - t + 1000)
  waits[i] = slot - t
end
return waits
"""
    )
    # KEYS: per waiter its host's last-start key then its next-free-slot key; ARGV[1]
    # spacing in ms. Returns per waiter 0 (started now, noted) or the ms to wait first.
    _START = (
        _NOW_MS
        + """
local spacing = tonumber(ARGV[1])
local waits = {}
for i = 1, #KEYS, 2 do
  local last = tonumber(redis.call('GET', KEYS[i]) or '0')
  if t < last + spacing then
    waits[#waits + 1] = last + spacing - t
  else
    redis.call('SET', KEYS[i], t, 'PX', spacing + 1000)
    local free = math.max(t + spacing, tonumber(redis.call('GET', KEYS[i + 1]) or '0'))
    redis.call('SET', KEYS[i + 1], free, 'PX', free - t + 1000)
    waits[#waits + 1] = 0
  end
end
return waits
"""
    )
    # KEYS[1] the host's next-free-slot key; ARGV[1] ms from now before which no slot is.
    _HOLD = (
        _NOW_MS
        + """
local free = math.max(t + tonumber(ARGV[1]), tonumber(redis.call('GET', KEYS[1]) or '0'))
redis.call('SET', KEYS[1], free, 'PX', free - t + 1000)
return free - t
"""
    )

    def __init__(self, url: str, spacing: float) -> None:
        import redis.asyncio

        self._client = redis.asyncio.Redis.from_url(url)
        self._spacing_ms = round(spacing * 1000)
        ms = [self._spacing_ms]
        reserve = self._client.register_script(self._RESERVE)
        start = self._client.register_script(self._START)
        self._reserve = _Batched(reserve, ms, self._GATHER)
        self._start = _Batched(start, ms, self._GATHER)
        self._hold = self._client.register_script(self._HOLD)

    @classmethod
    def keys(cls, host: str) -> list[str]:
        """The host's keys: its last start and its next free slot."""
        return [f"{cls._PREFIX}{host}:last", f"{cls._PREFIX}{host}:free"]

    async def wait_turn(self, host: str) -> None:
        """Take the host's next free slot and return when it has come.

        A host not seen within a spacing starts at a random phase within one: a
        batch's hosts would otherwise all come due at once, every spacing, and
        the burst's last requests would start late and drift the whole run.
        """
        phase = random.randrange(self._spacing_ms) if self._spacing_ms > 1 else 0  # noqa: S311
        wait_ms = await self._reserve(self.keys(host)[1:], [phase])
        if wait_ms > 0:
            await asyncio.sleep(wait_ms / 1000)

    async def start(self, host: str) -> None:
        """Return once Redis has noted this request's start (waiting first if needed)."""
        keys = self.keys(host)
        while (wait_ms := await self._start(keys)) > 0:
            await asyncio.sleep(wait_ms / 1000)

    async def hold(self, host: str, seconds: float) -> None:
        """No slot for the host for anyone during `seconds` (Retry-After)."""
        await self._hold(keys=self.keys(host)[1:], args=[max(1, round(seconds * 1000))])

    async def close(self) -> None:
        self._reserve.close()
        self._start.close()
        await self._client.aclose()


class _HostGate:
    """Per-host politeness: a concurrency limit and a minimum start spacing."""

    def __init__(
        self, limit: int, spacing: float, host: str = "", shared: SharedSpacing | None = None
    ) -> None:
        self._semaphore = asyncio.Semaphore(limit) if limit > 0 else None
        self._in_flight = 0  # requests holding or waiting for this gate
        self._spacing = spacing
        self._host = host
        self._shared = shared if spacing > 0 else None
        self._next_start = 0.0
        self._last_start = float("-inf")

    async def push_back(self, seconds: float) -> None:
        self._next_start = max(self._next_start, time.monotonic() + seconds)
        if self._shared is not None:
            await self._shared.hold(self._host, seconds)

    async def acquire(self) -> None:
        self._in_flight += 1
        try:
            if self._semaphore is not None:
                await self._semaphore.acquire()
        except BaseException:
            self._in_flight -= 1
            raise
        try:
            if self._shared is not None:
                await self._acquire_shared(self._shared)
            else:
                await self._acquire_local()
        except BaseException:
            self.release()
            raise

    async def _acquire_local(self) -> None:
        # Reserve a start time before sleeping so concurrent waiters queue up.
        now = time.monotonic()
        start = max(now, self._next_start)
        self._next_start = start + self._spacing
        while start > now:
            await asyncio.sleep(start - now)
            now = time.monotonic()
            # A busy event loop may have woken the previous request late:
            # keep the spacing from when it really started, not when it was due.
            start = max(start, self._last_start + self._spacing)

    async def _acquire_shared(self, shared: SharedSpacing) -> None:
        # A Retry-After this checker saw is held in Redis too; the local one is a floor.
        local = self._next_start - time.monotonic()
        if local > 0:
            await asyncio.sleep(local)
        await shared.wait_turn(self._host)

    async def start(self) -> None:
        """Right before the request goes out: note its real start, after waiting if the
        previous request to the host started less than a spacing ago (it, or this one,
        was held up after its turn: a busy loop, the limit on requests in flight)."""
        if self._shared is not None:
            await self._shared.start(self._host)
            return
        if self._spacing <= 0:
            return
        now = time.monotonic()
        while now < self._last_start + self._spacing:
            await asyncio.sleep(self._last_start + self._spacing - now)
            now = time.monotonic()
        self._last_start = now
        self._next_start = max(self._next_start, now + self._spacing)

    def release(self) -> None:
        self._in_flight -= 1
        if self._semaphore is not None:
            self._semaphore.release()

    def idle(self, now: float) -> bool:
        """Nothing in flight or waiting, and no spacing or Retry-After still to keep."""
        return self._in_flight == 0 and self._next_start <= now


class _Failure(Exception):  # internal control flow
    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _describe_error(exc: BaseException) -> tuple[ErrorKind, str]:
    """Map an exception from the transport, the resolver or the guard to an error kind
    and text; anything else is a bug and is raised again."""
    if isinstance(exc, _Failure | transport.TransportError):
        return exc.kind, str(exc)
    if isinstance(exc, guard.Refused):
        return ErrorKind.GUARD, str(exc)
    if isinstance(exc, ValueError):  # yarl's verdict on a URL
        return ErrorKind.INVALID_URL, f"invalid URL: {exc}"
    raise exc


async def prepare(
    resolver: guard.Resolver, method: str, url: URL, literal: bool | None = None
) -> transport.Request:
    """The transport's request for `url`: a name's vetted addresses pinned to it.

    An IP-literal host needs no lookup; vet it first (`guard.check_host_literal`).
    `literal` says whether the host is one, when the caller knows.
    """
    host = url.raw_host or ""
    if literal is None:
        literal = guard.literal_address(host) is not None
    if literal:
        return transport.Request(method, str(url))
    port = url.port or 0
    addresses = await _resolve(resolver, host, port)
    return transport.Request(method, str(url), transport.pin(host, port, addresses))


async def _resolve(resolver: guard.Resolver, host: str, port: int) -> tuple[str, ...]:
    try:
        return await resolver.resolve(host, port)
    except socket.gaierror as exc:
        if exc.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)):
            raise _Failure(ErrorKind.DNS_NOT_FOUND, f"DNS name not found: {host}") from None
        raise _Failure(ErrorKind.DNS_ERROR, f"DNS lookup failed: {exc}") from None
    except OSError as exc:
        raise _Failure(ErrorKind.DNS_ERROR, f"DNS lookup failed: {exc}") from None


def _is_text(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() in TEXT_TYPES


def _charset(content_type: str) -> str:
    """The charset parameter of a Content-Type, or utf-8."""
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip("\"'").lower() or "utf-8"
    return "utf-8"


class _PageSink:
    """How the checker reads one response's body (see `Checker._read`).

    Only a 2xx GET of a text type is read: HTML until the main text is
    complete (`_find_text_end`, checked on what has arrived whenever the body
    goes on after a read, and every `_SCAN_EVERY` bytes within one), any text
    at most `cap` bytes. Anything else is not read; the transport keeps the
    connection only if the body had arrived whole.
    """

    __slots__ = (
        "method",
        "cap",
        "content_type",
        "charset",
        "html",
        "buffer",
        "cut",
        "scan_from",
        "tries",
        "reading",
    )

    def __init__(self, method: str, cap: int) -> None:
        self.method = method
        self.cap = cap
        self.content_type = ""
        self.charset = "utf-8"
        self.html = False
        self.buffer = bytearray()
        self.cut: int | None = None  # where the fingerprinted text ends, when not at the end
        self.scan_from = 0
        self.tries = 0
        self.reading = False

    def begin(self, status: int, headers: dict[str, str]) -> bool:
        content_type = headers.get("content-type", "")
        if self.method != "GET" or not 200 <= status < 300 or not _is_text(content_type):
            return False  # hang up rather than download what nobody fingerprints
        self.reading = True
        self.content_type = content_type
        self.charset = _charset(content_type)
        self.html = "html" in content_type
        return True

    def feed(self, chunk: bytes) -> bool:
        self.buffer += chunk
        if len(self.buffer) >= self.cap:
            return False
        if self.html and len(self.buffer) - self.scan_from >= _SCAN_EVERY:
            # A fast server fills one read with a lot: look before it is all taken.
            return self.partial()
        return True

    def partial(self) -> bool:
        if self.html and self.tries < _END_TRIES:
            self.cut, self.scan_from, self.tries = _find_text_end(
                self.buffer, self.scan_from, self.tries, self.charset, self.cap
            )
            return self.cut is None
        return True

    def body(self, complete: bool) -> _Body | None:
        """The body as read: whole when all of it was taken (a page that arrives in
        one read, most pages, is never cut), else up to the end of its main text,
        or to the cap."""
        if not self.reading:
            return None
        buffer, cap = self.buffer, self.cap
        cut = None if complete else self.cut
        truncated = cut is None and len(buffer) >= cap and (len(buffer) > cap or not complete)
        if truncated:
            cut = cap
        raw = bytes(buffer if cut is None else buffer[:cut])
        return _Body(_decode(raw, self.charset), min(len(buffer), cap), truncated)


class Checker:
    """Checks URLs through one shared session. Use as an async context manager."""

    def __init__(self, options: FetchOptions) -> None:
        self.options = options
        self._gates: dict[str, _HostGate] = {}
        # host -> None (a name), True (an IP literal that may be connected to) or the
        # refusal: a literal's verdict never goes stale.
        self._literal_verdicts: dict[str, guard.Refused | bool | None] = {}
        self._session: transport.Session | None = None
        self._resolver: guard.Resolver | None = None
        self._queue: asyncio.Queue[_Job] | None = None
        self._workers: list[asyncio.Task[None]] = []
        self._shared: SharedSpacing | None = None
        self._in_flight: asyncio.Semaphore | None = None

    async def __aenter__(self) -> Self:
        o = self.options
        if o.shared_spacing_url and o.host_spacing > 0:
            self._shared = SharedSpacing(o.shared_spacing_url, o.host_spacing)
        self._resolver = guard.Resolver(o.allow)
        self._session = transport.Session(
            transport.Limits(
                user_agent=o.user_agent,
                connect_timeout=o.connect_timeout,
                read_timeout=o.read_timeout,
                total_timeout=o.total_timeout,
            ),
            o.allow,
        )
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for worker in self._workers:
            worker.cancel()
        if self._workers:
            await asyncio.gather(*self._workers, return_exceptions=True)
        self._workers = []
        queue, self._queue = self._queue, None
        while queue is not None and not queue.empty():
            job = queue.get_nowait()
            if job is not None:
                job[2].cancel()  # never started: its caller must not wait for ever
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._shared is not None:
            await self._shared.close()

    def _gate(self, host: str) -> _HostGate | None:
        o = self.options
        if o.per_host <= 0 and o.host_spacing <= 0:
            return None
        gate = self._gates.get(host)
        if gate is None:
            if len(self._gates) >= _MAX_GATES:
                self._forget_idle_gates()
            gate = self._gates[host] = _HostGate(o.per_host, o.host_spacing, host, self._shared)
        return gate

    def _forget_idle_gates(self) -> None:
        """Drop the gates of hosts with nothing in flight or held back: a checker kept
        for a worker's lifetime would otherwise keep one per host it ever saw."""
        now = time.monotonic()
        self._gates = {h: g for h, g in self._gates.items() if not g.idle(now)}
        if len(self._literal_verdicts) >= _MAX_GATES:
            self._literal_verdicts.clear()  # only a cache

    def submit(
        self, url: str, text_unless: Collection[str] | None = None
    ) -> asyncio.Future[CheckResult]:
        """Queue `url` for the worker pool; the future resolves to its CheckResult.

        At most `global_concurrency` URLs are checked at once, whoever submitted them.
        With `text_unless`, the result carries the page's body when its fingerprint
        is not among those (an empty collection: whenever there is a textual body).
        """
        if self._queue is None:
            self._queue = asyncio.Queue()
            o = self.options
            pool = o.global_concurrency
            if o.host_spacing > 0:
                # Checks waiting for their host's turn must not starve the others: a
                # larger pool, and the global limit on requests in flight instead.
                self._in_flight = asyncio.Semaphore(o.global_concurrency)
                pool *= _WAITING_PER_REQUEST
            self._workers = [asyncio.create_task(self._work(self._queue)) for _ in range(pool)]
        future: asyncio.Future[CheckResult] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((url, text_unless, future))
        return future

    async def _work(self, queue: asyncio.Queue[_Job]) -> None:
        while True:
            job = await queue.get()
            if job is None:
                return
            url, text_unless, future = job
            if future.cancelled():
                continue
            try:
                result = await self.check(url, text_unless)
            except asyncio.CancelledError:
                future.cancel()
                raise
            except Exception as exc:  # a bug, not a network error: hand it to the caller
                if not future.done():
                    future.set_exception(exc)
            else:
                if not future.done():
                    future.set_result(result)

    async def check_many(
        self,
        urls: Iterable[str],
        on_result: Callable[[CheckResult], Awaitable[None] | None] | None = None,
        text_unless: Mapping[str, Collection[str]] | None = None,
    ) -> list[CheckResult]:
        """Check each distinct URL once, concurrently; results in input order.

        `text_unless` maps a URL to the fingerprints whose text the caller already
        has; only those URLs may get their body (see `submit`).
        """
        wanted = text_unless or {}
        futures = [self.submit(url, wanted.get(url)) for url in dict.fromkeys(urls)]
        if on_result is not None:
            for future in asyncio.as_completed(futures):
                maybe = on_result(await future)
                if maybe is not None:
                    await maybe
        return list(await asyncio.gather(*futures))

    async def check(self, url: str, text_unless: Collection[str] | None = None) -> CheckResult:
        """Check one URL, retrying transient faults; never raises for network errors."""
        o = self.options
        started = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            attempt, body_info = await self._attempt(url, text_unless)
            outcome = classify(attempt)
            if attempts <= o.retries:
                if outcome is Outcome.TRANSIENT:
                    # Exponential backoff with jitter, so retries do not stampede a host.
                    delay = o.backoff * (2 ** (attempts - 1)) * random.uniform(0.5, 1.0)  # noqa: S311
                    await asyncio.sleep(delay)
                    continue
                if (
                    outcome is Outcome.RATE_LIMITED
                    and attempt.retry_after is not None
                    and attempt.retry_after <= o.retry_after_max
                ):
                    if self._gate(URL(attempt.final_url).host or "") is None:
                        await asyncio.sleep(attempt.retry_after)
                    continue  # otherwise the host gate already waits out Retry-After
            break
        fp, bytes_read, truncated, body, content_type = body_info
        if outcome is Outcome.EMPTY and not attempt.error:
            attempt.error = EMPTY_PAGE
        return CheckResult(
            url=url,
            outcome=outcome,
            status_code=attempt.status,
            final_url=attempt.final_url,
            redirects=attempt.redirects,
            elapsed_ms=int((time.monotonic() - started) * 1000),
            error=attempt.error,
            fingerprint=fp,
            attempts=attempts,
            retry_after=attempt.retry_after,
            bytes_read=bytes_read,
            truncated=truncated,
            body=body,
            content_type=content_type,
        )

    def _vet_literal(self, host: str) -> bool:
        """guard.check_host_literal, remembered per host for this checker's lifetime;
        whether `host` is an IP literal."""
        try:
            verdict = self._literal_verdicts[host]
        except KeyError:
            try:
                guard.check_host_literal(host, self.options.allow)
                verdict = True if guard.literal_address(host) is not None else None
            except guard.Refused as exc:
                verdict = exc
            self._literal_verdicts[host] = verdict
        if isinstance(verdict, guard.Refused):
            raise guard.Refused(str(verdict))
        return verdict is True

    async def _attempt(
        self, url: str, text_unless: Collection[str] | None = None
    ) -> tuple[Attempt, _Body_info]:
        attempt = Attempt(url=url, final_url=url)
        try:
            body_info = await self._follow(url, attempt, text_unless)
        except Exception as exc:  # every failure becomes an outcome
            attempt.error_kind, attempt.error = _describe_error(exc)
            return attempt, _NO_BODY
        return attempt, body_info

    async def _follow(
        self, url: str, attempt: Attempt, text_unless: Collection[str] | None = None
    ) -> _Body_info:
        o = self.options
        current = URL(url, encoded=False)
        method = "HEAD" if o.head_first or _looks_binary(current.path) else "GET"
        current_text = str(current)
        seen = {current_text}
        while True:
            attempt.final_url = current_text
            guard.check_scheme(current.scheme)
            host = current.host
            if not host:
                raise _Failure(ErrorKind.INVALID_URL, f"invalid URL: no host in {current}")
            literal = self._vet_literal(host)
            status, headers, body = await self._fetch(method, current, host, literal)
            attempt.status = status
            location = headers.get("location")
            if status in REDIRECTS and location is not None:
                try:
                    target = current.join(URL(location))
                except ValueError as exc:
                    raise _Failure(ErrorKind.INVALID_URL, f"bad redirect: {exc}") from None
                target_text = str(target)
                attempt.redirects.append(
                    {"url": current_text, "status": status, "location": target_text}
                )
                if target_text in seen:
                    raise _Failure(ErrorKind.REDIRECT_LOOP, f"redirect loop at {target}")
                if len(attempt.redirects) > o.max_redirects:
                    raise _Failure(
                        ErrorKind.TOO_MANY_REDIRECTS, f"more than {o.max_redirects} redirects"
                    )
                seen.add(target_text)
                current, current_text = target, target_text
                if not o.head_first:
                    method = "HEAD" if _looks_binary(current.path) else "GET"
                continue
            if status == 429 or status == 503:
                attempt.retry_after = parse_retry_after(headers.get("retry-after"))
                gate = self._gate(host)
                if attempt.retry_after is not None and gate is not None:
                    # Later requests to this host, retries included, wait it out.
                    await gate.push_back(min(attempt.retry_after, o.retry_after_max))
            attempt.challenge = headers.get("cf-mitigated", "").lower() == "challenge"
            content_type = headers.get("content-type", "")
            if method == "HEAD" and (
                status in HEAD_REFUSED
                or (o.want_fingerprint and 200 <= status < 300 and _is_text(content_type))
            ):
                method = "GET"
                continue
            if body is None:
                # A GET answered 2xx with nothing at all (204, or Content-Length: 0).
                attempt.empty = (
                    method == "GET"
                    and 200 <= status < 300
                    and (status == 204 or headers.get("content-length", "").strip() == "0")
                )
                return _NO_BODY
            fp = fingerprint(body.text, content_type) if o.want_fingerprint else ""
            # A text page read to its end (not cut at the byte cap) with no main text.
            attempt.empty = (
                o.want_fingerprint and 200 <= status < 300 and not fp and not body.truncated
            )
            # Only a page whose words are new to the caller: reading its text costs
            # about 1.6 fingerprints (docs/sources.md), and holding bodies costs memory.
            if text_unless is not None and 200 <= status < 300 and fp not in text_unless:
                return fp, body.bytes_read, body.truncated, body.text, content_type
            return fp, body.bytes_read, body.truncated, "", ""

    async def _fetch(
        self, method: str, url: URL, host: str, literal: bool | None = None
    ) -> tuple[int, Mapping[str, str], _Body | None]:
        """One request: status, headers and (for a textual 2xx GET) the body as read."""
        session, resolver = self._session, self._resolver
        if session is None or resolver is None:
            raise RuntimeError("use Checker as an async context manager")
        request = await prepare(resolver, method, url, literal)
        gate = self._gate(host)
        # The global limit is the worker pool's size, or with a spacing (when a
        # check may wait its host's turn) this semaphore: no waiting check holds it.
        if gate is not None:
            await gate.acquire()
        in_flight = self._in_flight
        try:
            if in_flight is not None:
                await in_flight.acquire()
            try:
                if gate is not None:
                    await gate.start()
                return await self._read(session, request)
            finally:
                if in_flight is not None:
                    in_flight.release()
        finally:
            if gate is not None:
                gate.release()

    async def _read(
        self, session: transport.Session, request: transport.Request
    ) -> tuple[int, Mapping[str, str], _Body | None]:
        """One request, its body read as `_PageSink` says.

        A page is read to its end, to the byte cap, or (HTML only) to the first
        `</main>`, `</body>` or `</html>` after which `fingerprint.text_complete`
        says nothing more counts. Stopping early, whatever has already arrived
        is taken; if that was the end the connection is reused, otherwise it
        is dropped rather than read on.
        """
        sink = _PageSink(request.method, self.options.max_bytes)
        response = await session.request(request, sink)
        return response.status, response.headers, sink.body(response.complete)


@dataclass(frozen=True, slots=True)
class _Body:
    text: str
    bytes_read: int  # taken from the stream (up to the cap), some maybe past `text`'s end
    truncated: bool  # stopped at the byte cap


def _decode(raw: bytes, charset: str) -> str:
    try:
        return raw.decode(charset, errors="replace")
    except LookupError:
        return raw.decode("utf-8", errors="replace")


def _find_text_end(
    buffer: bytearray, scan_from: int, tries: int, charset: str, cap: int
) -> tuple[int | None, int, int]:
    """Look for the first end tag after `scan_from` where the main text is complete.

    Returns (where the fingerprinted text ends or None, where to look next time,
    verifications so far). Each candidate end tag costs a pass over the prefix,
    so a body gets at most _END_TRIES of them.
    """
    for mark in END_MARK.finditer(buffer, scan_from, cap):
        tries += 1
        if text_complete(_decode(bytes(buffer[: mark.end()]), charset)):
            return mark.end(), mark.end(), tries
        if tries >= _END_TRIES:
            return None, len(buffer), tries
        scan_from = mark.end()
    return None, max(scan_from, len(buffer) - END_MARK_OVERLAP), tries


def _looks_binary(path: str) -> bool:
    """A path naming a file that is surely not text: HEAD avoids starting its download."""
    dot = path.rfind(".")
    return dot != -1 and path[dot + 1 :].lower() in BINARY_SUFFIXES


def new_event_loop() -> asyncio.AbstractEventLoop:
    """The event loop checks run on: uvloop's where it is installed, else asyncio's.

    uvloop does the same work for about a quarter less CPU per URL (its I/O,
    timers and callbacks are in C; see bench/README.md). Name lookups still go
    through the socket module (guard.GuardedResolver), whichever loop runs.
    """
    try:
        import uvloop
    except ImportError:  # e.g. on Windows, where uvloop does not exist
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """asyncio.run on `new_event_loop()`."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(coroutine)


async def check_urls(
    urls: Iterable[str],
    options: FetchOptions | None = None,
    on_result: Callable[[CheckResult], Awaitable[None] | None] | None = None,
    text_unless: Mapping[str, Collection[str]] | None = None,
) -> list[CheckResult]:
    """Check URLs with a fresh session; the plain entry point for callers."""
    async with Checker(options or FetchOptions.from_settings()) as checker:
        return await checker.check_many(urls, on_result, text_unless)
