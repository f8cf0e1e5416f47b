"""A minimal keep-alive HTTP/1.1 server on 127.0.0.1 that answers every request after a delay.

Deliberately not a framework: the benchmark measures link checkers, so the
server must not be the bottleneck (see `loadgen.py` for its own ceiling).

    python bench/linkcheck/server.py --port 0 --delay 0.05 [--workers 1]
    python bench/linkcheck/server.py --hosts 1000 --stats stats.json   # the scale run

Prints "PORT <n>" on stdout once listening. GET /index?n=N serves an HTML page
linking /p/0 ... /p/N-1 (for LinkChecker); every other path serves a small page.

With `--hosts N` it listens on N loopback addresses (127.0.1.1, 127.0.1.2, ...,
see `host_address`) on one port, so a checker sees N distinct hosts, and with
`--stats FILE` it counts requests per path and notes when each host's requests
arrived; on SIGTERM it writes those figures to FILE as JSON and exits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import sys
from collections import Counter, defaultdict
from typing import cast

BODY = (
    b"<!doctype html><html><head><title>Bench page</title></head><body>"
    b"<nav>menu</nav><main><h1>Bench page</h1><p>Some words that stay the same "
    b"for the fingerprint to hash.</p></main></body></html>"
)


def response(status: str, body: bytes, head: bool, content_type: bytes = b"text/html") -> bytes:
    header = (
        f"HTTP/1.1 {status}\r\nContent-Type: ".encode()
        + content_type
        + f"; charset=utf-8\r\nContent-Length: {len(body)}\r\n".encode()
        + b"Connection: keep-alive\r\n\r\n"
    )
    return header if head else header + body


def redirect(location: bytes) -> bytes:
    return (
        b"HTTP/1.1 301 Moved Permanently\r\nLocation: "
        + location
        + b"\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n"
    )


def host_address(index: int) -> str:
    """The loopback address of host number `index` (0-based): 127.0.1.1 upwards, 250 a block."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


class Stats:
    """Requests per path and arrival times per host, for the scale run's checks."""

    def __init__(self) -> None:
        self.per_path: Counter[bytes] = Counter()
        self.arrivals: defaultdict[str, list[float]] = defaultdict(list)

    def summary(self) -> dict[str, object]:
        per_host = {}
        for host, times in self.arrivals.items():
            times.sort()
            gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
            per_host[host] = {
                "requests": len(times),
                "first": times[0],
                "last": times[-1],
                "min_gap": min(gaps) if gaps else None,
                "gaps": gaps,
            }
        return {
            "requests": sum(self.per_path.values()),
            "paths": len(self.per_path),
            "paths_requested_more_than_once": sum(1 for n in self.per_path.values() if n > 1),
            "most_requests_for_one_path": max(self.per_path.values(), default=0),
            "per_host": per_host,
        }


class Bench(asyncio.Protocol):
    delay = 0.05
    stats: Stats | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's TCPTransport (0.23) no longer subclasses asyncio.Transport: no isinstance.
        self.transport = cast(asyncio.Transport, transport)
        self.buffer = b""
        self.loop = asyncio.get_running_loop()
        self.host = transport.get_extra_info("sockname")[0]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            request_line = head.split(b"\r\n", 1)[0]
            parts = request_line.split(b" ")
            method, path = parts[0], parts[1] if len(parts) > 1 else b"/"
            if self.stats is not None:
                self.stats.per_path[path] += 1
                self.stats.arrivals[self.host].append(self.loop.time())
            payload = self.answer(method, path)
            if self.delay > 0:
                self.loop.call_later(self.delay, self.write, payload)
            else:
                self.write(payload)

    def write(self, payload: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(payload)

    def answer(self, method: bytes, path: bytes) -> bytes:
        head = method == b"HEAD"
        if path.startswith(b"/index"):
            n = int(path.split(b"n=", 1)[1]) if b"n=" in path else 0
            links = b"".join(b'<a href="/p/%d">%d</a>\n' % (i, i) for i in range(n))
            return response("200 OK", b"<html><body>" + links + b"</body></html>", head)
        if path == b"/robots.txt" or path.startswith(b"/gone/"):
            return response("404 Not Found", b"", head, b"text/plain")
        if path.startswith(b"/moved/"):  # a permanent redirect to a page
            return redirect(b"/p/" + path[len(b"/moved/") :])
        return response("200 OK", BODY, head)


async def serve(sockets: list[socket.socket], delay: float, stats_file: str | None) -> None:
    Bench.delay = delay
    loop = asyncio.get_running_loop()
    servers = [await loop.create_server(Bench, sock=sock, backlog=4096) for sock in sockets]
    done = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, done.set)
    await done.wait()
    for server in servers:
        server.close()
    if stats_file and Bench.stats is not None:
        with open(stats_file, "w") as out:
            json.dump(Bench.stats.summary(), out)


def listen(address: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((address, port))
    sock.listen(4096)
    sock.setblocking(False)
    return sock


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--hosts", type=int, default=0, help="listen on this many addresses")
    parser.add_argument("--stats", help="write request figures here on SIGTERM")
    args = parser.parse_args()
    if args.hosts:
        first = listen(host_address(0), args.port)
        port = first.getsockname()[1]
        sockets = [first] + [listen(host_address(i), port) for i in range(1, args.hosts)]
    else:
        sockets = [listen("127.0.0.1", args.port)]
        port = sockets[0].getsockname()[1]
    if args.stats:
        Bench.stats = Stats()
    print(f"PORT {port}", flush=True)
    for _ in range(args.workers - 1):
        if os.fork() == 0:  # children share the listening socket
            break
    try:
        import uvloop  # the server must not be the bottleneck

        runner = asyncio.Runner(loop_factory=uvloop.new_event_loop)
    except ImportError:
        runner = asyncio.Runner()
    try:
        with runner:
            runner.run(serve(sockets, args.delay, args.stats))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
