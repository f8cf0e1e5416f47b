"""Fetch one document whole, through the link checker's guard: transcripts (and feeds).

The checker (fetch.Checker) reads a page only as far as its fingerprint needs; a
transcript must be read whole or not at all. This is the same door with a different
purpose: every hop's scheme and address vetted by the guard (IP literals here, names in
the resolver), redirects followed hop by hop, the checker's timeouts, no cookies, and a
byte cap past which the download stops and is refused rather than cut short.
"""

from __future__ import annotations

import aiohttp
from yarl import URL

from editorial.linkcheck import guard
from editorial.linkcheck.classify import REDIRECTS
from editorial.linkcheck.fetch import FetchOptions, run


class DownloadError(Exception):
    """The document could not be fetched whole; the message says why, for a person."""


def download(url: str, *, max_bytes: int, options: FetchOptions | None = None) -> bytes:
    """The body of `url` (after redirects), at most `max_bytes` long. Raises DownloadError."""
    return run(_download(url, max_bytes, options or FetchOptions.from_settings()))


async def _download(url: str, max_bytes: int, o: FetchOptions) -> bytes:
    connector = aiohttp.TCPConnector(limit=1, resolver=guard.GuardedResolver(o.allow))
    timeout = aiohttp.ClientTimeout(
        total=o.total_timeout, connect=o.connect_timeout, sock_read=o.read_timeout
    )
    async with aiohttp.ClientSession(
        connector=connector,
        timeout=timeout,
        headers={"User-Agent": o.user_agent},
        cookie_jar=aiohttp.DummyCookieJar(),
    ) as session:
        try:
            return await _follow(session, URL(url.strip(), encoded=False), max_bytes, o)
        except guard.Refused as exc:
            raise DownloadError(f"{url} was not fetched: {exc}") from None
        except TimeoutError:
            raise DownloadError(f"{url} did not answer in time") from None
        except (aiohttp.ClientError, ValueError, OSError) as exc:
            raise DownloadError(f"{url} could not be fetched: {exc}") from None


async def _follow(
    session: aiohttp.ClientSession, current: URL, max_bytes: int, o: FetchOptions
) -> bytes:
    for _ in range(o.max_redirects + 1):
        guard.check_scheme(current.scheme)
        if not current.host:
            raise DownloadError(f"{current} has no host")
        guard.check_host_literal(current.host, o.allow)
        async with session.get(current, allow_redirects=False) as response:
            location = response.headers.get("Location")
            if response.status in REDIRECTS and location:
                current = current.join(URL(location))
                continue
            if response.status != 200:
                raise DownloadError(f"{current} answered HTTP {response.status}")
            if (response.content_length or 0) > max_bytes:
                raise DownloadError(f"{current} is larger than the limit of {max_bytes:,} bytes")
            body = bytearray()
            async for chunk in response.content.iter_chunked(64 * 1024):
                body += chunk
                if len(body) > max_bytes:
                    raise DownloadError(
                        f"{current} is larger than the limit of {max_bytes:,} bytes"
                    )
            return bytes(body)
    raise DownloadError(f"more than {o.max_redirects} redirects")
