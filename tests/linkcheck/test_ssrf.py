"""The checker refuses private, loopback and link-local targets, on every hop.

Each test proves refusal without traffic: the local server records nothing, and
the network fence (conftest) would fail the test had a connection gone anywhere
but loopback.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

from editorial.linkcheck import guard, transport
from editorial.linkcheck.classify import Outcome
from tests.linkcheck.helpers import check, check_one
from tests.linkcheck.server import LocalSite


@pytest.fixture
def no_allow_list(fast_checks):
    fast_checks.LINKCHECK_ALLOW_PRIVATE = []
    return fast_checks


@pytest.mark.usefixtures("no_allow_list")
@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/ok",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:{port}/ok",
        "http://[::ffff:127.0.0.1]:{port}/ok",
        "http://0.0.0.0:{port}/ok",
        "http://192.168.1.1/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://224.0.0.1/",
    ],
)
def test_a_non_public_address_is_refused_without_a_request(
    server: LocalSite, url: str, network_fence: list[str]
) -> None:
    result = check_one(url.format(port=server.port))
    assert result.outcome is Outcome.REFUSED
    assert "refused" in result.error
    assert server.requests == []
    assert network_fence == []


@pytest.mark.usefixtures("no_allow_list")
@pytest.mark.parametrize(
    "url",
    [
        "http://[2002:7f00:1::]/",
        "http://[2002:a9fe:a9fe::]/latest/meta-data/",
        "http://[2001:0:7f00:1::]/",
        "http://[2001:0:808:808::80ff:fffe]/",
        "http://[64:ff9b::7f00:1]:{port}/ok",
        "http://[64:ff9b:1::a9fe:a9fe]/",
        "http://[::127.0.0.1]:{port}/ok",
        "http://[::ffff:0:7f00:1]:{port}/ok",
        "http://[fe80::5efe:7f00:1]/",
        "http://[2606:4700::200:5efe:a9fe:a9fe]/",
        "http://localhost.:{port}/ok",
        "http://LOCALHOST:{port}/ok",
        "http://localhost.localdomain:{port}/ok",
        "http://app.localhost:{port}/ok",
        "http://0x7f.1:{port}/ok",
        "http://0x7f000001:{port}/ok",
        "http://printer.local/",
    ],
)
def test_a_private_address_in_disguise_is_refused_without_a_request_or_a_lookup(
    server: LocalSite, url: str, network_fence: list[str]
) -> None:
    result = check_one(url.format(port=server.port))
    assert result.outcome is Outcome.REFUSED, result.error
    assert "refused" in result.error
    assert server.requests == []
    assert network_fence == []


@pytest.mark.usefixtures("no_allow_list")
@pytest.mark.parametrize("host", ["2130706433", "0177.0.0.1", "127.1"])
def test_an_all_digit_old_ipv4_spelling_is_rejected_as_a_url_before_any_connection(
    server: LocalSite, host: str, network_fence: list[str]
) -> None:
    # The URL parser (yarl) refuses these itself; hex spellings reach the guard above.
    result = check_one(f"http://{host}:{server.port}/ok")
    assert result.outcome in (Outcome.BROKEN, Outcome.REFUSED)
    assert "not a canonical IPv4 address" in result.error or "refused" in result.error
    assert server.requests == []
    assert network_fence == []


@pytest.mark.usefixtures("no_allow_list")
def test_a_hostname_that_resolves_to_loopback_is_refused(server: LocalSite) -> None:
    result = check_one(f"http://localhost:{server.port}/ok")
    assert result.outcome is Outcome.REFUSED
    assert "localhost resolves only to refused addresses" in result.error
    assert server.requests == []


@pytest.mark.usefixtures("no_allow_list")
def test_a_decimal_encoded_loopback_address_is_refused(server: LocalSite) -> None:
    result = check_one(f"http://2130706433:{server.port}/ok")
    assert result.outcome in (Outcome.REFUSED, Outcome.BROKEN)
    assert server.requests == []


@pytest.mark.usefixtures("allow_loopback")
@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/admin",
        "http://[::1]:{port}/ok",
        "http://127.0.0.2:{port}/ok",
    ],
)
def test_a_redirect_from_the_allowed_server_to_a_refused_address_is_refused(
    server: LocalSite, target: str
) -> None:
    target = target.format(port=server.port)
    result = check_one(server.url(f"/redirect/302?to={target}"))
    assert result.outcome is Outcome.REFUSED
    # Only the first hop reached the server; the refused hop was never fetched.
    assert len(server.requests) == 1
    assert server.paths()[0].startswith("/redirect/302?to=")
    assert result.redirects[-1]["location"] == target


@pytest.mark.usefixtures("allow_loopback")
def test_the_allow_list_lets_the_test_server_through(server: LocalSite) -> None:
    assert check_one(server.url("/ok")).outcome is Outcome.OK


@pytest.mark.usefixtures("allow_loopback")
def test_a_name_with_an_allowed_and_a_refused_address_connects_only_to_the_allowed(
    server: LocalSite,
) -> None:
    # localhost is 127.0.0.1 and ::1 here; only 127.0.0.1 is on the allow-list.
    result = check_one(f"http://localhost:{server.port}/ok")
    assert result.outcome is Outcome.OK


@pytest.mark.usefixtures("allow_loopback")
def test_a_refused_address_stays_refused_for_every_url_and_hop_of_a_run(
    server: LocalSite, network_fence: list[str]
) -> None:
    # The guard's verdict on an IP literal is remembered for the run: the second
    # and third URLs on the refused host must get the refusal too, not a pass.
    refused = f"http://[::1]:{server.port}/ok"
    results = check(
        refused,
        f"{refused}?again",
        server.url(f"/redirect/302?to=http://[::1]:{server.port}/ok"),
        server.url("/ok"),
    )
    assert [r.outcome for r in results] == [Outcome.REFUSED] * 3 + [Outcome.OK]
    # Only the redirect hop and the allowed page reached the server.
    assert sorted(path.split("?")[0] for _method, path in server.requests) == [
        "/ok",
        "/redirect/302",
    ]
    assert network_fence == []


def test_names_are_looked_up_through_the_socket_module_on_the_checkers_event_loop(
    server: LocalSite, allow_loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    # uvloop resolves inside libuv unless told otherwise, where neither the network
    # fence nor anything else that wraps socket.getaddrinfo would see the lookup.
    # The name is answered here, as loopback, so no lookup leaves the process
    # ("localhost" itself is no longer looked up at all: the guard knows it).
    allow_loopback.LINKCHECK_ALLOW_PRIVATE = ["127.0.0.1", "::1"]
    looked_up: list[str] = []
    fenced = socket.getaddrinfo

    def answering(host: str, *args: Any, **kwargs: Any) -> Any:
        looked_up.append(host)
        return fenced("127.0.0.1" if host == "checker.test" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", answering)
    result = check_one(f"http://checker.test:{server.port}/ok")
    assert result.outcome is Outcome.OK
    assert "checker.test" in looked_up


@pytest.mark.usefixtures("allow_loopback")
def test_a_socket_is_vetted_on_the_address_it_connects_to_whatever_the_lookup_said(
    server: LocalSite, monkeypatch: pytest.MonkeyPatch, network_fence: list[str]
) -> None:
    # DNS rebinding, or any bug between the lookup and the connection: the name's
    # vetted answer is swapped for a refused address. The transport's socket-level
    # check (libcurl's OPENSOCKETFUNCTION) still refuses it, and nothing is sent.
    async def rebound(self: guard.Resolver, host: str, port: int) -> tuple[str, ...]:
        return ("127.0.0.2",)

    monkeypatch.setattr(guard.Resolver, "resolve", rebound)
    result = check_one(f"http://rebinding.test:{server.port}/ok")
    assert result.outcome is Outcome.REFUSED
    assert "127.0.0.2" in result.error
    assert server.requests == []
    assert network_fence == []


@pytest.mark.usefixtures("allow_loopback")
def test_a_lookups_answer_is_the_only_address_the_transport_may_use_for_the_name(
    server: LocalSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name exists only for the guard's resolver; libcurl looking it up itself
    # (through the system resolver, out of the guard's sight) would find nothing.
    looked_up: list[str] = []

    async def answering(self: guard.Resolver, host: str, port: int) -> tuple[str, ...]:
        looked_up.append(host)
        return ("127.0.0.1",)

    monkeypatch.setattr(guard.Resolver, "resolve", answering)
    results = check(*(f"http://pinned.test:{server.port}/ok?n={i}" for i in range(3)))
    assert [r.outcome for r in results] == [Outcome.OK] * 3
    assert looked_up == ["pinned.test"] * 3
    assert [peer[0] for peer in server.peers] == ["127.0.0.1"] * 3  # type: ignore[index]


def test_the_fence_stands_where_the_transport_makes_its_sockets(
    network_fence: list[str],
) -> None:
    # libcurl connects in C, past the socket module the fence patches; the fence
    # must sit on the seam where every transport socket is made. Only a socket is
    # asked for here, never connected: even a broken fence would send nothing.
    with pytest.raises(ConnectionRefusedError):
        transport.new_socket(socket.AF_INET, socket.SOCK_STREAM, 0, ("192.0.2.10", 80))
    assert network_fence == ["libcurl connect to ('192.0.2.10', 80)"]
    network_fence.clear()  # seen and stopped: what the fence is for
