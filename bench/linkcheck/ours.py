"""Run Glossary Desk's checker over N sources through the real code path, print JSON.

    python bench/linkcheck/ours.py PORT N [--head-first]

Sources are rows in a fresh SQLite database; the timed part is the claim, the
checks (SSRF guard, one GET per URL by default, classification, fingerprints) and the records
(LinkCheck rows written, Source state updated): `service.claim_sources` then
`service.check_claimed`, the code a worker runs. The database is migrated and
filled by a process of its own first (`--prepare`), as a worker's database is
migrated by the deploy, so this process's memory is a worker's: Django, the
models and the checker (migrating in process added ~23 MB to its peak).
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def environment(db: Path) -> None:
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            # Production shape: with DEBUG on, Django keeps and formats every query
            # (for executemany, every row's parameters), which no worker does.
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DATABASE_URL": f"sqlite:///{db}",
            "REDIS_URL": "",
            "LINKCHECK_ALLOW_PRIVATE": "127.0.0.1",
            "LINKCHECK_CONCURRENCY": "64",
            "LINKCHECK_PER_HOST_CONCURRENCY": "0",
            "LINKCHECK_HOST_SPACING": "0",
            "LOG_LEVEL": "WARNING",
        }
    )


def prepare(db: Path, port: int, n: int) -> None:
    """Migrate a fresh database at `db` and add n sources on the bench server."""
    environment(db)
    import django

    django.setup()
    from django.core.management import call_command

    from glossary.models import Source

    call_command("migrate", verbosity=0)
    Source.objects.bulk_create(
        Source(url=f"http://127.0.0.1:{port}/p/{i}", title=f"Page {i}") for i in range(n)
    )


def main() -> None:
    if sys.argv[1] == "--prepare":
        prepare(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
        return
    port, n = int(sys.argv[1]), int(sys.argv[2])
    head_first = "--head-first" in sys.argv
    db = Path(tempfile.mkdtemp(prefix="bench-linkcheck-")) / "bench.sqlite3"
    subprocess.run([sys.executable, __file__, "--prepare", str(db), str(port), str(n)], check=True)
    environment(db)
    # Unset: the default (one GET per URL). --head-first measures the option.
    os.environ.pop("LINKCHECK_HEAD_FIRST", None)
    if head_first:
        os.environ["LINKCHECK_HEAD_FIRST"] = "true"
    import django

    django.setup()
    from editorial.linkcheck import service
    from glossary.models import LinkCheck, Source

    ids = list(Source.objects.values_list("pk", flat=True))

    before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    # Exactly what a worker's check_sources task does with a claim (service.check_claimed:
    # chunks of service.CHUNK_SIZE sources, each recorded while the next is fetched).
    claim = service.claim_sources(ids)
    t_checks = time.perf_counter()
    service.check_claimed(claim, keep=False)
    done = time.perf_counter()
    wall = done - started
    after = resource.getrusage(resource.RUSAGE_SELF)

    outcomes = dict(
        LinkCheck.objects.values_list("outcome").annotate(n=django.db.models.Count("pk"))
    )
    fingerprinted = LinkCheck.objects.exclude(fingerprint="").count()
    print(
        json.dumps(
            {
                "n": n,
                "wall": wall,
                "phases": {"claim": t_checks - started, "check_and_record": done - t_checks},
                "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
                "peak_kb": after.ru_maxrss,
                "outcomes": outcomes,
                "fingerprinted": fingerprinted,
            }
        )
    )


if __name__ == "__main__":
    main()
