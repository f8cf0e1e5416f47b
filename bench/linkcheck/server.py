"""A minimal keep-alive HTTP/1.1 server on 127.0.0.1 that answers every request after a delay.

Deliberately not a framework: the benchmark measures link checkers, so the
server must not be the bottleneck (see `loadgen.py` for its own ceiling).

    python bench/linkcheck/server.py --port 0 --delay 0.05 [--workers 1]

Prints "PORT <n>" on stdout once listening. GET /index?n=N serves an HTML page
linking /p/0 ... /p/N-1 (for LinkChecker); every other path serves a small page.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys

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


class Bench(asyncio.Protocol):
    delay = 0.05

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.buffer = b""
        self.loop = asyncio.get_running_loop()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            request_line = head.split(b"\r\n", 1)[0]
            parts = request_line.split(b" ")
            method, path = parts[0], parts[1] if len(parts) > 1 else b"/"
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
        if path == b"/robots.txt":
            return response("404 Not Found", b"", head, b"text/plain")
        return response("200 OK", BODY, head)


async def serve(sock: socket.socket, delay: float) -> None:
    Bench.delay = delay
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Bench, sock=sock, backlog=4096)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(4096)
    sock.setblocking(False)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    for _ in range(args.workers - 1):
        if os.fork() == 0:  # children share the listening socket
            break
    try:
        asyncio.run(serve(sock, args.delay))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
