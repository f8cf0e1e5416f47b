"""A web worker's memory stays flat: its RSS after 1,000 requests against after 10,000.

Serves the app with gunicorn in production shape (docker/gunicorn.conf.py, DEBUG
off, JSON access logs, the Redis cache, a temporary SQLite database with the demo
loaded) with one worker process, so the process measured is the one serving every
request, and the page cache off, so every request renders. A client walks every
public address the demo has (each entry, the index and its letters, episodes,
people, organisations, topics, the feed, the sitemap, the API lists and details),
searches for a different word each time, and asks for addresses that do not
exist, round and round, over keep-alive connections from a few threads. The
worker's resident memory (VmRSS in /proc) is read after 1,000 and after 10,000
requests; flat means the second is within 10% or 10 MB of the first.

    .venv/bin/python bench/memory/run.py [--requests 10000] [--warm 1000] [--clients 4]

The link-checker worker's memory over 10,000 checks is measured by the scale run
(bench/linkcheck/scale.py). Needs Redis on 127.0.0.1:6379 (BENCH_REDIS_URL).
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import itertools
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# The web bench's production-shape server settings, shared rather than copied.
_spec = importlib.util.spec_from_file_location(
    "bench_web", Path(__file__).resolve().parents[1] / "web" / "run.py"
)
assert _spec is not None and _spec.loader is not None
web = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(web)

TOLERANCE = 0.10
TOLERANCE_MB = 10.0
WORDS = ["network", "memory", "gpu", "inference", "latency", "patel", "chip", "rack", "token"]


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert match, status
    return int(match.group(1)) / 1024


def worker_pid(master: int) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    sys.exit("gunicorn started no worker")


def get(conn: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    conn.request("GET", path, headers={"Host": "127.0.0.1"})
    response = conn.getresponse()
    return response.status, response.read()


def public_paths(port: int) -> list[str]:
    """Every address of the demo readers can reach, from the sitemap and the lists."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    status, body = get(conn, "/sitemap.xml")
    assert status == 200, status
    paths = set()
    for loc in re.findall(rb"<loc>([^<]+)</loc>", body):
        sub = re.sub(r"^https?://[^/]+", "", loc.decode())
        if sub.endswith(".xml") or "sitemap" in sub:
            _, page = get(conn, sub)
            paths |= {
                re.sub(r"^https?://[^/]+", "", x.decode())
                for x in re.findall(rb"<loc>([^<]+)</loc>", page)
            }
        else:
            paths.add(sub)
    paths |= {"/", "/episodes/", "/people/", "/organisations/", "/tags/", "/feed/"}
    paths |= {"/api/v1/entries/", "/api/v1/people/", "/api/v1/episodes/", "/api/v1/tags/"}
    paths |= {"/api/v1/organisations/", "/glossary/no-such-entry/", "/people/nobody/"}
    api = [p.replace("/glossary/", "/api/v1/entries/") for p in paths if "/glossary/" in p]
    conn.close()
    return sorted(paths | set(api))


class Walker:
    """Clients that walk the site round and round until told how many requests to make."""

    def __init__(self, port: int, paths: list[str], clients: int) -> None:
        self.port = port
        self.paths = paths
        self.clients = clients
        self.lock = threading.Lock()
        self.sent = 0
        self.errors: list[str] = []
        self.counter = itertools.count()

    def _next(self) -> str | None:
        with self.lock:
            if self.sent >= self.limit:
                return None
            self.sent += 1
            n = next(self.counter)
        if n % 5 == 0:
            return f"/search/?q={WORDS[n % len(WORDS)]}{n % 97}"
        return self.paths[n % len(self.paths)]

    def _client(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while (path := self._next()) is not None:
            status, _ = get(conn, path)
            if status >= 500:
                self.errors.append(f"{path}: {status}")

    def run_until(self, limit: int) -> None:
        self.limit = limit
        threads = [threading.Thread(target=self._client) for _ in range(self.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if self.errors:
            sys.exit(f"server errors: {self.errors[:5]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--warm", type=int, default=1_000)
    parser.add_argument("--clients", type=int, default=4)
    args, _ = parser.parse_known_args()
    web.check_redis()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        db = Path(tmp) / "bench.sqlite3"
        web.prepare(db)
        port = web.free_port()
        log = (Path(tmp) / "gunicorn.log").open("w")
        env = {
            **web.app_env(db, cached=False),
            "GUNICORN_BIND": f"127.0.0.1:{port}",
            "WEB_CONCURRENCY": "1",
            "GUNICORN_THREADS": "4",
            # The production config recycles workers after a number of requests;
            # the point here is to see one worker serve them all.
            "GUNICORN_MAX_REQUESTS": "0",
        }
        proc = subprocess.Popen(
            [web.GUNICORN, "--config", "docker/gunicorn.conf.py", "config.wsgi:application"],
            cwd=web.ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            worker = worker_pid(proc.pid)
            deadline = time.monotonic() + 30
            while True:
                try:
                    paths = public_paths(port)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        sys.exit("gunicorn did not answer")
                    time.sleep(0.2)
            walker = Walker(port, paths, args.clients)
            started = time.monotonic()
            walker.run_until(args.warm)
            warm = rss_mb(worker)
            walker.run_until(args.requests)
            after = rss_mb(worker)
            seconds = time.monotonic() - started
            assert worker_pid(proc.pid) == worker, "the worker was replaced during the run"
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    growth = after - warm
    flat = growth <= max(TOLERANCE * warm, TOLERANCE_MB)
    print(
        f"one gunicorn worker (docker/gunicorn.conf.py, 4 threads), page cache off, "
        f"{len(paths)} addresses + searches, {args.clients} clients, {seconds:.0f} s"
    )
    print(f"{'requests':>9} {'RSS MB':>8}")
    print(f"{args.warm:>9,} {warm:>8.1f}")
    print(f"{args.requests:>9,} {after:>8.1f}")
    print(
        f"growth {growth:+.1f} MB ({growth / warm:+.1%}); target within "
        f"{TOLERANCE:.0%} or {TOLERANCE_MB:.0f} MB: {'met' if flat else 'MISSED'}"
    )
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
