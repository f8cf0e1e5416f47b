"""Public pages at 1,000 and 10,000 entries on PostgreSQL, each against the trivial view.

For each size, a PostgreSQL database of the bench's own (`<prefix>_<size>`,
BENCH_WEB_DB_PREFIX, default `bench_web`) holds a glossary made by
`manage.py generate_glossary --entries N --seed 1` (every entry published
through the real workflow). A database already holding exactly N published
entries is reused (`--fresh` makes it again). gunicorn serves it in production
shape (docker/gunicorn.conf.py, DEBUG off, page cache off, JSON access logs,
the limits on search and the API raised out of the way but still counted in
Redis; worker recycling off, as in bench/web/run.py) and `wrk` loads every page
in rounds, the trivial view measured either side of every page (bench/web/run.py's
`sandwiched`); medians of the rounds, with the lowest and highest ratio.

Pages: the entry page, the A–Z index and a letter's page of it, the tag, episode,
person and organisation with the most entries, a search for a common word, the
API's entry list and an entry, the feed and the second page of the entries'
sitemap.

Targets: entry >= 45% of trivial, every other page >= 25%; search p99 < 100 ms;
from 1,000 to 10,000 entries no page loses more than 20% of its throughput
(compared as ratios to the trivial view of the same run, so the machine's drift
between the two sizes does not count).

    .venv/bin/python bench/web/scale.py [--sizes 1000 10000] [--fresh] [--duration 2]
                                         [--rounds 5] [--connections 8]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

# The sibling script's server and wrk helpers (bench/memory/run.py loads it the same way).
_spec = importlib.util.spec_from_file_location("bench_web", Path(__file__).with_name("run.py"))
assert _spec is not None and _spec.loader is not None
web = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(web)
_spec = importlib.util.spec_from_file_location("bench_pages", Path(__file__).with_name("pages.py"))
assert _spec is not None and _spec.loader is not None
listed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(listed)
GUNICORN, PY, REDIS_URL, ROOT = web.GUNICORN, web.PY, web.REDIS_URL, web.ROOT
app_env, check_redis, ensure_wrk, free_port, run_wrk = (
    web.app_env,
    web.check_redis,
    web.ensure_wrk,
    web.free_port,
    web.run_wrk,
)

PG = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
PREFIX = os.environ.get("BENCH_WEB_DB_PREFIX", "bench_web")
SEED = 1
ENTRY_TARGET = 0.45
PAGE_TARGET = 0.25
SEARCH_P99_MS = 100.0
MAX_LOSS = 0.20

# What to load, chosen in the served glossary (see `choose`): name -> path.
PICK = r"""
import json, collections, re
import django
django.setup()
from django.db.models import Count
from glossary import selectors
from glossary.models import EntryVersion, PublicRecord

