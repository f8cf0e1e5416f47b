"""Public-site throughput: the entry page, the index and search against a trivial Django view.

Serves the app with gunicorn in production shape (the image's
docker/gunicorn.conf.py, DEBUG off, a real SECRET_KEY, the Redis cache, JSON
access logs, a temporary SQLite database with the demo loaded; only worker
recycling is off, see `server`) on
127.0.0.1, and loads it with `wrk` over loopback. It runs two servers, one
with the page cache off (every request renders: uncached) and one with it on
(cached); each measures the trivial view (/bench/trivial/, routed only when
BENCH_TRIVIAL_VIEW=true) in the same run, and every page's throughput is
reported as a ratio to it. The machine's speed drifts by tens of percent within
a minute, so in each of several rounds the trivial view is measured either side
of every page and a page's ratio is to the mean of those two (`sandwiched`);
medians of the rounds are reported, with the lowest and highest ratio.

    .venv/bin/python bench/web/run.py [--duration 3] [--rounds 5] [--connections 8]
                                      [--workers 2] [--threads 1]

Targets: uncached entry >= 45% of trivial, cached entry >= 90%, uncached API entry
detail >= 40%.

Then, unless --skip-scale, the same pages and more at 1,000 and 10,000 generated
entries on PostgreSQL (bench/web/scale.py; --scale-only runs just that part), and
unless --skip-cold, the same pages served the moment a new database has been
generated, at 2,000 and 10,000 entries (bench/web/cold.py; --cold-only, or
`make bench-cold`, runs just that part).
Needs Redis on 127.0.0.1:6379 (BENCH_REDIS_URL to change) and wrk, which it
installs from Debian with apt-get when missing.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
GUNICORN = str(Path(PY).with_name("gunicorn"))
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")

PAGES = {
    "trivial": "/bench/trivial/",
    "entry": "/glossary/interconnect/",
    "index": "/",
    "search": "/search/?q=network",
    "api-entry": "/api/v1/entries/interconnect/",
}
TARGETS = {
    ("uncached", "entry"): 0.45,
    ("cached", "entry"): 0.90,
    ("uncached", "api-entry"): 0.40,
}


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    print("Installing wrk from Debian (apt-get install -y wrk)", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, env=env)
    found = shutil.which("wrk")
    if not found:
        sys.exit("wrk is not installed and could not be installed; apt-get install wrk")
    return found


def check_redis() -> None:
    match = re.match(r"redis://([^:/]+):(\d+)", REDIS_URL)
    host, port = (match.group(1), int(match.group(2))) if match else ("127.0.0.1", 6379)
    try:
        with socket.create_connection((host, port), timeout=2) as sock:
            sock.sendall(b"PING\r\n")
            if not sock.recv(16).startswith(b"+PONG"):
                raise OSError("no PONG")
    except OSError as exc:
        sys.exit(f"Redis is not reachable at {REDIS_URL} ({exc}); start it, e.g. .ci/run does.")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def app_env(db: Path, *, cached: bool) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{db}",
        "REDIS_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "true",
        "SECURE_SSL_REDIRECT": "false",
        # Production logs a JSON access line per request; so does the benchmark.
        "LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "INFO"),
        "STATIC_MANIFEST": "false",
        "BENCH_TRIVIAL_VIEW": "true",
        "PUBLIC_PAGE_CACHE": "true" if cached else "false",
        # One client asks thousands of times a second: limits out of reach, still
        # counted in Redis as in production (bench/web/scale.py does the same).
        "PUBLIC_SEARCH_RATE_LIMIT": "100000000/m",
        "PUBLIC_API_RATE_LIMIT": "100000000/m",
    }


def prepare(db: Path) -> None:
    env = app_env(db, cached=True)
    for args in (["migrate", "--noinput", "-v0"], ["load_demo"]):
        subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, check=True)


@contextmanager
def server(db: Path, *, cached: bool, workers: int, threads: int, log: Path):
    port = free_port()
    with log.open("w") as out:
        proc = subprocess.Popen(
            # The production image's own gunicorn settings (its sync worker).
            [GUNICORN, "--config", "docker/gunicorn.conf.py", "config.wsgi:application"],
            cwd=ROOT,
            env={
                **app_env(db, cached=cached),
                "GUNICORN_BIND": f"127.0.0.1:{port}",
                "WEB_CONCURRENCY": str(workers),
                "GUNICORN_THREADS": str(threads),
                # Recycling off (production recycles a worker after 2,000 requests as a leak
                # guard): at the bench's rates it would restart each worker every few seconds,
                # and a window would measure Django booting. bench/memory shows no growth.
                "GUNICORN_MAX_REQUESTS": "0",
            },
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + PAGES["trivial"], timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"gunicorn did not start; see {log}:\n{log.read_text()[-2000:]}")
                time.sleep(0.2)
        for path in PAGES.values():
            with urllib.request.urlopen(base + path, timeout=5) as response:
                assert response.status == 200, path
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    match = re.match(r"([\d.]+)(us|ms|s)", text)
    assert match, text
    return float(match.group(1)) * _UNITS[match.group(2)]


def run_wrk(wrk: str, url: str, *, duration: int, connections: int) -> dict[str, float]:
    out = subprocess.run(
        [wrk, "-t1", f"-c{connections}", f"-d{duration}s", "--latency", url],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = _ms(re.search(r"\s50%\s+(\S+)", out).group(1))
    p99 = _ms(re.search(r"\s99%\s+(\S+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        sys.exit(f"{url}: {errors.group(1)} error responses\n{out}")
    return {"rps": rps, "p50": p50, "p99": p99}


def sandwiched(
    wrk: str,
    base: str,
    pages: dict[str, str],
    *,
    trivial: str,
    rounds: int,
    duration: int,
    connections: int,
    progress: str = "",
) -> dict[str, list[dict[str, float]]]:
    """Each page's measurements, one per round, each with its ratio to the trivial view.

    In every round the trivial view is measured before the first page, between every
    two pages and after the last, and a page's ratio is to the mean of the two
    measurements either side of it: this machine's speed drifts by tens of percent
    within a minute, and a ratio to a yardstick measured a whole round earlier took
    that drift for the page's own. The trivial view's own entries are its
    measurements, ratio 1.
    """
    runs: dict[str, list[dict[str, float]]] = {}
    for round_ in range(1, rounds + 1):
        if progress:
            print(f"{progress}round {round_}/{rounds}", flush=True)

        def load(path: str) -> dict[str, float]:
            return run_wrk(wrk, base + path, duration=duration, connections=connections)

        before = load(trivial)
        yardsticks = [before]
        for name, path in pages.items():
            result = load(path)
            after = load(trivial)
            yardsticks.append(after)
            result["ratio"] = result["rps"] / ((before["rps"] + after["rps"]) / 2)
            runs.setdefault(name, []).append(result)
            before = after
        for measured in yardsticks:
            runs.setdefault("trivial", []).append({**measured, "ratio": 1.0})
    return runs


def medians(results: list[dict[str, float]]) -> dict[str, float]:
    """The median of each figure, and the lowest and highest ratio (the spread the
    median was taken from)."""
    out = {k: statistics.median(r[k] for r in results) for k in results[0]}
    out["low"] = min(r["ratio"] for r in results)
    out["high"] = max(r["ratio"] for r in results)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=3, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; medians")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per worker (1: production's sync worker)"
    )
    parser.add_argument(
        "--skip-scale", action="store_true", help="only the demo-sized run (no scale, no cold)"
    )
    parser.add_argument("--scale-only", action="store_true", help="only bench/web/scale.py")
    parser.add_argument("--skip-cold", action="store_true", help="no bench/web/cold.py")
    parser.add_argument("--cold-only", action="store_true", help="only bench/web/cold.py")
    args, rest = parser.parse_known_args()
    if args.cold_only:
        return run_cold(rest)
    if args.scale_only:
        return run_scale(rest)
    demo = run_demo(args)
    if args.skip_scale:
        return demo
    scale = run_scale(rest)
    if args.skip_cold:
        return scale or demo
    return run_cold(rest) or scale or demo


def run_scale(rest: list[str]) -> int:
    print("\n--- at 1,000 and 10,000 entries on PostgreSQL (bench/web/scale.py) ---", flush=True)
    return subprocess.run([PY, str(Path(__file__).with_name("scale.py")), *rest]).returncode


def run_cold(rest: list[str]) -> int:
    print(
        "\n--- served at once after generating: 2,000, 10,000 (bench/web/cold.py) ---", flush=True
    )
    # Its own sizes (scale.py's --sizes and --fresh are not for it: it always starts afresh).
    kept, skipping = [], False
    for arg in rest:
        if arg in ("--sizes", "--fresh"):
            skipping = arg == "--sizes"
            continue
        if skipping and arg.isdigit():
            continue
        skipping = False
        kept.append(arg)
    return subprocess.run([PY, str(Path(__file__).with_name("cold.py")), *kept]).returncode


def run_demo(args: argparse.Namespace) -> int:
    wrk = ensure_wrk()
    check_redis()
    # (mode, page) -> one measurement per round, each page's against the trivial view
    # measured either side of it (`sandwiched`).
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        db = Path(tmp) / "bench.sqlite3"
        prepare(db)
        with (
            server(
                db,
                cached=False,
                workers=args.workers,
                threads=args.threads,
                log=Path(tmp) / "uncached.log",
            ) as u,
            server(
                db,
                cached=True,
                workers=args.workers,
                threads=args.threads,
                log=Path(tmp) / "cached.log",
            ) as c,
        ):
            for mode, base in (("uncached", u), ("cached", c)):
                measured = sandwiched(
                    wrk,
                    base,
                    {name: path for name, path in PAGES.items() if name != "trivial"},
                    trivial=PAGES["trivial"],
                    rounds=args.rounds,
                    duration=args.duration,
                    connections=args.connections,
                    progress=f"{mode}: ",
                )
                runs[(mode, "trivial")] = measured.pop("trivial")
                for name, results in measured.items():
                    runs[(mode, name)] = results
    print(
        f"\ngunicorn (docker/gunicorn.conf.py) {args.workers} workers x {args.threads} threads, "
        "two servers (page cache off/on) "
        f"side by side; wrk -t1 -c{args.connections} -d{args.duration}s x {args.rounds} rounds, "
        "the trivial view either side of every page; medians (lowest-highest ratio); "
        "SQLite + Redis; DEBUG off"
    )
    head = f"{'mode':<9} {'page':<9} {'req/s':>6} {'p50 ms':>7} {'p99 ms':>7} {'vs trivial':>11}"
    print(f"{head} {'range':>9}")
    failed = []
    for (mode, name), results in runs.items():
        r = medians(results)
        target = TARGETS.get((mode, name))
        verdict = ""
        if target is not None:
            met = r["ratio"] >= target
            verdict = f"  target {target:.0%}: {'met' if met else 'MISSED'}"
            if not met:
                failed.append(f"{mode} {name}")
        spread = "" if name == "trivial" else f"{r['low']:.0%}-{r['high']:.0%}"
        print(
            f"{mode:<9} {name:<9} {r['rps']:>6.0f} {r['p50']:>7.2f} {r['p99']:>7.2f} "
            f"{r['ratio']:>11.0%} {spread:>9}{verdict}"
        )
    if failed:
        print(f"\nMissed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
