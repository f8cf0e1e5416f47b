"""The one door for the checker's outbound HTTP.

`Checker` owns one aiohttp session (a shared connection pool) and checks many
URLs concurrently, politely and safely:

* every hop is vetted by the guard (IP literals here, names in the resolver);
* HEAD first, GET when HEAD is refused (405/403/501) or when the page's text
  is wanted for its fingerprint; redirects are followed here, hop by hop,
  so each hop is vetted and the chain recorded;
* bodies are streamed and at most `max_bytes` are read;
* per-host concurrency and spacing, a global concurrency limit, and
  Retry-After on 429/503 pushes the host's next request back;
* timeouts, resets and 5xx are retried with backoff within the run.

The global limit is a fixed pool of `global_concurrency` worker tasks pulling
URLs from one queue (not a task per URL behind a semaphore): at 10,000 URLs a
task per URL cost more CPU and memory than the requests themselves. The guard's
verdict on an IP-literal host is cached for the checker's lifetime (it cannot
change); names are vetted by the resolver, whose vetted answers aiohttp caches.
"""

from __future__ import annotations

import asyncio
import errno
import random
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from email.utils import parsedate_to_datetime
from typing import Any, Self

import aiohttp
from django.conf import settings
from yarl import URL

from editorial.linkcheck import guard
from editorial.linkcheck.classify import REDIRECTS, Attempt, ErrorKind, Outcome, classify
from editorial.linkcheck.fingerprint import fingerprint

HEAD_REFUSED = frozenset({403, 405, 501})
TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "text/xml", "application/xml")
_CHUNK = 64 * 1024

_Job = tuple[str, "asyncio.Future[CheckResult]"] | None


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
    head_first: bool = True
    want_fingerprint: bool = True
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


class _HostGate:
    """Per-host politeness: a concurrency limit and a minimum start spacing."""

    def __init__(self, limit: int, spacing: float) -> None:
        self._semaphore = asyncio.Semaphore(limit) if limit > 0 else None
        self._spacing = spacing
        self._next_start = 0.0
        self._last_start = float("-inf")

    def push_back(self, seconds: float) -> None:
        self._next_start = max(self._next_start, time.monotonic() + seconds)

    async def acquire(self) -> None:
        if self._semaphore is not None:
            await self._semaphore.acquire()
        try:
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
            self._last_start = now
            self._next_start = max(self._next_start, now + self._spacing)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        if self._semaphore is not None:
            self._semaphore.release()


class _Failure(Exception):  # internal control flow
    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _describe_error(exc: BaseException) -> tuple[ErrorKind, str]:
    """Map an exception from aiohttp or the guard to an error kind and text."""
    if isinstance(exc, _Failure):
        return exc.kind, str(exc)
    if isinstance(exc, guard.Refused):
        return ErrorKind.GUARD, str(exc)
    if isinstance(exc, asyncio.TimeoutError | aiohttp.ServerTimeoutError):
        return ErrorKind.TIMEOUT, f"timed out ({type(exc).__name__})"
    if isinstance(exc, aiohttp.ClientConnectorCertificateError | aiohttp.ClientSSLError):
        return ErrorKind.TLS, f"TLS error: {exc}"
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        os_error = exc.os_error
        if isinstance(os_error, socket.gaierror) and os_error.errno in (
            socket.EAI_NONAME,
            getattr(socket, "EAI_NODATA", socket.EAI_NONAME),
        ):
            return ErrorKind.DNS_NOT_FOUND, f"DNS name not found: {exc.host}"
        return ErrorKind.DNS_ERROR, f"DNS lookup failed: {os_error}"
    if isinstance(exc, aiohttp.ClientConnectorError):
        if exc.os_error.errno == errno.ECONNREFUSED:
            return ErrorKind.CONNECTION_REFUSED, f"connection refused by {exc.host}:{exc.port}"
        return ErrorKind.CONNECTION_ERROR, f"could not connect: {exc.os_error}"
    if isinstance(exc, ssl.SSLError):
        return ErrorKind.TLS, f"TLS error: {exc}"
    if isinstance(
        exc,
        aiohttp.ServerDisconnectedError
        | aiohttp.ClientPayloadError
        | aiohttp.ClientOSError
        | ConnectionResetError,
    ):
        return ErrorKind.RESET, f"connection reset or closed early ({type(exc).__name__})"
    if isinstance(exc, aiohttp.InvalidURL | ValueError):
        return ErrorKind.INVALID_URL, f"invalid URL: {exc}"
    if isinstance(exc, aiohttp.ClientError):
        return ErrorKind.CONNECTION_ERROR, f"{type(exc).__name__}: {exc}"
    raise exc


