"""Run Glossary Desk's checker over N sources through the real code path, print JSON.

    python bench/linkcheck/ours.py PORT N [--head-first]

Sources are rows in a fresh SQLite database; the timed part is the claim, the
checks (SSRF guard, one GET per URL by default, classification, fingerprints) and the records
(LinkCheck rows written, Source state updated): `service.claim_sources` then
`service.check_claimed`, the code a worker runs.
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> None:
    port, n = int(sys.argv[1]), int(sys.argv[2])
    head_first = "--head-first" in sys.argv
    db = Path(tempfile.mkdtemp(prefix="bench-linkcheck-")) / "bench.sqlite3"
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
    # Unset: the default (one GET per URL). --head-first measures the option.
    os.environ.pop("LINKCHECK_HEAD_FIRST", None)
    if head_first:
        os.environ["LINKCHECK_HEAD_FIRST"] = "true"
    import django

    django.setup()
    from django.core.management import call_command

    from editorial.linkcheck import service
    from glossary.models import LinkCheck, Source

    call_command("migrate", verbosity=0)
    Source.objects.bulk_create(
        Source(url=f"http://127.0.0.1:{port}/p/{i}", title=f"Page {i}") for i in range(n)
    )
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
