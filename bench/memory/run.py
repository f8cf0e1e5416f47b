"""Workers' memory stays flat: a web worker's RSS after 1,000 requests against after
10,000, and a Celery worker's after 1,000 link checks against after 10,000.

Serves the app with gunicorn in production shape (docker/gunicorn.conf.py, DEBUG
off, JSON access logs, the Redis cache, a temporary SQLite database with the demo
loaded) with one worker process, so the process measured is the one serving every
request, and the page cache off, so every request renders. A client walks every
public address the demo has (each entry, the index and its letters, episodes,
people, organisations, topics, the feed, the sitemap, the API lists and details),
searches for a different word each time, and asks for addresses that do not
exist, round and round, from a few client threads. The
worker's resident memory (VmRSS in /proc) is read after 1,000 and after 10,000
requests; flat means the second is within 10% or 10 MB of the first.

The Celery side runs one real worker in the shape docs/linkcheck.md recommends
(`celery -A config worker --pool=threads --concurrency=4`, DEBUG off, INFO logs)
on a PostgreSQL database of its own (`bench_memory_celery`, created afresh) and
Redis database 8 (`BENCH_CELERY_REDIS_URL`) as broker and shared host slots,
with the per-host spacing on. 10,000 sources over 1,000 loopback hosts on the
link-checker bench server (bench/linkcheck/server.py): 80% pages, 10% permanent
redirects, 10% 404s. The checks are queued the way "check now" does
(`tasks.queue_check_now`: claim, then batches of `check_sources`): first 1,000
sources, then the other 9,000; the worker's VmRSS is read when each part is
recorded, and its peak (VmHWM) at the end (target < 150 MB).

    .venv/bin/python bench/memory/run.py [--requests 10000] [--warm 1000] [--clients 4]
        [--checks 10000] [--only web|celery]

Needs Redis on 127.0.0.1:6379 (BENCH_REDIS_URL) and PostgreSQL on 127.0.0.1:5432.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import itertools
import os
import re
import secrets
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

# The link checker's bench server (1,000 loopback hosts on one port).
LINKCHECK_SERVER = Path(__file__).resolve().parents[1] / "linkcheck" / "server.py"
CELERY = str(Path(sys.executable).with_name("celery"))
CELERY_DB = "bench_memory_celery"
PG = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
CELERY_REDIS_URL = os.environ.get("BENCH_CELERY_REDIS_URL", "redis://127.0.0.1:6379/8")
PEAK_MB_TARGET = 150

TOLERANCE = 0.10
TOLERANCE_MB = 10.0
WORDS = ["network", "memory", "gpu", "inference", "latency", "patel", "chip", "rack", "token"]


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(field + r":\s+(\d+) kB", status)
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


def web_worker(args: argparse.Namespace) -> bool:
    """The web worker's part; True when its RSS stays flat."""
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
    flat = is_flat(warm, after)
    print(
        f"one gunicorn worker (docker/gunicorn.conf.py's sync worker), page cache off, "
        f"{len(paths)} addresses + searches, {args.clients} clients, {seconds:.0f} s"
    )
    print(f"{'requests':>9} {'RSS MB':>8}")
    print(f"{args.warm:>9,} {warm:>8.1f}")
    print(f"{args.requests:>9,} {after:>8.1f}")
    print(
        f"growth {growth:+.1f} MB ({growth / warm:+.1%}); target within "
        f"{TOLERANCE:.0%} or {TOLERANCE_MB:.0f} MB: {'met' if flat else 'MISSED'}",
        flush=True,
    )
    return flat


def is_flat(first: float, second: float) -> bool:
    return second - first <= max(TOLERANCE * first, TOLERANCE_MB)


def celery_env() -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": f"{PG}/{CELERY_DB}",
        "REDIS_URL": CELERY_REDIS_URL,
        "CELERY_BROKER_URL": CELERY_REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "LINKCHECK_ALLOW_PRIVATE": "127.0.0.0/8",
        "LINKCHECK_SHARED_SPACING_URL": CELERY_REDIS_URL,
        "LINKCHECK_HOST_SPACING": "0.1",
        "LOG_LEVEL": "INFO",
    }


def manage(env: dict[str, str], code: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-v", "0", "-c", code],
        cwd=web.ROOT,
        env=env,
        check=True,
    )