def _is_text(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() in TEXT_TYPES


class Checker:
    """Checks URLs through one shared session. Use as an async context manager."""

    def __init__(self, options: FetchOptions) -> None:
        self.options = options
        self._gates: dict[str, _HostGate] = {}
        # host -> None (may connect) or the refusal; IP literals only, so it never goes stale.
        self._literal_verdicts: dict[str, guard.Refused | None] = {}
        self._session: aiohttp.ClientSession | None = None
        self._queue: asyncio.Queue[_Job] | None = None
        self._workers: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> Self:
        o = self.options
        connector = aiohttp.TCPConnector(
            limit=o.global_concurrency,
            limit_per_host=o.per_host,
            resolver=guard.GuardedResolver(o.allow),
            ttl_dns_cache=60,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(
                total=o.total_timeout, connect=o.connect_timeout, sock_read=o.read_timeout
            ),
            headers={"User-Agent": o.user_agent, "Accept": "text/html,*/*;q=0.8"},
            # Cookies from one site must never reach another, nor persist between checks.
            cookie_jar=aiohttp.DummyCookieJar(),
            auto_decompress=True,
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
                job[1].cancel()  # never started: its caller must not wait for ever
        if self._session is not None:
            await self._session.close()

    def _gate(self, host: str) -> _HostGate | None:
        o = self.options
        if o.per_host <= 0 and o.host_spacing <= 0:
            return None
        gate = self._gates.get(host)
        if gate is None:
            gate = self._gates[host] = _HostGate(o.per_host, o.host_spacing)
        return gate

    def submit(self, url: str) -> asyncio.Future[CheckResult]:
        """Queue `url` for the worker pool; the future resolves to its CheckResult.

        At most `global_concurrency` URLs are checked at once, whoever submitted them.
        """
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._workers = [
                asyncio.create_task(self._work(self._queue))
                for _ in range(self.options.global_concurrency)
            ]
        future: asyncio.Future[CheckResult] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((url, future))
        return future

    async def _work(self, queue: asyncio.Queue[_Job]) -> None:
        while True:
            job = await queue.get()
            if job is None:
                return
            url, future = job
            if future.cancelled():
                continue
            try:
                result = await self.check(url)
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
    ) -> list[CheckResult]:
        """Check each distinct URL once, concurrently; results in input order."""
        futures = [self.submit(url) for url in dict.fromkeys(urls)]
        if on_result is not None:
            for future in asyncio.as_completed(futures):
                maybe = on_result(await future)
                if maybe is not None:
                    await maybe
        return list(await asyncio.gather(*futures))

    async def check(self, url: str) -> CheckResult:
        """Check one URL, retrying transient faults; never raises for network errors."""
        o = self.options
        started = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            attempt, body_info = await self._attempt(url)
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
        fp, bytes_read, truncated = body_info
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
        )

    def _vet_literal(self, host: str) -> None:
        """guard.check_host_literal, remembered per host for this checker's lifetime."""
        try:
            verdict = self._literal_verdicts[host]
        except KeyError:
            try:
                guard.check_host_literal(host, self.options.allow)
                verdict = None
            except guard.Refused as exc:
                verdict = exc
            self._literal_verdicts[host] = verdict
        if verdict is not None:
            raise guard.Refused(str(verdict))

    async def _attempt(self, url: str) -> tuple[Attempt, tuple[str, int, bool]]:
        attempt = Attempt(url=url, final_url=url)
        try:
            body_info = await self._follow(url, attempt)
        except Exception as exc:  # every failure becomes an outcome
            attempt.error_kind, attempt.error = _describe_error(exc)
            return attempt, ("", 0, False)
        return attempt, body_info

    async def _follow(self, url: str, attempt: Attempt) -> tuple[str, int, bool]:
        o = self.options
        method = "HEAD" if o.head_first else "GET"
        current = URL(url, encoded=False)
        current_text = str(current)
        seen = {current_text}
        while True:
            attempt.final_url = current_text
            guard.check_scheme(current.scheme)
            host = current.host
            if not host:
                raise _Failure(ErrorKind.INVALID_URL, f"invalid URL: no host in {current}")
            self._vet_literal(host)
            status, headers, body, size, truncated = await self._fetch(method, current, host)
            attempt.status = status
            location = headers.get("Location")
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
                continue
            if status == 429 or status == 503:
                attempt.retry_after = parse_retry_after(headers.get("Retry-After"))
                gate = self._gate(host)
                if attempt.retry_after is not None and gate is not None:
                    # Later requests to this host, retries included, wait it out.
                    gate.push_back(min(attempt.retry_after, o.retry_after_max))
            attempt.challenge = headers.get("cf-mitigated", "").lower() == "challenge"
            content_type = headers.get("Content-Type", "")
            if method == "HEAD" and (
                status in HEAD_REFUSED
                or (o.want_fingerprint and 200 <= status < 300 and _is_text(content_type))
            ):
                method = "GET"
                continue
            if body is None:
                return "", 0, False
            fp = fingerprint(body, content_type) if o.want_fingerprint else ""
            return fp, size, truncated

    async def _fetch(
        self, method: str, url: URL, host: str
    ) -> tuple[int, Mapping[str, str], str | None, int, bool]:
        """One request: status, headers and (for a textual 2xx GET) the capped body text."""
        session = self._session
        if session is None:
            raise RuntimeError("use Checker as an async context manager")
        gate = self._gate(host)
        # The global limit is the worker pool's size: no semaphore per request.
        if gate is not None:
            await gate.acquire()
        try:
            async with session.request(method, url, allow_redirects=False) as response:
                status = response.status
                headers = response.headers
                if method != "GET" or not 200 <= status < 300:
                    return status, headers, None, 0, False
                if not _is_text(headers.get("Content-Type", "")):
                    return status, headers, None, 0, False
                raw, truncated = await self._read_capped(response)
                charset = response.charset or "utf-8"
        finally:
            if gate is not None:
                gate.release()
        try:
            text = raw.decode(charset, errors="replace")
        except LookupError:
            text = raw.decode("utf-8", errors="replace")
        return status, headers, text, len(raw), truncated

    async def _read_capped(self, response: aiohttp.ClientResponse) -> tuple[bytes, bool]:
        """Stream at most max_bytes of the body; never buffer more than that."""
        cap = self.options.max_bytes
        length = response.content_length
        if length is not None and length <= cap and not response.headers.get("Content-Encoding"):
            # The parser stops at Content-Length, so this cannot read more than the cap
            # (a compressed body could inflate past it, so it takes the streamed path).
            return await response.read(), False
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.content.iter_chunked(_CHUNK):
            chunks.append(chunk)
            size += len(chunk)
            if size >= cap:
                # Drop the connection rather than drain an endless body.
                response.close()
                return b"".join(chunks)[:cap], True
        return b"".join(chunks), False


async def check_urls(
    urls: Iterable[str],
    options: FetchOptions | None = None,
    on_result: Callable[[CheckResult], Awaitable[None] | None] | None = None,
) -> list[CheckResult]:
    """Check URLs with a fresh session; the plain entry point for callers."""
    async with Checker(options or FetchOptions.from_settings()) as checker:
        return await checker.check_many(urls, on_result)
