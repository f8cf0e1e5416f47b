"""Address rules of the SSRF guard."""

from __future__ import annotations

import ipaddress

import pytest
from django.core.exceptions import ImproperlyConfigured

from editorial.linkcheck import guard


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.8.8",
        "10.0.0.1",
        "172.16.0.1",
        "192.168.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "fec0::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "::127.0.0.1",
        "2001:db8::1",
    ],
)
def test_non_public_addresses_are_refused(address: str) -> None:
    with pytest.raises(guard.Refused):
        guard.check_address(address, allow=())


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700::6810:84e5", "8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    guard.check_address(address, allow=())


def test_the_allow_list_admits_exactly_what_it_names() -> None:
    allow = guard.parse_allow_list(["127.0.0.1", "::1", "10.1.0.0/16"])
    guard.check_address("127.0.0.1", allow)
    guard.check_address("::1", allow)
    guard.check_address("10.1.2.3", allow)
    guard.check_address("::ffff:127.0.0.1", allow)
    with pytest.raises(guard.Refused):
        guard.check_address("127.0.0.2", allow)
    with pytest.raises(guard.Refused):
        guard.check_address("10.2.0.1", allow)


def test_the_allow_list_rejects_nonsense_loudly() -> None:
    with pytest.raises(ImproperlyConfigured, match="not an IP address"):
        guard.parse_allow_list(["localhost"])


def test_the_allow_list_is_empty_by_default(settings) -> None:
    assert guard.parse_allow_list([]) == ()
    settings.LINKCHECK_ALLOW_PRIVATE = ["127.0.0.1"]
    assert guard.allowed_networks() == (ipaddress.ip_network("127.0.0.1/32"),)


@pytest.mark.parametrize("scheme", ["file", "ftp", "gopher", "javascript", ""])
def test_only_http_and_https_are_fetched(scheme: str) -> None:
    with pytest.raises(guard.Refused):
        guard.check_scheme(scheme)
    guard.check_scheme("https")
    guard.check_scheme("HTTP")


@pytest.mark.parametrize(
    ("address", "hidden"),
    [
        ("2002:7f00:1::", "127.0.0.1"),  # 6to4
        ("2002:a9fe:a9fe::", "169.254.169.254"),
        ("2002:a00:1::1", "10.0.0.1"),
        ("2001:0:7f00:1::", "127.0.0.1"),  # Teredo: the server
        ("2001:0:808:808::80ff:fffe", "127.0.0.1"),  # Teredo: the obfuscated client
        ("64:ff9b::7f00:1", "127.0.0.1"),  # NAT64, the well-known prefix
        ("64:ff9b::a9fe:a9fe", "169.254.169.254"),
        ("::a9fe:a9fe", "169.254.169.254"),  # IPv4-compatible
        ("::ffff:a9fe:a9fe", "169.254.169.254"),  # IPv4-mapped
        ("::ffff:0:7f00:1", "127.0.0.1"),  # IPv4-translated (SIIT)
        ("2606:4700::5efe:7f00:1", "127.0.0.1"),  # ISATAP
        ("2606:4700::200:5efe:a9fe:a9fe", "169.254.169.254"),  # ISATAP, universal bit set
    ],
)
def test_an_ipv6_address_carrying_a_private_ipv4_address_is_refused_and_names_it(
    address: str, hidden: str
) -> None:
    with pytest.raises(guard.Refused, match=rf"\(it carries {hidden}\)"):
        guard.check_address(address, allow=())


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b:1::7f00:1",  # NAT64 for local use (RFC 8215)
        "64:ff9b:1::808:808",
        "192.0.0.8",  # IETF protocol assignments
        "3fff::1",  # documentation (RFC 9637)
        "5f00::1",  # SRv6 SIDs (RFC 9602)
        "2001:0:808:808::f7f7:f7f7",  # Teredo, even between public addresses
        "100::1",  # discard-only
    ],
)
def test_ranges_never_reachable_from_the_internet_are_refused_whatever_python_says(
    address: str,
) -> None:
    with pytest.raises(guard.Refused):
        guard.check_address(address, allow=())


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::808:808",  # an IPv6-only host's DNS64 answer for a public site
        "::ffff:8.8.8.8",
        "::ffff:0:808:808",
        "2002:808:808::1",
        "2606:4700::5efe:808:808",
    ],
)
def test_an_ipv6_address_carrying_a_public_ipv4_address_passes(address: str) -> None:
    guard.check_address(address, allow=())


def test_teredo_yields_both_the_server_and_the_deobfuscated_client() -> None:
    address = ipaddress.IPv6Address("2001:0:808:808::80ff:fffe")
    assert guard.embedded_ipv4(address) == (
        ipaddress.IPv4Address("8.8.8.8"),
        ipaddress.IPv4Address("127.0.0.1"),
    )


def test_an_address_carrying_nothing_yields_nothing() -> None:
    assert guard.embedded_ipv4(ipaddress.IPv6Address("2606:4700::6810:84e5")) == ()
    assert guard.embedded_ipv4(ipaddress.IPv6Address("::1")) == ()


@pytest.mark.parametrize(
    "host",
    ["localhost", "localhost.", "LOCALHOST", "LocalHost.", "localhost.localdomain", "a.localhost"],
)
def test_every_spelling_of_localhost_is_this_machine(host: str) -> None:
    assert guard.loopback_name(host)


@pytest.mark.parametrize("host", ["localhost.example.com", "notlocalhost", "example.com"])
def test_a_name_that_only_contains_localhost_is_not_this_machine(host: str) -> None:
    assert not guard.loopback_name(host)


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
    ],
)
def test_old_ipv4_spellings_are_read_as_the_address_they_mean(host: str, address: str) -> None:
    assert guard.legacy_ipv4(host) == ipaddress.IPv4Address(address)


@pytest.mark.parametrize("host", ["example.com", "deadbeef", "add.bed", "", "1.2.3.4.5"])
def test_a_name_is_not_an_old_ipv4_spelling(host: str) -> None:
    assert guard.legacy_ipv4(host) is None


@pytest.mark.parametrize(
    "host", ["printer.local", "nas.home.arpa", "db.internal", "router.lan", "local."]
)
def test_local_network_names_are_refused(host: str) -> None:
    with pytest.raises(guard.Refused, match="local network"):
        guard.check_host_name(host)


@pytest.mark.parametrize("host", ["example.com", "local.example.com", "internal.example"])
def test_public_names_that_mention_local_are_not_refused(host: str) -> None:
    guard.check_host_name(host)
