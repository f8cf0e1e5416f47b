"""Public pages served at once after a glossary is generated or imported: the cold path.

Issue 37's path, as a team meets it: a new PostgreSQL database, `manage.py migrate`, then
`manage.py generate_glossary --entries N --seed 1` (or, with `--via import`, a glossary
generated elsewhere, exported and brought in with `import_glossary`), and gunicorn started
the moment the command returns: nothing vacuumed, analysed or warmed by the benchmark.
gunicorn runs as a plain `gunicorn -w 2 config.wsgi:application` (its own defaults, not
docker/gunicorn.conf.py: whatever the product needs to be fast must be in the product),
DEBUG off, page cache off, the limits on search and the API raised out of the way but
still counted in Redis, JSON access logs. Then `wrk` loads every page type of
bench/web/scale.py in rounds, the trivial 20 KB view measured either side of every page
(bench/web/run.py's `sandwiched`); medians of the rounds, with the lowest and highest ratio.

Targets (issue 37), at each size: entry page >= 55% of the trivial view, every other
page >= 35%, search p99 < 30 ms.

The databases (`<prefix>_<size>`, BENCH_COLD_DB_PREFIX, default `bench_cold`) are made
afresh on every run and dropped at the end (`--keep` keeps them).

    .venv/bin/python bench/web/cold.py [--sizes 2000 10000] [--via generate import]
                                       [--duration 2] [--rounds 5] [--connections 8] [--keep]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# The sibling scripts' helpers (scale.py loads run.py the same way).
_spec = importlib.util.spec_from_file_location("bench_scale", Path(__file__).with_name("scale.py"))
assert _spec is not None and _spec.loader is not None
scale = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scale)
web = scale.web

PG, PY, ROOT, GUNICORN = scale.PG, scale.PY, scale.ROOT, scale.GUNICORN
PREFIX = os.environ.get("BENCH_COLD_DB_PREFIX", "bench_cold")
SEED = 1
ENTRY_TARGET = 0.55
PAGE_TARGET = 0.35
SEARCH_P99_MS = 30.0


def manage(db: str, *args: str) -> None:
    subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=scale.pg_env(db), check=True)


def new_database(db: str) -> None:
    subprocess.run(["psql", f"{PG}/postgres", "-qc", f"DROP DATABASE IF EXISTS {db}"], check=True)
    subprocess.run(["psql", f"{PG}/postgres", "-qc", f"CREATE DATABASE {db}"], check=True)
    manage(db, "migrate", "--noinput", "-v0")


def drop_database(db: str) -> None:
    subprocess.run(["psql", f"{PG}/postgres", "-qc", f"DROP DATABASE IF EXISTS {db}"], check=True)


def fill(db: str, size: int, via: str, tmp: Path) -> float:
    """A new database `db` holding `size` generated entries, the way `via` brings them in;
    the seconds the command that did it took."""
    generate = ["generate_glossary", "--entries", str(size), "--seed", str(SEED), "--no-progress"]
    if via == "generate":
        new_database(db)
        started = time.monotonic()
        manage(db, *generate)
        return time.monotonic() - started
    source = f"{db}_source"
    new_database(source)
    manage(source, *generate)
    export = tmp / f"{db}.json"
    manage(source, "export_glossary", str(export), "--no-progress")
    drop_database(source)
    new_database(db)
    started = time.monotonic()
    manage(db, "import_glossary", str(export), "--no-progress")
    return time.monotonic() - started


@contextmanager
def server(db: str, *, workers: int, log: Path) -> Iterator[str]:
    port = web.free_port()
    env = scale.pg_env(db)
    with log.open("w") as out:
        proc = subprocess.Popen(
            # gunicorn's own defaults: the sync worker, no worker recycling, no config file.
            [GUNICORN, "-w", str(workers), "-b", f"127.0.0.1:{port}", "config.wsgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/bench/trivial/", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"gunicorn did not start; see {log}:\n{log.read_text()[-2000:]}")
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def measure(
    db: str, args: argparse.Namespace, wrk: str, tmp: Path
) -> tuple[dict[str, str], dict[str, dict[str, float]]]:
    with server(db, workers=args.workers, log=tmp / f"{db}.log") as base:
        pages = scale.choose(db, base)
        for path in pages.values():  # one request each: fail early on an error, no warming
            with urllib.request.urlopen(base + path, timeout=60) as response:
                assert response.status == 200, path
        runs = web.sandwiched(
            wrk,
            base,
            {name: path for name, path in pages.items() if name != "trivial"},
            trivial=pages["trivial"],
            rounds=args.rounds,
            duration=args.duration,
            connections=args.connections,
            progress="  ",
        )
    figures = {"trivial": web.medians(runs.pop("trivial"))}
    figures.update({name: web.medians(results) for name, results in runs.items()})
    return pages, figures


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument(
        "--via",
        nargs="+",
        choices=["generate", "import"],
        default=["generate"],
        help="how the glossary arrives: generate_glossary, or import_glossary of a generated "
        "glossary's export",
    )
    parser.add_argument("--duration", type=int, default=2, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; medians")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn -w")
    parser.add_argument("--keep", action="store_true", help="keep the databases")
    args, _ = parser.parse_known_args()
    if min(args.sizes) <= scale.listed.SITEMAP_PAGE:
        # scale.py's pages include the entries' sitemap's second page.
        parser.error(f"--sizes: at least {scale.listed.SITEMAP_PAGE + 1} entries")

    wrk = web.ensure_wrk()
    web.check_redis()
    figures: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-web-cold-") as tmp:
        for via in args.via:
            for size in args.sizes:
                db = f"{PREFIX}_{size}" if via == "generate" else f"{PREFIX}_{size}_imported"
                what = "generate_glossary" if via == "generate" else "import_glossary"
                print(f"{size:,} entries through {what} into a new database {db}", flush=True)
                try:
                    seconds = fill(db, size, via, Path(tmp))
                    print(f"  {what}: {seconds:.0f} s; served at once", flush=True)
                    pages, figures[f"{via} {size:,}"] = measure(db, args, wrk, Path(tmp))
                finally:
                    if not args.keep:
                        drop_database(db)
                for name, path in pages.items():
                    print(f"  {name:<13} {path}")

    print(
        f"\nCold: a new PostgreSQL database, served the moment the command returned; plain "
        f"`gunicorn -w {args.workers}`, page cache off, DEBUG off; wrk -t1 "
        f"-c{args.connections} -d{args.duration}s x {args.rounds} rounds, the trivial view "
        f"either side of every page; medians (lowest-highest ratio); Redis {web.REDIS_URL}"
    )
    failed: list[str] = []
    runs = list(figures)
    head = "".join(f" | {run:>15}: req/s  p99 ms  vs trivial     range" for run in runs)
    print(f"{'page':<13}{head} | target")
    for name in figures[runs[0]]:
        cells = ""
        target = ENTRY_TARGET if name == "entry" else PAGE_TARGET
        for run in runs:
            r = figures[run][name]
            spread = "" if name == "trivial" else f"{r['low']:.0%}-{r['high']:.0%}"
            cells += f" | {'':>16}{r['rps']:>6.0f} {r['p99']:>7.1f} {r['ratio']:>10.0%} {spread:>9}"
            if name == "trivial":
                continue
            if r["ratio"] < target:
                failed.append(f"{name}, {run}: {r['ratio']:.0%} of trivial < {target:.0%}")
            if name == "search" and r["p99"] >= SEARCH_P99_MS:
                failed.append(f"search p99, {run}: {r['p99']:.0f} ms >= {SEARCH_P99_MS:.0f}")
        note = "" if name == "trivial" else f">= {target:.0%}"
        if name == "search":
            note += f", p99 < {SEARCH_P99_MS:.0f} ms"
        print(f"{name:<13}{cells} | {note}")
    if failed:
        print("\nMissed:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    print("\nEvery target met.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
