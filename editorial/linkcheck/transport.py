"""HTTP requests through libcurl (pycurl's multi interface), driven by the asyncio loop.

The request path is libcurl's C: connecting, TLS, writing the request, parsing
the response, keep-alive and decompression. Python sees one call per event on
a socket, one per chunk of body it asked for, and one when a transfer ends. An
aiohttp request cost twice the CPU of the whole rest of a check here
(bench/README.md), most of it its own request machinery in Python.

What the transport guarantees, whatever the caller asks:

* every socket is vetted by the SSRF guard on the very address it is about to
  connect to (OPENSOCKETFUNCTION), so no hop, no second address of a name and
  no changed DNS answer gets past `guard.check_address`;
* libcurl never resolves a name: the caller resolves it through
  `guard.Resolver` and pins the vetted addresses (`Request.pinned`);
* http and https only, no proxy from the environment, no cookies, no redirects
  followed (the caller follows them hop by hop), HTTP/1.1;
* a connect timeout, a total timeout and a read timeout (no byte for that
  long) on every transfer;
* a body is read only while its `Sink` wants more; once it has enough, what
  has already arrived is taken, and if that was not the end the connection is
  dropped rather than read on.
"""

from __future__ import annotations

import asyncio
import math
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import pycurl

from editorial.linkcheck import guard
from editorial.linkcheck.classify import ErrorKind

# libcurl's codes by what they mean for a check.
_TIMEOUTS = frozenset({pycurl.E_OPERATION_TIMEDOUT})
_TLS = frozenset(
    {
        pycurl.E_SSL_CONNECT_ERROR,
        pycurl.E_PEER_FAILED_VERIFICATION,
        pycurl.E_SSL_CERTPROBLEM,
        pycurl.E_SSL_CIPHER,
        pycurl.E_SSL_CACERT_BADFILE,
        pycurl.E_SSL_ISSUER_ERROR,
        pycurl.E_SSL_CRL_BADFILE,
        pycurl.E_SSL_PINNEDPUBKEYNOTMATCH,
        pycurl.E_SSL_INVALIDCERTSTATUS,
        getattr(pycurl, "E_SSL_SHUTDOWN_FAILED", -1),
        getattr(pycurl, "E_USE_SSL_FAILED", -1),
    }
)
_RESETS = frozenset(
    {
        pycurl.E_GOT_NOTHING,
        pycurl.E_RECV_ERROR,
        pycurl.E_SEND_ERROR,
        pycurl.E_PARTIAL_FILE,
        pycurl.E_BAD_CONTENT_ENCODING,
        getattr(pycurl, "E_HTTP2", -1),
        getattr(pycurl, "E_HTTP2_STREAM", -1),
    }
)
_INVALID = frozenset({pycurl.E_URL_MALFORMAT, pycurl.E_UNSUPPORTED_PROTOCOL})
# New transfers started together, at most (see Session.request).
_SEND_TOGETHER = 8


class TransportError(Exception):
    """A request that got no HTTP answer, with what kind of failure it was."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Sink(Protocol):
    """Where a response's body goes; the transport asks it whether to go on."""

    def begin(self, status: int, headers: dict[str, str]) -> bool:
        """The head has arrived; False: the body is not wanted at all."""

    def feed(self, chunk: bytes) -> bool:
        """A chunk of the (decoded) body; False: enough, read no more."""

    def partial(self) -> bool:
        """Everything that had arrived is fed and the body goes on; False: enough."""


@dataclass(frozen=True, slots=True)
class Request:
    method: str  # "GET", "HEAD" or "POST"
    url: str  # already encoded
    # "host:port:address[,address]" for a name: the addresses the guard vetted, the only
    # ones libcurl may use for it (CURLOPT_RESOLVE); empty for an IP-literal host.
    pinned: str = ""
    # Request headers besides the session's Accept ("Name: value"), and a POST's body:
    # only an API client sends them (editorial.archive); the link checker never does.
    headers: tuple[str, ...] = ()
    body: bytes | None = None