def celery_worker(args: argparse.Namespace) -> bool:
    """The Celery worker's part; True when its RSS stays flat and its peak is in budget."""
    import psycopg
    import redis

    hosts = 1_000
    broker = redis.Redis.from_url(CELERY_REDIS_URL)
    broker.ping()
    broker.flushdb()  # this bench's own database
    env = celery_env()
    with tempfile.TemporaryDirectory(prefix="bench-memory-celery-") as tmp:
        server = subprocess.Popen(
            [sys.executable, str(LINKCHECK_SERVER), "--hosts", str(hosts), "--delay", "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        worker: subprocess.Popen[bytes] | None = None
        try:
            assert server.stdout is not None
            port = int(server.stdout.readline().split()[1])
            with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{CELERY_DB}"')
                conn.execute(f'CREATE DATABASE "{CELERY_DB}"')
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "-v", "0"],
                cwd=web.ROOT,
                env=env,
                check=True,
            )
            # Every tenth source a permanent redirect, every tenth (offset) a 404.
            manage(
                env,
                "import sys; sys.path.insert(0, 'bench/linkcheck'); "
                "from server import host_address; from glossary.models import Source; "
                "kinds = ['p'] * 8 + ['moved', 'gone']; "
                f"Source.objects.bulk_create((Source(url=f'http://{{host_address(i % {hosts})}}"
                f":{port}/{{kinds[i // {hosts} % 10]}}/{{i}}', title=f'Source {{i}}') "
                f"for i in range({args.checks})), batch_size=5000)",
            )
            log = (Path(tmp) / "worker.log").open("wb")
            worker = subprocess.Popen(
                [CELERY, "-A", "config", "worker", "--pool=threads", "--concurrency=4"]
                + ["--without-mingle", "--without-gossip", "--loglevel=INFO"],
                cwd=web.ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            deadline = time.monotonic() + 120
            while " ready." not in (Path(tmp) / "worker.log").read_text(errors="replace"):
                if time.monotonic() > deadline or worker.poll() is not None:
                    sys.exit(f"the Celery worker did not start: {(Path(tmp) / 'worker.log')}")
                time.sleep(0.2)
            ready = rss_mb(worker.pid)
            started = time.monotonic()
            readings = []
            with psycopg.connect(f"{PG}/{CELERY_DB}", autocommit=True) as db:
                for first, last in ((0, args.warm), (args.warm, args.checks)):
                    manage(
                        env,
                        "from glossary.models import Source; "
                        "from editorial.tasks import queue_check_now; "
                        "queue_check_now(list(Source.objects.order_by('pk')"
                        f".values_list('pk', flat=True)[{first}:{last}]))",
                    )
                    deadline = time.monotonic() + args.timeout
                    while True:
                        row = db.execute("SELECT count(*) FROM glossary_linkcheck").fetchone()
                        if row and row[0] >= last:
                            break
                        if time.monotonic() > deadline or worker.poll() is not None:
                            sys.exit(f"checks not recorded in time ({row}); log in {tmp}")
                        time.sleep(0.2)
                    readings.append(rss_mb(worker.pid))
                outcomes: dict[str, int] = dict(
                    db.execute(
                        "SELECT outcome, count(*) FROM glossary_linkcheck GROUP BY outcome"
                    ).fetchall()
                )
            seconds = time.monotonic() - started
            peak = rss_mb(worker.pid, "VmHWM")
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(30)
            server.terminate()
            server.wait(30)
            broker.flushdb()
            broker.close()
    warm, after = readings
    flat = is_flat(warm, after)
    growth = after - warm
    print(
        f"\none Celery worker (--pool=threads --concurrency=4), {args.checks:,} sources over "
        f"{hosts:,} hosts, spacing 0.1 s, {seconds:.0f} s; outcomes {outcomes}"
    )
    print(f"{'checks':>9} {'RSS MB':>8}")
    print(f"{0:>9,} {ready:>8.1f}")
    print(f"{args.warm:>9,} {warm:>8.1f}")
    print(f"{args.checks:>9,} {after:>8.1f}")
    print(
        f"growth {growth:+.1f} MB ({growth / warm:+.1%}); target within "
        f"{TOLERANCE:.0%} or {TOLERANCE_MB:.0f} MB: {'met' if flat else 'MISSED'}"
    )
    print(
        f"peak RSS {peak:.1f} MB (target < {PEAK_MB_TARGET} MB): "
        f"{'met' if peak < PEAK_MB_TARGET else 'MISSED'}",
        flush=True,
    )
    return flat and peak < PEAK_MB_TARGET


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--warm", type=int, default=1_000, help="requests, or checks, first")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--checks", type=int, default=10_000, help="Celery worker's checks")
    parser.add_argument("--timeout", type=float, default=600, help="per part of the checks")
    parser.add_argument("--only", choices=["web", "celery"])
    args, _ = parser.parse_known_args()
    met = True
    if args.only in (None, "web"):
        print("## web worker\n", flush=True)
        met = web_worker(args) and met
    if args.only in (None, "celery"):
        print("\n## Celery worker (link checks)\n", flush=True)
        met = celery_worker(args) and met
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
