"""In-process timings of the public pages on a bench database: no server, no wrk.

Django's test client through every middleware, DEBUG off, page cache off, the
same pages bench/web/scale.py loads (chosen the same way), each against the
trivial view in the same run. Prints the median and 90th percentile in
milliseconds, the ratio of the trivial view's median to the page's, the
page's size and its query count. Cheaper and steadier than the wrk run on a
shared machine: use it to see what a change buys, then confirm with scale.py.
On PostgreSQL it also prints the CPU time a request costs this process and its
PostgreSQL backend (from /proc, over the last round of the page's requests): on a
machine whose speed wanders, CPU per request of old and new code, alternated, showed
what the wall-clock medians hid (bench/README.md).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_web_1000 \\
        .venv/bin/python bench/web/inprocess.py [--repeat 40] [--only index search]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import re
import secrets
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)


def configure() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="testserver,127.0.0.1",
        SECURE_SSL_REDIRECT="false",
        STATIC_MANIFEST="false",
        BENCH_TRIVIAL_VIEW="true",
        PUBLIC_PAGE_CACHE="false",
        LOG_LEVEL="WARNING",
        PUBLIC_SEARCH_RATE_LIMIT="100000000/m",
        PUBLIC_API_RATE_LIMIT="100000000/m",
    )
    if "BENCH_REDIS_URL" in os.environ:
        os.environ["REDIS_URL"] = os.environ["BENCH_REDIS_URL"]


def pick_pages(client: object) -> dict[str, str]:
    # scale.py's own choice of pages (PICK), read from its source so its helpers do not load.
    source = Path(__file__).with_name("scale.py").read_text()
    pick = re.search(r'^PICK = r"""(.*?)^"""', source, re.M | re.S)
    assert pick is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(pick.group(1), {})  # noqa: S102 - the bench's own choice of pages
    picked = json.loads(out.getvalue())
    home = client.get("/").content.decode()  # type: ignore[attr-defined]
    here = Path(__file__).with_name("pages.py")
    spec = importlib.util.spec_from_file_location("bench_pages", here)
    assert spec is not None and spec.loader is not None
    listed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(listed)
    pages: dict[str, str] = listed.pages(picked, home)
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--only", nargs="*", default=[], help="page names to measure")
    parser.add_argument("--path", action="append", default=[], help="NAME=PATH to add a page")
    args = parser.parse_args()

    configure()
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    pages = pick_pages(client)
    for extra in args.path:
        name, _, path = extra.partition("=")
        pages[name] = path
    if args.only:
        pages = {k: v for k, v in pages.items() if k in args.only or k == "trivial"}

    tick = os.sysconf("SC_CLK_TCK")

    def backend_cpu() -> float:
        """Seconds of CPU this connection's PostgreSQL backend has used (0 elsewhere)."""
        if connection.vendor != "postgresql":
            return 0.0
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            (pid,) = cursor.fetchone()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the database is on another machine
            return 0.0
        return (int(fields[11]) + int(fields[12])) / tick

    cpu: dict[str, tuple[float, float]] = {}

    def timed(path: str) -> list[float]:
        times = []
        backend, own = backend_cpu(), time.process_time()
        for _ in range(args.repeat):
            started = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        cpu[path] = (
            (time.process_time() - own) * 1000 / args.repeat,
            (backend_cpu() - backend) * 1000 / args.repeat,
        )
        return times

    for path in pages.values():  # warm up: compiled queries, templates, connections
        for _ in range(3):
            assert client.get(path).status_code == 200, path
    results: dict[str, dict[str, float]] = {}
    for _round in range(2):  # interleaved with the trivial view; the better round counts
        for name, path in pages.items():
            times = timed(path)
            row = {"p50": statistics.median(times), "p90": statistics.quantiles(times, n=10)[-1]}
            if name not in results or row["p50"] < results[name]["p50"]:
                results[name] = row
    print(f"{connection.settings_dict['NAME']}: medians of {args.repeat}, best of 2 rounds")
    head = ("page", "p50 ms", "p90 ms", "trivial/page", "KB", "queries", "cpu ms", "db ms")
    print("{:<13} {:>8} {:>8} {:>13} {:>6} {:>8} {:>7} {:>6}  path".format(*head))
    for name, path in pages.items():
        with CaptureQueriesContext(connection) as queries:
            body = client.get(path).content
        r = results[name]
        ratio = results["trivial"]["p50"] / r["p50"]
        print(
            f"{name:<13} {r['p50']:>8.2f} {r['p90']:>8.2f} {ratio:>13.0%} "
            f"{len(body) / 1024:>6.1f} {len(queries):>8} {cpu[path][0]:>7.2f} "
            f"{cpu[path][1]:>6.2f}  {path}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
