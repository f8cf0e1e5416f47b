"""Server-side request forgery guard: which addresses the checker may connect to.

Every hop of every check goes through `check_host_literal` (for IP-literal
hosts, which aiohttp never hands to a resolver) or through `GuardedResolver`
(for names). The resolver returns only vetted addresses, and the connector
connects to exactly what the resolver returned, so a DNS answer that changes
between the check and the connect cannot slip through.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOWED_SCHEMES = frozenset({"http", "https"})


class Refused(Exception):
    """The checker will not fetch this URL for safety reasons.

    Deliberately not an OSError: aiohttp wraps OSErrors from a resolver as DNS
    failures, and a refusal must never be mistaken for a broken link.
    """


def parse_allow_list(items: Iterable[str]) -> tuple[IPNetwork, ...]:
    """Parse `LINKCHECK_ALLOW_PRIVATE` items (addresses or networks)."""
    networks: list[IPNetwork] = []
    for item in items:
        text = item.strip()
        if not text:
            continue
        try:
            networks.append(ipaddress.ip_network(text.strip("[]"), strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"LINKCHECK_ALLOW_PRIVATE: {text!r} is not an IP address or network"
            ) from None
    return tuple(networks)


def allowed_networks() -> tuple[IPNetwork, ...]:
    return parse_allow_list(getattr(settings, "LINKCHECK_ALLOW_PRIVATE", []))


def _unmapped(address: IPAddress) -> IPAddress:
    """The IPv4 address hidden in an IPv4-mapped or 6to4/NAT64-style IPv6 address."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        # IPv4-compatible (::a.b.c.d, deprecated) still routes to IPv4 on some stacks.
        if int(address) >> 32 == 0 and int(address) > 1:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def is_public(address: IPAddress) -> bool:
    """True when `address` is a globally routable unicast address."""
    inner = _unmapped(address)
    if (
        inner.is_loopback
        or inner.is_private
        or inner.is_link_local
        or inner.is_multicast
        or inner.is_reserved
        or inner.is_unspecified
    ):
        return False
    if isinstance(inner, ipaddress.IPv6Address) and inner.is_site_local:
        return False
    # is_global also rules out shared (CGNAT) space and documentation ranges.
    return inner.is_global


def check_address(address: IPAddress | str, allow: tuple[IPNetwork, ...] | None = None) -> None:
    """Raise Refused unless the checker may connect to `address`."""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if allow is None:
        allow = allowed_networks()
    inner = _unmapped(ip)
    if any(
        ip in net or inner in net for net in allow if net.version in (ip.version, inner.version)
    ):
        return
    if not is_public(ip):
        raise Refused(f"refused to connect to non-public address {ip}")


def literal_address(host: str) -> IPAddress | None:
    """The IP address if `host` is an IP literal (brackets allowed), else None."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def check_scheme(scheme: str) -> None:
    if scheme.lower() not in ALLOWED_SCHEMES:
        raise Refused(f"refused to fetch a {scheme or 'scheme-less'} URL; only http(s)")


def check_host_literal(host: str, allow: tuple[IPNetwork, ...] | None = None) -> None:
    """Vet an IP-literal host before aiohttp connects to it without resolving."""
    ip = literal_address(host)
    if ip is not None:
        check_address(ip, allow)


class _SocketModuleLookups:
    """getaddrinfo/getnameinfo from the socket module, in the loop's default executor.

    What asyncio's own event loop does. uvloop's loop resolves inside libuv
    instead, out of reach of anything that wraps socket.getaddrinfo, such as
    the tests' network fence; this keeps every lookup on the one documented path.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    async def getaddrinfo(
        self,
        host: str,
        port: int,
        *,
        family: int = 0,
        type: int = 0,
        proto: int = 0,
        flags: int = 0,
    ) -> list[Any]:
        lookup = functools.partial(socket.getaddrinfo, host, port, family, type, proto, flags)
        return await self._loop.run_in_executor(None, lookup)

    async def getnameinfo(self, sockaddr: tuple[Any, ...], flags: int = 0) -> tuple[str, str]:
        return await self._loop.run_in_executor(None, socket.getnameinfo, sockaddr, flags)


class GuardedResolver(AbstractResolver):
    """Resolves names and returns only addresses the guard allows.

    If every address of a name is refused, raises Refused (the connection is
    never attempted). Some refused and some allowed: only the allowed ones are
    returned, so the connector can only ever use a vetted address.
    """

    def __init__(self, allow: tuple[IPNetwork, ...] | None = None) -> None:
        lookups = _SocketModuleLookups(asyncio.get_running_loop())
        self._inner = ThreadedResolver(lookups)  # type: ignore[arg-type]
        self._allow = allowed_networks() if allow is None else allow

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        vetted: list[ResolveResult] = []
        refusals: list[str] = []
        for result in results:
            try:
                check_address(result["host"], self._allow)
            except Refused as exc:
                refusals.append(str(exc))
            else:
                vetted.append(result)
        if not vetted:
            reason = refusals[0] if refusals else "no addresses"
            raise Refused(f"{host} resolves only to refused addresses ({reason})")
        return vetted

    async def close(self) -> None:
        await self._inner.close()