live = selectors.live_versions()
n = live.count()
entry = live.order_by("term").values_list("slug", flat=True)[n // 2]

def busiest(kind, index):
    row = (
        live.values(index).annotate(c=Count("pk")).order_by("-c", index).first()
    )
    return PublicRecord.objects.get(kind=kind, object_id=row[index]).slug

words = collections.Counter(
    w for s in live.order_by("pk").values_list("summary", flat=True)[:300]
    for w in re.findall(r"[a-z]{6,}", s.lower())
)
print(json.dumps({
    "entry": f"/glossary/{entry}/",
    "tag": f"/tags/{busiest('tag', 'tags')}/",
    "episode": "/episodes/" + busiest("episode", "episodes") + "/",
    "person": f"/people/{busiest('person', 'people')}/",
    "organisation": f"/organisations/{busiest('organisation', 'organisations')}/",
    "search": "/search/?q=" + words.most_common(1)[0][0],
    "api-entry": f"/api/v1/entries/{entry}/",
}))
"""


def pg_env(db: str) -> dict[str, str]:
    env = app_env(Path("unused"), cached=False)
    env.update(
        DATABASE_URL=f"{PG}/{db}",
        # Counted in Redis as in production, but never reached by the benchmark's load.
        PUBLIC_SEARCH_RATE_LIMIT="100000000/m",
        PUBLIC_API_RATE_LIMIT="100000000/m",
    )
    return env


def psql(sql: str, db: str = "postgres") -> str:
    url = f"{PG}/{db}"
    out = subprocess.run(
        ["psql", url, "-tAc", sql], capture_output=True, text=True, check=False
    )  # fmt: skip
    if out.returncode != 0 and "connection to server" in out.stderr:
        # Not "no such table": a database the bench cannot reach must not be made again
        # (a server out of connections once had the bench drop its 10,000 entries).
        sys.exit(f"PostgreSQL did not answer the bench: {out.stderr.strip()}")
    return out.stdout.strip() if out.returncode == 0 else ""


def ensure_database(size: int, *, fresh: bool) -> str:
    """The database for `size`, holding exactly `size` published entries."""
    db = f"{PREFIX}_{size}"
    env = pg_env(db)
    exists = psql(f"SELECT 1 FROM pg_database WHERE datname = '{db}'") == "1"
    published = (
        psql("SELECT count(*) FROM glossary_entry WHERE live_version_id IS NOT NULL", db)
        if exists
        else ""
    )
    if fresh or published != str(size):
        print(f"Generating {size:,} entries into {db} (generate_glossary)", flush=True)
        subprocess.run(
            ["psql", f"{PG}/postgres", "-qc", f"DROP DATABASE IF EXISTS {db}"], check=True
        )
        subprocess.run(["psql", f"{PG}/postgres", "-qc", f"CREATE DATABASE {db}"], check=True)
        subprocess.run(
            [PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
        )
        started = time.monotonic()
        subprocess.run(
            [PY, "manage.py", "generate_glossary", "--entries", str(size), "--seed", str(SEED),
             "--no-progress"],
            cwd=ROOT, env=env, check=True,
        )  # fmt: skip
        print(f"  {time.monotonic() - started:.0f} s", flush=True)
    else:
        # Reused: bring its schema up to this code's.
        subprocess.run(
            [PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
        )
    # The first pages of episodes, people and organisations, stored by this code, as a
    # deploy's `manage.py rerender` stores them: a page stored by other code is not served
    # (glossary.reference_views). Quick when the generator has just stored them.
    subprocess.run(
        [PY, "manage.py", "shell", "-v", "0", "-c",
         "from glossary.stored_pages import store_all_first_pages as store; "
         "print(f'  {store()} first pages stored')"],
        cwd=ROOT, env=env, check=True,
    )  # fmt: skip
    # As autovacuum would have by now in production: statistics for the planner and a
    # visibility map (without it a count over 1,000 rows took 30 ms instead of 0.5).
    subprocess.run(["psql", f"{PG}/{db}", "-qc", "VACUUM ANALYZE"], check=True)
    return db


def choose(db: str, base: str) -> dict[str, str]:
    picked = json.loads(
        subprocess.run(
            [PY, "-c", PICK], cwd=ROOT, env=pg_env(db), capture_output=True, text=True, check=True
        ).stdout
    )
    with urllib.request.urlopen(base + "/", timeout=30) as response:
        home = response.read().decode()
    return listed.pages(picked, home)


@contextmanager
def server(db: str, *, workers: int, threads: int, log: Path):
    port = free_port()
    with log.open("w") as out:
        proc = subprocess.Popen(
            [GUNICORN, "--config", "docker/gunicorn.conf.py", "config.wsgi:application"],
            cwd=ROOT,
            env={
                **pg_env(db),
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
    with server(db, workers=args.workers, threads=args.threads, log=tmp / f"{db}.log") as base:
        pages = choose(db, base)
        for path in pages.values():  # warm every worker, and fail early on an error
            for _ in range(args.workers * 2):
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
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--fresh", action="store_true", help="generate the databases again")
    parser.add_argument("--duration", type=int, default=2, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; medians")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per worker (1: production's sync worker)"
    )
    args, _ = parser.parse_known_args()

    wrk = ensure_wrk()
    check_redis()
    figures: dict[int, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-web-scale-") as tmp:
        for size in args.sizes:
            db = ensure_database(size, fresh=args.fresh)
            print(f"{size:,} entries ({db}):", flush=True)
            pages, figures[size] = measure(db, args, wrk, Path(tmp))
            for name, path in pages.items():
                print(f"  {name:<13} {path}")

    print(
        f"\nPostgreSQL, gunicorn (docker/gunicorn.conf.py) {args.workers} workers x "
        f"{args.threads} threads, page cache off, DEBUG off; wrk -t1 -c{args.connections} "
        f"-d{args.duration}s x {args.rounds} rounds, the trivial view either side of every "
        f"page; medians (lowest-highest ratio); Redis {REDIS_URL}"
    )
    failed: list[str] = []
    sizes = list(figures)
    head = "".join(f" | {s:>6,}: req/s  p99 ms  vs trivial     range" for s in sizes)
    print(f"{'page':<13}{head} | target")
    for name in figures[sizes[0]]:
        cells, notes = "", []
        for size in sizes:
            r = figures[size][name]
            spread = "" if name == "trivial" else f"{r['low']:.0%}-{r['high']:.0%}"
            cells += f" | {'':>7}{r['rps']:>6.0f} {r['p99']:>7.1f} {r['ratio']:>10.0%} {spread:>9}"
            if name == "trivial":
                continue
            target = ENTRY_TARGET if name in ("entry",) else PAGE_TARGET
            if r["ratio"] < target:
                failed.append(f"{name} at {size:,}: {r['ratio']:.0%} of trivial < {target:.0%}")
            if name == "search" and r["p99"] >= SEARCH_P99_MS:
                failed.append(f"search p99 at {size:,}: {r['p99']:.0f} ms >= {SEARCH_P99_MS:.0f}")
        if name != "trivial":
            notes.append(f">= {ENTRY_TARGET if name == 'entry' else PAGE_TARGET:.0%}")
            if len(sizes) > 1:
                small, large = figures[sizes[0]][name], figures[sizes[-1]][name]
                kept = large["ratio"] / small["ratio"]
                notes.append(f"{sizes[-1]:,} keeps {kept:.0%}")
                if kept < 1 - MAX_LOSS:
                    failed.append(
                        f"{name}: {sizes[-1]:,} entries keep {kept:.0%} of the throughput "
                        f"at {sizes[0]:,} (>= {1 - MAX_LOSS:.0%})"
                    )
        print(f"{name:<13}{cells} | {', '.join(notes)}")
    if failed:
        print("\nMissed:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    print("\nEvery target met.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
