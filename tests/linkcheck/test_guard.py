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