@dataclass(slots=True)
class Response:
    status: int
    headers: dict[str, str]  # names in lower case; the first of repeated headers
    # The body ended and the sink took all of it (or there was none); False when it
    # was dropped, or the sink had had enough before the end.
    complete: bool


@dataclass(frozen=True)
class Limits:
    user_agent: str
    connect_timeout: float
    read_timeout: float
    total_timeout: float
    accept: str = "text/html,*/*;q=0.8"
    # Idle connections kept for reuse, and for how long at most.
    keep: int = 1000
    keep_seconds: int = 15


def parse_head(raw: bytes) -> tuple[int, dict[str, str]]:
    """Status and headers of the last response head in `raw` (after any 1xx ones)."""
    text = raw.decode("latin-1")
    block = text.rstrip("\r\n").rsplit("\r\n\r\n", 1)[-1]
    lines = block.split("\r\n")
    parts = lines[0].split(" ", 2)
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers.setdefault(name.strip().lower(), value.strip())
    return status, headers


def new_socket(family: int, socktype: int, protocol: int, address: tuple[Any, ...]) -> Any:
    """The socket libcurl connects to `address`, after the guard allowed it.

    The one place a connection of the transport is made: the tests' network
    fence wraps it, so a test fails before a packet leaves even if the guard
    were broken.
    """
    return socket.socket(family, socktype, protocol)


def _trust() -> tuple[str, str]:
    """The CA file and directory Python's ssl module trusts (the system's store).

    pycurl's wheel carries its own libcurl, built on another distribution, whose
    compiled-in CA path need not exist here.
    """
    paths = ssl.get_default_verify_paths()
    return paths.cafile or paths.openssl_cafile or "", paths.capath or paths.openssl_capath or ""


class _Transfer:
    __slots__ = (
        "curl",
        "future",
        "head",
        "sink",
        "started",
        "wanted",
        "enough",
        "skipped",
        "refusal",
        "fed",
        "fed_list",
        "parsed",
    )

    def __init__(
        self,
        curl: pycurl.Curl,
        future: asyncio.Future[Response],
        sink: Sink,
        fed_list: list[_Transfer],
    ) -> None:
        self.curl = curl
        self.future = future
        self.head = bytearray()
        self.sink = sink
        self.started = False  # the body began (the sink saw the head)
        self.wanted = True  # the sink wants the body
        self.enough = False  # the sink has what it needs; drop the rest
        self.skipped = False  # body arrived that the sink never saw
        self.refusal = ""  # why the guard refused a socket
        self.fed = False  # body arrived during the current dispatch (it is in fed_list)
        self.fed_list = fed_list
        self.parsed: tuple[int, dict[str, str]] | None = None  # parse_head(head), once

    def write(self, chunk: bytes) -> None:
        """libcurl's WRITEFUNCTION; returning None takes the chunk."""
        if not self.fed:  # the dispatch ends by asking whether to go on (Session._collect)
            self.fed = True
            self.fed_list.append(self)
        if self.enough:
            self.skipped = True
            return
        try:
            if not self.started:
                self.started = True
                status, headers = self.parsed = parse_head(bytes(self.head))
                self.wanted = self.sink.begin(status, headers)
                if not self.wanted:
                    self.enough = self.skipped = True
                    return
            if not self.sink.feed(chunk):
                self.enough = True
        except Exception as exc:  # never into libcurl: end the transfer with it
            self.enough = True
            if not self.future.done():
                self.future.set_exception(exc)


