"""Server-side request forgery guard: which addresses the checker may connect to.

Every hop of every check goes through `check_host_literal` (for IP-literal
hosts) or through `Resolver` (for names), and every socket the transport
opens is vetted once more with `check_address` on the address it is about to
connect to (`transport`, libcurl's OPENSOCKETFUNCTION): redirects, every
address a name has, and any answer a DNS server changes in between included.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOWED_SCHEMES = frozenset({"http", "https"})


class Refused(Exception):
    """The checker will not fetch this URL for safety reasons.

    Deliberately not an OSError: a refusal must never be mistaken for a failed
    lookup or connection, that is for a broken link.
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


def _networks(*texts: str) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(text) for text in texts)


# Every range the IANA special-purpose registries (RFC 6890 and later) mark as not
# globally reachable, spelled out because the standard library's view depends on the
# Python release (3.11 takes 192.0.0.8 and 3fff::1 for global addresses).
NOT_GLOBAL: tuple[IPNetwork, ...] = _networks(
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
    "::/128",
    "::1/128",
    "64:ff9b:1::/48",  # RFC 8215: NAT64 for local use
    "100::/64",
    "2001::/23",  # IETF protocol assignments, Teredo among them
    "2001:db8::/32",
    "3fff::/20",
    "5f00::/16",
    "fc00::/7",
    "fe80::/10",
    "fec0::/10",
    "ff00::/8",
)

# IPv6 forms that are only a wrapper round one IPv4 address: a connection to one of
# them is a connection to that IPv4 host, public or not.
IPV4_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
IPV4_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")  # RFC 2765 (SIIT)
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # RFC 4291, deprecated
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052 well-known prefix
WRAPPERS = (IPV4_MAPPED, IPV4_TRANSLATED, IPV4_COMPATIBLE, NAT64)

# ISATAP interface identifiers (RFC 5214): 0000:5efe or 0200:5efe, then the IPv4
# address, under any prefix; the mask ignores the universal/local and group bits.
_ISATAP_MASK = 0xFCFF_FFFF
_ISATAP_ID = 0x0000_5EFE


def _low32(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF)


def embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """Every IPv4 address a packet to `address` may be delivered to or through.

    IPv4-mapped, -translated and -compatible addresses and the NAT64 well-known
    prefix (RFC 6052) wrap one; 6to4 (RFC 3056) embeds the site's router;
    Teredo (RFC 4380) its server and, obfuscated, the client; an ISATAP
    interface identifier (RFC 5214) the tunnel end.
    """
    found: list[ipaddress.IPv4Address] = []
    if any(address in net for net in WRAPPERS) and int(address) > 1:  # not :: or ::1
        found.append(_low32(address))
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    if (int(address) >> 32) & _ISATAP_MASK == _ISATAP_ID:
        found.append(_low32(address))
    return tuple(found)


