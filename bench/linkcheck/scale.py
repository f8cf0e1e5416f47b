"""Scale run: two real Celery workers check 100,000 sources over 1,000 hosts, politely.

    .venv/bin/python bench/linkcheck/scale.py [--sources 100000] [--hosts 1000] [--spacing 1.0]

Everything stays on loopback. The bench server listens on 1,000 loopback
addresses (127.0.1.1 ...), one per host, and answers at once; the checker's
per-host gate keys on the host name, so each address is a host
(`LINKCHECK_ALLOW_PRIVATE=127.0.0.0/8` lets them through the SSRF guard).
Sources live in a PostgreSQL database of the bench's own (`bench_linkcheck_scale`,
dropped and created each run); Redis database 7 is the broker and holds the
shared per-host slots. The run is what production does: `check_due_sources`
is sent to the broker, one worker claims every due source
(`service.claim_due`) and queues batches of `check_sources`, and two worker
processes (`celery worker --pool=threads --concurrency=4`; `--threads 1`: solo)
check and record them.

Figures:

- imposed time: a host's N requests cannot start less than `spacing` apart,
  so the run takes at least (N - 1) x spacing for the busiest host; the
  actual time runs from sending the task (from this process, by name) to the
  last recorded check. Target:
  at most 10% over the imposed time;
- politeness, as the server saw it: the smallest gap between two requests
  to one host (jitter of a few ms is the server's own loop);
- duplicates: requests per URL at the server; target: every URL exactly once;
- memory: each worker's peak RSS (VmHWM); target under 150 MB; and its RSS
  after ~1,000 and ~10,000 checks (each worker's share of the recorded
  checks), which should stay flat.

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg
import redis
from celery import Celery

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PY = sys.executable
CELERY = str(Path(sys.executable).with_name("celery"))
DB_NAME = "bench_linkcheck_scale"
PG = "postgres://postgres@127.0.0.1:5432"
REDIS_URL = "redis://127.0.0.1:6379/7"
PEAK_MB_TARGET = 150
SLACK = 0.10
# The gate spaces request starts; the server notes arrivals after connecting and on its
# own busy loop, both delayed by a loaded machine, so its gaps spread around the spacing.
JITTER = 0.10


def environment(spacing: float, sources: int, batch: int) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": f"{PG}/{DB_NAME}",
        "REDIS_URL": REDIS_URL,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "LINKCHECK_ALLOW_PRIVATE": "127.0.0.0/8",
        "LINKCHECK_HOST_SPACING": str(spacing),
        "LINKCHECK_PER_HOST_CONCURRENCY": "2",
        "LINKCHECK_CONCURRENCY": "64",
        "LINKCHECK_MAX_PER_RUN": str(sources),
        "LINKCHECK_BATCH_SIZE": str(batch),
        "LINKCHECK_SHARED_SPACING_URL": REDIS_URL,
        "LOG_LEVEL": "INFO",  # the workers' logs count their tasks
    }


def manage(env: dict[str, str], code: str) -> None:
    subprocess.run([PY, "manage.py", "shell", "-v", "0", "-c", code], cwd=ROOT, env=env, check=True)


def prepare(env: dict[str, str], port: int, sources: int, hosts: int) -> None:
    """A fresh database with `sources` sources, host-interleaved in id order."""
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}"')
        conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    subprocess.run([PY, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    manage(
        env,
        "import sys; sys.path.insert(0, 'bench/linkcheck'); from server import host_address; "
        "from glossary.models import Source; "
        f"Source.objects.bulk_create((Source(url=f'http://{{host_address(i % {hosts})}}:{port}"
        f"/s/{{i}}', title=f'Source {{i}}') for i in range({sources})), batch_size=5000)",
    )


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_worker(
    env: dict[str, str], name: str, logdir: Path, threads: int
) -> subprocess.Popen[bytes]:
    """One worker process; with `threads` > 1 it runs that many tasks at once in threads
    (sharing the process's kept checker), so one task's last slots overlap the next's."""
    log = open(logdir / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
    pool = ["--pool=solo"] if threads <= 1 else ["--pool=threads", f"--concurrency={threads}"]
    return subprocess.Popen(
        [CELERY, "-A", "config", "worker", *pool, "--without-mingle"]
        + ["--without-gossip", "--loglevel=INFO", "-n", f"{name}@%h"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def wait_until_ready(logdir: Path, workers: list[subprocess.Popen[bytes]]) -> None:
    """Until each worker logged that it is ready, so the run's time is the run's."""
    deadline = time.monotonic() + 120
    logs = [logdir / f"scale-{i}.log" for i in range(1, len(workers) + 1)]
    while not all(" ready." in log.read_text(errors="replace") for log in logs):
        if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
            raise RuntimeError(f"the workers did not start; logs in {logdir}")
        time.sleep(0.2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=100_000)
    parser.add_argument("--hosts", type=int, default=1_000)
    parser.add_argument(
        "--spacing", type=float, default=1.0, help="seconds between a host's requests"
    )
    parser.add_argument("--batch", type=int, default=1000, help="LINKCHECK_BATCH_SIZE")
    parser.add_argument("--threads", type=int, default=4, help="tasks at once per worker")
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    per_host = -(-args.sources // args.hosts)
    imposed = (per_host - 1) * args.spacing

    workdir = Path(tempfile.mkdtemp(prefix="bench-linkcheck-scale-"))
    stats_file = workdir / "server.json"
    server = subprocess.Popen(
        [PY, str(HERE / "server.py"), "--hosts", str(args.hosts), "--delay", "0"]
        + ["--stats", str(stats_file)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    port = int(server.stdout.readline().split()[1])
    broker = redis.Redis.from_url(REDIS_URL)
    broker.flushdb()  # database 7 is this bench's own
    env = environment(args.spacing, args.sources, args.batch)
    workers: list[subprocess.Popen[bytes]] = []
    samples: list[tuple[int, list[float]]] = []
    try:
        print(f"preparing {args.sources:,} sources over {args.hosts:,} hosts ...", flush=True)
        prepare(env, port, args.sources, args.hosts)
        workers = [start_worker(env, f"scale-{i}", workdir, args.threads) for i in (1, 2)]
        wait_until_ready(workdir, workers)
        cpu_ready = [cpu_seconds(w.pid) for w in workers]
        server_cpu_ready = cpu_seconds(server.pid)
        with psycopg.connect(f"{PG}/{DB_NAME}", autocommit=True) as db:
            print("workers ready; sending check_due_sources", flush=True)
            # Sent from here by name: a `manage.py shell` to send it took ~2 s to start
            # (Django's setup) and was counted in the run.
            sender = Celery(broker=REDIS_URL, set_as_current=False)
            started = time.time()
            sent_at = time.monotonic()  # the server notes arrivals on this clock too
            sender.send_task("editorial.tasks.check_due_sources", serializer="json")
            sender.close()
            deadline = time.monotonic() + args.timeout
            recorded = 0
            while recorded < args.sources and time.monotonic() < deadline:
                time.sleep(0.5)
                for worker in workers:
                    if worker.poll() is not None:
                        raise RuntimeError(f"a worker exited; logs in {workdir}")
                row = db.execute("SELECT count(*) FROM glossary_linkcheck").fetchone()
                recorded = int(row[0]) if row else 0
                samples.append((recorded, [rss_mb(w.pid) for w in workers]))
            row = db.execute("SELECT max(checked_at) FROM glossary_linkcheck").fetchone()
            finished = row[0].timestamp() if row and row[0] else time.time()
            per_worker_tasks = [
                (workdir / f"scale-{i}.log").read_text(errors="replace").count("succeeded in")
                for i in (1, 2)
            ]
        peaks = [rss_mb(w.pid, "VmHWM") for w in workers]
        cpu = [cpu_seconds(w.pid) - before for w, before in zip(workers, cpu_ready, strict=True)]
        cpu.append(cpu_seconds(server.pid) - server_cpu_ready)
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(30)
            except subprocess.TimeoutExpired:
                worker.kill()
        server.send_signal(signal.SIGTERM)
        server.wait(60)
        broker.flushdb()
        broker.close()
    stats = json.loads(stats_file.read_text())
    actual = finished - started
    print(
        f"CPU during the run: workers {cpu[0]:.1f} s + {cpu[1]:.1f} s "
        f"({(cpu[0] + cpu[1]) / max(recorded, 1) * 1000:.2f} ms per URL), server {cpu[2]:.1f} s"
    )
    hosts: dict[str, dict[str, Any]] = stats["per_host"]
    if hosts:
        first = min(h["first"] for h in hosts.values()) - sent_at
        last_first = max(h["first"] for h in hosts.values()) - sent_at
        last = max(h["last"] for h in hosts.values()) - sent_at
        spans = sorted(h["last"] - h["first"] for h in hosts.values())
        gaps = sorted(g for h in hosts.values() for g in h["gaps"])
        pick = lambda q: gaps[min(len(gaps) - 1, int(len(gaps) * q))] * 1000  # noqa: E731
        print(
            f"gaps between a host's requests, ms: median {pick(0.5):.0f}, 90th percentile "
            f"{pick(0.9):.0f}, 99th {pick(0.99):.0f}, longest {gaps[-1] * 1000:.0f}"
        )
        print(
            f"where the time went: first request {first:.2f} s after sending the task, every "
            f"host's first by {last_first:.2f} s; a host's first to last request "
            f"{spans[len(spans) // 2]:.2f} s (median) / {spans[-1]:.2f} s (longest); last "
            f"request at {last:.2f} s, last check recorded at {actual:.2f} s"
        )
    return report(args, imposed, actual, recorded, stats, peaks, samples, per_worker_tasks)


def rss_at(samples: list[tuple[int, list[float]]], checks_each: int) -> list[float] | None:
    """Workers' RSS at the first sample where each had done about `checks_each` checks."""
    for recorded, rss in samples:
        if recorded >= 2 * checks_each:
            return rss
    return None


def report(
    args: argparse.Namespace,
    imposed: float,
    actual: float,
    recorded: int,
    stats: dict[str, object],
    peaks: list[float],
    samples: list[tuple[int, list[float]]],
    tasks: list[int],
) -> int:
    per_host: dict[str, dict[str, object]] = stats["per_host"]  # type: ignore[assignment]
    gaps = sorted(g for h in per_host.values() for g in h["gaps"])  # type: ignore[attr-defined]
    short = sum(1 for g in gaps if g < args.spacing * 0.98)
    p1 = gaps[len(gaps) // 100] if gaps else 0.0
    at_1k, at_10k = rss_at(samples, 1_000), rss_at(samples, 10_000)
    fmt = lambda values: " / ".join(f"{v:.0f}" for v in values) if values else "–"  # noqa: E731
    print(
        f"\n| sources | hosts | spacing | imposed s | actual s | over | requests | URLs asked "
        f"twice | gap at a host ms: smallest / 1st percentile | gaps under 98% of spacing | "
        f"peak MB (worker 1 / 2) | "
        f"RSS MB after ~1k checks each | after ~10k | tasks (worker 1 / 2) |\n"
        f"|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|\n"
        f"| {args.sources:,} | {args.hosts:,} | {args.spacing:g} s | {imposed:.1f} | "
        f"{actual:.1f} | {actual / imposed - 1:+.1%} | {stats['requests']:,} | "
        f"{stats['paths_requested_more_than_once']} | "
        f"{gaps[0] * 1000 if gaps else 0:.0f} / {p1 * 1000:.0f} | "
        f"{short} of {len(gaps):,} | {fmt(peaks)} | {fmt(at_1k)} | {fmt(at_10k)} | "
        f"{tasks[0]} / {tasks[1]} |"
    )
    checks = [
        (recorded == args.sources, f"{recorded:,} of {args.sources:,} sources recorded"),
        (
            actual <= imposed * (1 + SLACK),
            f"run took {actual:.1f} s against {imposed:.1f} s imposed by the spacing "
            f"(target ≤ +{SLACK:.0%})",
        ),
        (
            stats["paths_requested_more_than_once"] == 0 and stats["requests"] == args.sources,
            f"{stats['requests']:,} requests for {stats['paths']:,} URLs, "
            f"{stats['paths_requested_more_than_once']} asked more than once (target: none)",
        ),
        (
            max(peaks) < PEAK_MB_TARGET,
            f"peak RSS {fmt(peaks)} MB per worker (target < {PEAK_MB_TARGET} MB)",
        ),
        (
            at_1k is not None
            and at_10k is not None
            and all(b - a <= max(10.0, a * 0.1) for a, b in zip(at_1k, at_10k, strict=True)),
            f"RSS after ~1,000 checks each {fmt(at_1k)} MB, after ~10,000 {fmt(at_10k)} MB "
            f"(target: flat, within 10% or 10 MB)",
        ),
        (
            p1 >= args.spacing * (1 - JITTER),
            f"gaps between two requests to one host as the server saw them: 1st percentile "
            f"{p1 * 1000:.0f} ms, smallest {gaps[0] * 1000 if gaps else 0:.0f} ms (target: 1st "
            f"percentile ≥ {1 - JITTER:.0%} of the spacing; see JITTER)",
        ),
        (min(tasks) > 0, f"both workers checked: {tasks[0]} and {tasks[1]} tasks"),
    ]
    print()
    for ok, text in checks:
        print(("met: " if ok else "MISSED: ") + text)
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
