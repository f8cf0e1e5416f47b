"""The desk at size: admin pages' p50 and query counts, and publishing, at 1,000 and 10,000 entries.

For each size it makes (or reuses) a PostgreSQL database holding a glossary made
by `manage.py generate_glossary --entries N --seed 1` (timed: 10,000 entries must
take under five minutes), then measures, in-process with Django's test client
and DEBUG off: the entry change and add pages, the entry list (plain, filtered by
status and tag, searched) and the editors' dashboard, each page's p50 over
`--repeat` requests and its query count (which must be the same at every size);
publishing one entry and publishing `--publish` entries through the real path
(in a transaction rolled back afterwards, so the database keeps its size).

    .venv/bin/python bench/admin/run.py [--sizes 1000,10000] [--repeat 15] [--publish 1000]
                                        [--regenerate]

Targets: every page's p50 < 300 ms at 10,000 entries; equal query counts at
every size; generating 10,000 entries < 300 s. Exits 1 when one is missed.
Needs PostgreSQL at BENCH_POSTGRES (default postgres://postgres@127.0.0.1:5432).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
POSTGRES = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")
PAGE_P50_MS = 300.0
GENERATE_10K_S = 300.0


def psql(sql: str) -> str:
    result = subprocess.run(
        ["psql", f"{POSTGRES}/postgres", "-Atc", sql], capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def django(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def prepare(size: int, regenerate: bool) -> tuple[dict[str, str], float | None]:
    """The environment of a database with `size` generated entries; generation seconds."""
    name = f"glossary_bench_admin_{size}"
    env = {**os.environ, "DATABASE_URL": f"{POSTGRES}/{name}"}
    exists = psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'") == "1"
    if exists and not regenerate:
        count = django(
            env,
            "manage.py",
            "shell",
            "-c",
            "from glossary.models import Entry; print(Entry.objects.published().count())",
        )
        last = (count.stdout.strip().splitlines() or [""])[-1]  # after the shell's own notes
        if last.isdigit() and int(last) >= size:
            # Reused: bring its schema up to this code's, as bench/web/scale.py does.
            migrated = django(env, "manage.py", "migrate", "--noinput", "-v0")
            if migrated.returncode:
                sys.exit(migrated.stderr)
            return env, None
    psql(f"DROP DATABASE IF EXISTS {name}")
    psql(f"CREATE DATABASE {name}")
    migrated = django(env, "manage.py", "migrate", "--noinput", "-v0")
    if migrated.returncode:
        sys.exit(migrated.stderr)
    started = time.perf_counter()
    made = django(
        env, "manage.py", "generate_glossary", f"--entries={size}", "--seed=1", "--no-progress"
    )
    if made.returncode:
        sys.exit(made.stderr)
    return env, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--publish", type=int, default=1000)
    parser.add_argument("--regenerate", action="store_true")
    args, _ = parser.parse_known_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    missed: list[str] = []
    counts: dict[str, set[int]] = {}
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
    for size in sizes:
        env, generated = prepare(size, args.regenerate)
        if generated is not None:
            print(f"\n{size:,} entries generated in {generated:.0f} s", flush=True)
            if size >= 10_000 and generated > GENERATE_10K_S * size / 10_000:
                missed.append(f"generating {size:,} entries took {generated:.0f} s")
        # The publishing figures are taken in transactions rolled back, and each run leaves
        # their rows dead in the tables (46,000 in the entries' after a few runs), which
        # the dashboard's scans then read. Vacuumed first, as autovacuum would have by now.
        vacuumed = subprocess.run(
            ["psql", env["DATABASE_URL"], "-qc", "VACUUM ANALYZE"], capture_output=True, text=True
        )
        if vacuumed.returncode:
            sys.exit(vacuumed.stderr)
        result = django(env, "bench/admin/measure.py", str(args.repeat), str(args.publish))
        if result.returncode:
            sys.exit(result.stderr)
        figures = json.loads(result.stdout.strip().splitlines()[-1])
        print(f"\n{figures['entries']:,} entries        p50 ms  queries  KB", flush=True)
        for page, f in figures["pages"].items():
            print(f"  {page:22} {f['p50_ms']:7.1f}  {f['queries']:7}  {f['bytes'] / 1024:5.0f}")
            counts.setdefault(page, set()).add(f["queries"])
            if size >= 10_000 and f["p50_ms"] > PAGE_P50_MS:
                missed.append(f"{page} p50 {f['p50_ms']} ms at {size:,}")
        for key in sorted(k for k in figures if k.startswith("publish_")):
            n = int(key.split("_")[1])
            seconds = figures[key]
            print(
                f"  publishing {n:,} entr{'y' if n == 1 else 'ies'}: {seconds:.2f} s "
                f"({seconds / n * 1000:.0f} ms each)"
            )
    for page, seen in counts.items():
        if len(seen) > 1:
            missed.append(f"{page} query count differs between sizes: {sorted(seen)}")
    if missed:
        print("\nMissed: " + "; ".join(missed), file=sys.stderr)
        return 1
    print("\nAll admin targets met.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