class Session:
    """One libcurl multi handle (its connection pool and DNS pins) on the running loop.

    Create it inside the loop that will use it and `close` it there.
    """

    def __init__(self, limits: Limits, allow: tuple[guard.IPNetwork, ...]) -> None:
        self._loop = asyncio.get_running_loop()
        self._limits = limits
        self._allow = allow
        self._multi = pycurl.CurlMulti()
        self._multi.setopt(pycurl.M_SOCKETFUNCTION, self._on_socket)
        self._multi.setopt(pycurl.M_TIMERFUNCTION, self._on_timer)
        self._multi.setopt(pycurl.M_MAXCONNECTS, limits.keep)
        self._watched: dict[int, int] = {}  # fd -> 1 read, 2 write
        self._timer: asyncio.TimerHandle | asyncio.Handle | None = None
        self._timer_when = 0.0
        self._free: list[pycurl.Curl] = []
        self._running: dict[pycurl.Curl, _Transfer] = {}
        self._cafile, self._capath = _trust()
        self._closed = False
        self._kicked = False
        self._unsent = 0  # transfers added since libcurl last ran its timers
        self._fed: list[_Transfer] = []  # transfers that got body in this dispatch
        self._dressed: set[pycurl.Curl] = set()  # handles last used with extra headers

    # --- requests ------------------------------------------------------------

    async def request(self, request: Request, sink: Sink) -> Response:
        if self._closed:
            raise RuntimeError("the transport session is closed")
        curl = self._free.pop() if self._free else self._new_handle()
        future: asyncio.Future[Response] = self._loop.create_future()
        transfer = _Transfer(curl, future, sink, self._fed)
        curl.setopt(pycurl.URL, request.url)
        if request.method == "HEAD":
            curl.setopt(pycurl.NOBODY, 1)
        elif request.method == "POST":
            curl.setopt(pycurl.POSTFIELDS, request.body or b"")
        else:
            curl.setopt(pycurl.HTTPGET, 1)
        if request.headers or curl in self._dressed:
            # A handle is reused: headers one request added must not reach the next.
            curl.setopt(pycurl.HTTPHEADER, [f"Accept: {self._limits.accept}", *request.headers])
            if request.headers:
                self._dressed.add(curl)
            else:
                self._dressed.discard(curl)
        curl.setopt(pycurl.RESOLVE, [request.pinned] if request.pinned else [])
        curl.setopt(pycurl.WRITEFUNCTION, transfer.write)
        curl.setopt(pycurl.HEADERFUNCTION, transfer.head.extend)
        curl.setopt(pycurl.OPENSOCKETFUNCTION, self._opener(transfer))
        self._running[curl] = transfer
        self._multi.add_handle(curl)
        # libcurl asks for a timer only when its earliest timeout changes, which a new
        # transfer due now need not do: start new transfers on the next turn of the
        # loop, together, or at once every _SEND_TOGETHER of them. When many answers
        # come in at once (and their checks run back to back), the first requests then
        # go out while later answers are being read, at a fraction of the CPU that a
        # libcurl call per request costs.
        self._unsent += 1
        if self._unsent >= _SEND_TOGETHER:
            self._act(pycurl.SOCKET_TIMEOUT, 0)
        elif not self._kicked:
            self._kicked = True
            self._loop.call_soon(self._kick)
        try:
            return await future
        finally:
            if self._running.get(curl) is transfer:  # cancelled, or a sink raised: stop it
                self._release(curl)

    def _opener(self, transfer: _Transfer) -> Callable[[int, Any], Any]:
        allow = self._allow

        def open_socket(purpose: int, address: Any) -> Any:
            family, socktype, protocol, where = address
            try:
                guard.check_address(str(where[0]).split("%", 1)[0], allow)
                return new_socket(family, socktype, protocol, where)
            except guard.Refused as exc:
                transfer.refusal = str(exc)
            except Exception as exc:  # the fence, or no sockets left: not for libcurl
                transfer.refusal = transfer.refusal or f"could not open a socket: {exc}"
            return pycurl.SOCKET_BAD

        return open_socket

    def _new_handle(self) -> pycurl.Curl:
        o = self._limits
        curl = pycurl.Curl()
        curl.setopt(pycurl.NOSIGNAL, 1)
        curl.setopt(pycurl.PROTOCOLS, pycurl.PROTO_HTTP | pycurl.PROTO_HTTPS)
        curl.setopt(pycurl.FOLLOWLOCATION, 0)
        curl.setopt(pycurl.PROXY, "")  # never a proxy from the environment
        curl.setopt(pycurl.HTTP_VERSION, pycurl.CURL_HTTP_VERSION_1_1)
        curl.setopt(pycurl.USERAGENT, o.user_agent)
        curl.setopt(pycurl.HTTPHEADER, [f"Accept: {o.accept}"])
        curl.setopt(pycurl.ACCEPT_ENCODING, "")  # every encoding libcurl decodes
        curl.setopt(pycurl.CONNECTTIMEOUT_MS, max(1, round(o.connect_timeout * 1000)))
        curl.setopt(pycurl.TIMEOUT_MS, max(1, round(o.total_timeout * 1000)))
        # No byte for read_timeout seconds (whole seconds in libcurl) ends the transfer.
        curl.setopt(pycurl.LOW_SPEED_LIMIT, 1)
        curl.setopt(pycurl.LOW_SPEED_TIME, max(1, math.ceil(o.read_timeout)))
        curl.setopt(pycurl.MAXAGE_CONN, o.keep_seconds)
        curl.setopt(pycurl.BUFFERSIZE, 64 * 1024)
        if self._cafile:
            curl.setopt(pycurl.CAINFO, self._cafile)
        if self._capath:
            curl.setopt(pycurl.CAPATH, self._capath)
        return curl

    def _release(self, curl: pycurl.Curl) -> None:
        self._running.pop(curl, None)
        self._multi.remove_handle(curl)  # an unfinished transfer's connection is closed
        self._free.append(curl)

    # --- libcurl's callbacks and the loop --------------------------------------

    def _on_socket(self, event: int, fd: int, multi: Any, data: Any) -> None:
        loop, old = self._loop, self._watched.get(fd, 0)
        want = 0 if event == pycurl.POLL_REMOVE else event & 3  # POLL_IN 1, OUT 2, INOUT 3
        if old & 1 and not want & 1:
            loop.remove_reader(fd)
        if old & 2 and not want & 2:
            loop.remove_writer(fd)
        if want & 1 and not old & 1:
            loop.add_reader(fd, self._act, fd, pycurl.CSELECT_IN)
        if want & 2 and not old & 2:
            loop.add_writer(fd, self._act, fd, pycurl.CSELECT_OUT)
        if want:
            self._watched[fd] = want
        else:
            self._watched.pop(fd, None)

    def _on_timer(self, ms: int) -> None:
        """libcurl's earliest timeout moved. A timer that would fire no later is kept:
        firing early only makes libcurl say again when it is due, and libcurl moves
        its timeout with nearly every event, where a new loop timer each time cost
        more than the rest of the transfer's Python."""
        if ms < 0:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            return
        when = self._loop.time() + ms / 1000
        if self._timer is not None:
            if self._timer_when <= when:
                return
            self._timer.cancel()
        self._timer_when = when
        if ms == 0:
            self._timer = self._loop.call_soon(self._on_timeout)
        else:
            self._timer = self._loop.call_at(when, self._on_timeout)

    def _on_timeout(self) -> None:
        self._timer = None
        self._act(pycurl.SOCKET_TIMEOUT, 0)

    def _kick(self) -> None:
        self._kicked = False
        self._act(pycurl.SOCKET_TIMEOUT, 0)

    def _act(self, fd: int, events: int) -> None:
        if self._closed:
            return
        if fd == pycurl.SOCKET_TIMEOUT:
            self._unsent = 0  # libcurl starts every transfer that is due
        self._multi.socket_action(fd, events)
        self._collect()

    def _collect(self) -> None:
        """Settle finished transfers; drop those whose sink had enough of a body that
        goes on (what had arrived was all taken in this dispatch)."""
        while True:
            queued, done, failed = self._multi.info_read()
            for curl in done:
                self._settle(curl, None, "")
            for curl, code, message in failed:
                self._settle(curl, code, message)
            if not queued:
                break
        fed, self._fed[:] = list(self._fed), []
        for transfer in fed:
            transfer.fed = False
            if self._running.get(transfer.curl) is not transfer:
                continue  # finished above
            if not transfer.enough:
                try:
                    transfer.enough = not transfer.sink.partial()
                except Exception as exc:
                    transfer.enough = True
                    if not transfer.future.done():
                        transfer.future.set_exception(exc)
            if transfer.enough:
                self._finish(transfer, complete=False)

    def _settle(self, curl: pycurl.Curl, code: int | None, message: str) -> None:
        transfer = self._running.get(curl)
        if transfer is None:
            return
        if code is None:
            self._finish(transfer, complete=not transfer.skipped)
            return
        error = self._error(transfer, code, message)
        self._release(curl)
        if not transfer.future.done():
            transfer.future.set_exception(error)

    def _finish(self, transfer: _Transfer, complete: bool) -> None:
        curl = transfer.curl
        status = int(curl.getinfo(pycurl.RESPONSE_CODE))
        self._release(curl)
        if transfer.future.done():
            return
        parsed_status, headers = transfer.parsed or parse_head(bytes(transfer.head))
        if not transfer.started:
            transfer.started = True
            transfer.sink.begin(status or parsed_status, headers)
        transfer.future.set_result(Response(status or parsed_status, headers, complete))

    def _error(self, transfer: _Transfer, code: int, message: str) -> TransportError:
        if transfer.refusal:
            return TransportError(ErrorKind.GUARD, transfer.refusal)
        if code in _TIMEOUTS:
            return TransportError(ErrorKind.TIMEOUT, f"timed out ({message})")
        if code in _TLS:
            return TransportError(ErrorKind.TLS, f"TLS error: {message}")
        if code == pycurl.E_COULDNT_CONNECT:
            errno_ = int(transfer.curl.getinfo(pycurl.OS_ERRNO))
            if errno_ == 111 or "refused" in message.lower():  # ECONNREFUSED
                where = _host_port(transfer.curl)
                return TransportError(
                    ErrorKind.CONNECTION_REFUSED, f"connection refused by {where}"
                )
            return TransportError(ErrorKind.CONNECTION_ERROR, f"could not connect: {message}")
        if code in _RESETS:
            return TransportError(ErrorKind.RESET, f"connection reset or closed early ({message})")
        if code in _INVALID:
            return TransportError(ErrorKind.INVALID_URL, f"invalid URL: {message}")
        return TransportError(ErrorKind.CONNECTION_ERROR, f"curl error {code}: {message}")

    async def close(self) -> None:
        self._closed = True
        for curl, transfer in list(self._running.items()):
            self._release(curl)
            if not transfer.future.done():
                transfer.future.cancel()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for fd in list(self._watched):  # off the loop before libcurl closes them
            self._on_socket(pycurl.POLL_REMOVE, fd, None, None)
        self._multi.close()  # closes the kept connections
        for curl in self._free:
            curl.close()
        self._free.clear()


def _host_port(curl: pycurl.Curl) -> str:
    ip = curl.getinfo(pycurl.PRIMARY_IP)
    port = curl.getinfo(pycurl.PRIMARY_PORT)
    if ip:
        return f"{ip}:{port}"
    return str(curl.getinfo(pycurl.EFFECTIVE_URL))


def pin(host: str, port: int, addresses: tuple[str, ...]) -> str:
    """The CURLOPT_RESOLVE entry that makes libcurl use exactly `addresses` for host:port.

    "+" makes it an entry that expires like a looked-up one, so a long-lived
    session does not keep one per host it ever saw; it is set again with every
    request, so it never expires while in use.
    """
    listed = ",".join(f"[{a}]" if ":" in a else a for a in addresses)
    return f"+{host}:{port}:{listed}"
