"""Measure the bench server's own ceiling: raw keep-alive GETs over many connections.

python bench/linkcheck/loadgen.py PORT --connections 64 --requests 20000
"""

from __future__ import annotations

import argparse
import asyncio
import time


async def client(port: int, count: int, counter: list[int]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for i in range(count):
        writer.write(b"GET /p/%d HTTP/1.1\r\nHost: bench\r\n\r\n" % i)
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length: ", 1)[1].split(b"\r\n", 1)[0])
        await reader.readexactly(length)
        counter[0] += 1
    writer.close()


async def run(port: int, connections: int, requests: int) -> float:
    counter = [0]
    per = requests // connections
    started = time.perf_counter()
    await asyncio.gather(*(client(port, per, counter) for _ in range(connections)))
    return counter[0] / (time.perf_counter() - started)


def measure(port: int, connections: int, requests: int) -> float:
    return asyncio.run(run(port, connections, requests))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--requests", type=int, default=20000)
    args = parser.parse_args()
    print(f"{measure(args.port, args.connections, args.requests):.0f} requests/s")
