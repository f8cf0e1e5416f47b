"""Download one document whole (a podcast feed), through the checker's SSRF guard.

The link checker never keeps a body; importing a feed needs all of it. This is the
same door with the same rules (`fetch.FetchOptions.from_settings`): every hop is
vetted by the guard (IP literals here, names in `guard.GuardedResolver`), redirects
are followed hop by hop (at most `LINKCHECK_MAX_REDIRECTS`), the LINKCHECK_* timeouts
apply, no cookies are kept, and the body is read only up to `max_bytes`: a larger
document is refused, never truncated (half a feed would be a different feed).
"""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp
from yarl import URL

from editorial.linkcheck import guard
from editorial.linkcheck.classify import REDIRECTS
from editorial.linkcheck.fetch import FetchOptions, _describe_error, run


class DownloadError(Exception):
    """The document could not be downloaded; the message says why, naming the URL."""


@dataclass(frozen=True)
class Downloaded:
    url: str  # where it was finally read, after redirects
    content_type: str
    body: bytes


async def _download(url: str, options: FetchOptions, max_bytes: int, accept: str) -> Downloaded:
    connector = aiohttp.TCPConnector(limit=1, resolver=guard.GuardedResolver(options.allow))
    timeout = aiohttp.ClientTimeout(
        total=options.total_timeout, connect=options.connect_timeout, sock_read=options.read_timeout
    )
    async with aiohttp.ClientSession(
        connector=connector,
        timeout=timeout,
        headers={"User-Agent": options.user_agent, "Accept": accept},
        cookie_jar=aiohttp.DummyCookieJar(),
    ) as session:
        current = URL(url, encoded=False)
        for _hop in range(options.max_redirects + 1):
            guard.check_scheme(current.scheme)
            if not current.host:
                raise DownloadError(f"{current} has no host")
            guard.check_host_literal(current.host, options.allow)
            async with session.get(current, allow_redirects=False) as response:
                location = response.headers.get("Location")
                if response.status in REDIRECTS and location is not None:
                    current = current.join(URL(location))
                    continue
                if not 200 <= response.status < 300:
                    raise DownloadError(f"{current} answered HTTP {response.status}")
                body = bytearray()
                async for chunk in response.content.iter_chunked(64 * 1024):
                    body += chunk
                    if len(body) > max_bytes:
                        raise DownloadError(
                            f"{current} is larger than {max_bytes:,} bytes; refused, not cut short"
                        )
                return Downloaded(
                    str(current), response.headers.get("Content-Type", ""), bytes(body)
                )
        raise DownloadError(f"{url}: more than {options.max_redirects} redirects")


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
            _kind, text = _describe_error(exc)
        except Exception:
            raise exc from None
        raise DownloadError(f"{url} could not be fetched: {text}") from None