def _unmapped(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv4-mapped or -compatible IPv6 address stands for (the same
    host, for the allow-list); any other address as it is."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in IPV4_COMPATIBLE and int(address) > 1:
            return _low32(address)
    return address


def _is_global(address: IPAddress) -> bool:
    if any(address in net for net in NOT_GLOBAL if net.version == address.version):
        return False
    if (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    ):
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.is_site_local:
        return False
    # is_global also rules out shared (CGNAT) space and documentation ranges.
    return address.is_global


def refusal(address: IPAddress) -> str | None:
    """Why the checker may not connect to `address`, or None if it may."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = embedded_ipv4(address)
        hidden = next((v4 for v4 in embedded if not _is_global(v4)), None)
        if hidden is not None:
            return f"non-public address {address} (it carries {hidden})"
        if embedded and any(address in net for net in WRAPPERS):
            # Only a wrapper round a public IPv4 address (e.g. DNS64 on an IPv6-only host).
            return None
    if not _is_global(address):
        return f"non-public address {address}"
    return None


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
    reason = refusal(ip)
    if reason is not None:
        raise Refused(f"refused to connect to {reason}")


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
    """Vet an IP-literal host before a request to it (no lookup is made for it)."""
    ip = literal_address(host)
    if ip is not None:
        check_address(ip, allow)


# RFC 6761: localhost and every name under it are this machine, whatever DNS says.
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
LOOPBACK_SUFFIX = ".localhost"
# Names that only mean something on a local network (mDNS, RFC 6762; RFC 8375; the
# private-use TLD ICANN reserved in 2024): never a public source, and resolving one
# would ask the local network.
LOCAL_SUFFIXES = (".local", ".home.arpa", ".internal", ".localdomain", ".lan")
# Top-level names that never exist (RFC 2606, RFC 6761): answered "not found" here, as
# the root servers would, without a query. Documentation and demo sources use them
# (docs/demo.md), and confirming a citation fetches its page.
NONEXISTENT_SUFFIXES = (".invalid", ".example")


def loopback_name(host: str) -> bool:
    """Whether `host` names this machine however it is spelled (case, a trailing dot)."""
    name = host.rstrip(".").lower()
    return name in LOOPBACK_NAMES or name.endswith(LOOPBACK_SUFFIX)


def check_host_name(host: str) -> None:
    """Refuse a name that can only mean a machine on the local network."""
    name = host.rstrip(".").lower()
    if f".{name}".endswith(LOCAL_SUFFIXES):
        raise Refused(f"refused to fetch {host}: a name on the local network, not the internet")


def legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The address of an IPv4 literal in the forms inet_aton reads besides dotted
    decimal (2130706433, 0x7f.1, 0177.0.0.1), which resolvers turn into addresses
    without asking anyone; None for a name."""
    if not host or not all(c in "0123456789abcdefxABCDEFX." for c in host):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


class Resolver:
    """Resolves names to the addresses the guard allows, and only those.

    If every address of a name is refused, raises Refused (the connection is
    never attempted). Some refused and some allowed: only the allowed ones are
    returned, and the transport connects to exactly those (`transport.pin`),
    so a DNS answer that changes between this check and the connection cannot
    slip through; every socket is vetted again when it is opened anyway.

    Some hosts never reach the system resolver: localhost in any spelling is the
    loopback addresses (RFC 6761), a number in an old IPv4 spelling is that
    address, and local-network names are refused outright. The others are looked
    up with `socket.getaddrinfo` in the loop's default executor (as asyncio's
    own loop does; uvloop's and libcurl's resolvers would bypass the socket
    module, and with it anything that wraps it, such as the tests' network
    fence). Vetted answers are kept `ttl` seconds, so a host's name is not looked
    up once per URL; failures are not kept.
    """

    def __init__(self, allow: tuple[IPNetwork, ...] | None = None, ttl: float = 60.0) -> None:
        self._allow = allowed_networks() if allow is None else allow
        self._ttl = ttl
        self._cache: dict[tuple[str, int], tuple[float, tuple[str, ...]]] = {}

    async def resolve(self, host: str, port: int) -> tuple[str, ...]:
        """The vetted addresses of `host` (a name, not an IP literal), as text."""
        loop = asyncio.get_running_loop()
        key = (host, port)
        kept = self._cache.get(key)
        if kept is not None and kept[0] > loop.time():
            return kept[1]
        check_host_name(host)
        if f".{host.rstrip('.').lower()}".endswith(NONEXISTENT_SUFFIXES):
            raise socket.gaierror(socket.EAI_NONAME, f"{host}: Name or service not known")
        legacy = legacy_ipv4(host)
        if loopback_name(host):
            found = ["127.0.0.1", "::1"]
        elif legacy is not None:
            found = [str(legacy)]
        else:
            lookup = functools.partial(
                socket.getaddrinfo, host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
            infos = await loop.run_in_executor(None, lookup)
            found = [str(info[4][0]).split("%", 1)[0] for info in infos]
        vetted: list[str] = []
        refusals: list[str] = []
        for address in dict.fromkeys(found):
            try:
                check_address(address, self._allow)
            except Refused as exc:
                refusals.append(str(exc))
            else:
                vetted.append(address)
        if not vetted:
            reason = refusals[0] if refusals else "no addresses"
            raise Refused(f"{host} resolves only to refused addresses ({reason})")
        if len(self._cache) >= _MAX_KEPT:
            now = loop.time()
            self._cache = {k: v for k, v in self._cache.items() if v[0] > now}
        answer = tuple(vetted)
        self._cache[key] = (loop.time() + self._ttl, answer)
        return answer


# Names whose vetted answers a Resolver keeps before it drops the expired ones.
_MAX_KEPT = 10_000
