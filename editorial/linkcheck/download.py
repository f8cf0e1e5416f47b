"""Download one document whole (a podcast feed), or call an API, through the checker's door.

The link checker never keeps a body; importing a feed needs all of it. This is the
same door with the same rules (`fetch.FetchOptions.from_settings`, `transport`):
every hop is vetted by the guard (IP literals here, names in `guard.Resolver`, every
socket on the address it connects to), redirects are followed hop by hop (at most
`LINKCHECK_MAX_REDIRECTS`), the LINKCHECK_* timeouts apply, no cookies are kept, and
the body is read only up to `max_bytes`: a larger document is refused, never
truncated (half a feed would be a different feed).
"""

from __future__ import annotations

from dataclasses import dataclass

from yarl import URL

from editorial.linkcheck import guard, transport
from editorial.linkcheck.classify import REDIRECTS, ErrorKind
from editorial.linkcheck.fetch import FetchOptions, _describe_error, prepare, run


class DownloadError(Exception):
    """The document could not be downloaded; the message says why, naming the URL."""


class Refused(DownloadError):
    """The guard refused the address (a private one, a scheme other than http(s)):
    asking again cannot help."""


@dataclass(frozen=True)
class Downloaded:
    url: str  # where it was finally read, after redirects
    content_type: str
    body: bytes


class _Whole:
    """A 2xx body read whole, refused past `max_bytes`; any other body is not read."""

    def __init__(self, url: URL, max_bytes: int) -> None:
        self.url, self.max_bytes = url, max_bytes
        self.body = bytearray()

    def begin(self, status: int, headers: dict[str, str]) -> bool:
        return 200 <= status < 300

    def feed(self, chunk: bytes) -> bool:
        self.body += chunk
        if len(self.body) > self.max_bytes:
            raise DownloadError(
                f"{self.url} is larger than {self.max_bytes:,} bytes; refused, not cut short"
            )
        return True

    def partial(self) -> bool:
        return True


def _one_connection(options: FetchOptions, accept: str) -> tuple[guard.Resolver, transport.Session]:
    """The resolver and a one-connection session for a single download or exchange."""
    limits = transport.Limits(
        user_agent=options.user_agent,
        connect_timeout=options.connect_timeout,
        read_timeout=options.read_timeout,
        total_timeout=options.total_timeout,
        accept=accept,
        keep=1,
    )
    return guard.Resolver(options.allow), transport.Session(limits, options.allow)


async def _download(url: str, options: FetchOptions, max_bytes: int, accept: str) -> Downloaded:
    resolver, session = _one_connection(options, accept)
    try:
        current = URL(url, encoded=False)
        for _hop in range(options.max_redirects + 1):
            guard.check_scheme(current.scheme)
            if not current.host:
                raise DownloadError(f"{current} has no host")
            guard.check_host_literal(current.host, options.allow)
            sink = _Whole(current, max_bytes)
            response = await session.request(await prepare(resolver, "GET", current), sink)
            location = response.headers.get("location")
            if response.status in REDIRECTS and location is not None:
                current = current.join(URL(location))
                continue
            if not 200 <= response.status < 300:
                raise DownloadError(f"{current} answered HTTP {response.status}")
            if not response.complete:
                raise DownloadError(f"{current} ended before its whole body arrived")
            content_type = response.headers.get("content-type", "")
            return Downloaded(str(current), content_type, bytes(sink.body))
        raise DownloadError(f"{url}: more than {options.max_redirects} redirects")
    finally:
        await session.close()


@dataclass(frozen=True)
class Answer:
    """An API's answer, whatever its status: the body is read whole (up to the cap)."""

    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes


class _AnyBody(_Whole):
    """Every body read, whatever the status: an API explains its errors in the body."""

    def begin(self, status: int, headers: dict[str, str]) -> bool:
        return True


async def _exchange(
    method: str,
    url: str,
    options: FetchOptions,
    headers: tuple[str, ...],
    body: bytes | None,
    max_bytes: int,
    accept: str,
) -> Answer:
    resolver, session = _one_connection(options, accept)
    try:
        current = URL(url, encoded=False)
        guard.check_scheme(current.scheme)
        if not current.host:
            raise DownloadError(f"{current} has no host")
        guard.check_host_literal(current.host, options.allow)
        prepared = await prepare(resolver, "GET", current)
        request = transport.Request(method, prepared.url, prepared.pinned, headers, body)
        sink = _AnyBody(current, max_bytes)
        response = await session.request(request, sink)
        if not response.complete:
            raise DownloadError(f"{current} ended before its whole answer arrived")
        return Answer(response.status, response.headers, bytes(sink.body))
    finally:
        await session.close()


def exchange(
    method: str,
    url: str,
    *,
    headers: tuple[str, ...] = (),
    body: bytes | None = None,
    max_bytes: int,
    accept: str = "application/json",
) -> Answer:
    """One request to an API (no redirect followed) and its answer, whatever its status;
    DownloadError when there is none (refused by the guard, unreachable, too large).

    The same door as `download`: the guard vets the host and every socket, the
    LINKCHECK_* timeouts apply, and a private address is reached only when
    LINKCHECK_ALLOW_PRIVATE lists it.
    """
    options = FetchOptions.from_settings()
    try:
        return run(_exchange(method, url, options, headers, body, max_bytes, accept))
    except DownloadError:
        raise
    except guard.Refused as exc:
        raise Refused(f"{url} was not requested: {exc}") from None
    except Exception as exc:
        try:
            kind, text = _describe_error(exc)
        except Exception:
            raise exc from None
        if kind is ErrorKind.GUARD:
            raise Refused(f"{url} was not requested: {text}") from None
        raise DownloadError(f"{url} did not answer: {text}") from None


def download(url: str, *, max_bytes: int, accept: str = "*/*") -> Downloaded:
    """GET `url` whole (at most `max_bytes`), or raise DownloadError saying why.

    A URL the guard refuses (a non-http(s) scheme, a private or loopback address not
    in LINKCHECK_ALLOW_PRIVATE) is never requested.
    """
    options = FetchOptions.from_settings()
    try:
        return run(_download(url, options, max_bytes, accept))
    except DownloadError:
        raise
    except guard.Refused as exc:
        raise DownloadError(f"{url} was not fetched: {exc}") from None
    except Exception as exc:
        try:
            kind, text = _describe_error(exc)
        except Exception:
            raise exc from None
        if kind is ErrorKind.GUARD:
            raise DownloadError(f"{url} was not fetched: {text}") from None
        raise DownloadError(f"{url} could not be fetched: {text}") from None
