"""Benchmark: bytes per source the stored texts take in a real database, at 10,000 sources.

    .venv/bin/python bench/sourcetext/database.py [--sources 10000] [--latest 3] [--seed 14]
        [--postgres postgres://postgres@127.0.0.1:5432/bench_sourcetext]

`run.py` counts the compressed texts; this stores the same generated sources
through the real models and code (`editorial.sourcetext.service.record_text`
for every new text a check would store, one `CitationConfirmation` per source
on its confirmed text, then `service.prune` with SOURCETEXT_KEEP_LATEST) into a
fresh SQLite database (or, with --postgres, a PostgreSQL database it drops and
creates), and reads what the three tables and their indexes take on disk
(SQLite's `dbstat`; PostgreSQL's `pg_total_relation_size`, TOAST included):
row headers, hashes, history rows and index pages included. A check stores a
text only when the page's words changed, so one snapshot is written per
distinct version a source served (not per check).
Exits 1 when the bytes per source exceed run.py's budget.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

from pages import Corpus, generate_source  # type: ignore[import-not-found]  # noqa: E402
from run import BUDGET_BYTES_PER_SOURCE  # type: ignore[import-not-found]  # noqa: E402

TABLES = (
    "editorial_sourcetext",
    "editorial_sourcesnapshot",
    "editorial_citationconfirmation",
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=10_000)
    parser.add_argument("--latest", type=int, default=3, help="latest texts kept per source")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--budget", type=int, default=BUDGET_BYTES_PER_SOURCE)
    parser.add_argument("--postgres", default="", help="a PostgreSQL URL to (re)create and use")
    args = parser.parse_args()

    if args.postgres:
        import psycopg

        server, name = args.postgres.rsplit("/", 1)
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        url = args.postgres
    else:
        url = f"sqlite:///{Path(tempfile.mkdtemp(prefix='bench-sourcetext-')) / 'bench.sqlite3'}"
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DATABASE_URL": url,
            "REDIS_URL": "",
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction

    from editorial.models import CitationConfirmation, SourceSnapshot
    from editorial.sourcetext import service
    from editorial.sourcetext.text import readable_text
    from glossary.models import Entry, Source

    call_command("migrate", verbosity=0)
    corpus = Corpus.load()
    started = time.perf_counter()
    entry = Entry.objects.create(term="Bench", slug="bench", summary="Bench.")
    confirmations: list[CitationConfirmation] = []
    snapshots = 0
    with transaction.atomic():
        sources = Source.objects.bulk_create(
            Source(url=f"https://bench.invalid/{i}", title=f"Page {i}") for i in range(args.sources)
        )
        for index, row in enumerate(sources):
            source = generate_source(corpus, args.seed, index)
            stored = {}
            for version in dict.fromkeys(source.sightings):  # each distinct version, in order
                text = readable_text(source.pages[version], "text/html; charset=utf-8")
                first_seen = source.sightings.index(version)
                seen = source.seen_at(first_seen).replace(tzinfo=UTC)
                stored[version] = service.record_text(row.pk, text, f"{version:064d}", seen)
                snapshots += 1
            if (index + 1) % 1000 == 0:
                print(f"  {index + 1:,} sources stored", file=sys.stderr, flush=True)
            confirmed = stored.get(source.confirmed) or next(iter(stored.values()))
            assert confirmed.text is not None
            confirmations.append(
                CitationConfirmation(
                    entry=entry,
                    source=row,
                    text=confirmed.text,
                    fingerprint=confirmed.fingerprint,
                    confirmed_on=confirmed.fetched_at.date(),
                )
            )
        CitationConfirmation.objects.bulk_create(confirmations)
    stored_at = time.perf_counter()
    pruned = service.prune(latest=args.latest, now=datetime(2026, 12, 1, tzinfo=UTC))
    done = time.perf_counter()
    sizes: dict[str, int] = dict.fromkeys(TABLES, 0)
    if connection.vendor == "postgresql":
        connection.ensure_connection()
        connection.connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute("VACUUM FULL ANALYZE")
            for table in TABLES:
                cursor.execute("SELECT pg_total_relation_size(%s)", [table])
                sizes[table] = cursor.fetchone()[0]
    else:
        with connection.cursor() as cursor:
            cursor.execute("VACUUM")
            cursor.execute(
                "SELECT name, tbl_name FROM sqlite_master WHERE tbl_name IN (%s, %s, %s)",
                TABLES,
            )
            for name, table in cursor.fetchall():
                cursor.execute(
                    "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name = %s", [name]
                )
                sizes[table] += cursor.fetchone()[0]
    total = sum(sizes.values())
    per_source = total / args.sources
    print(f"database: {connection.vendor}")
    print(
        f"sources {args.sources:,}: {snapshots:,} texts stored by checks, "
        f"{pruned:,} pruned (latest {args.latest} + confirmed kept); "
        f"store {stored_at - started:.1f} s, prune {done - stored_at:.1f} s"
    )
    kept = SourceSnapshot.objects.filter(text__isnull=False).count()
    print(f"history rows {SourceSnapshot.objects.count():,}, with their text {kept:,}")
    for table in TABLES:
        print(f"  {table}: {sizes[table]:,} B ({sizes[table] / args.sources:,.0f} B per source)")
    print(f"on disk, tables and indexes: {total:,} B = {per_source:,.0f} B per source")
    verdict = "met" if per_source <= args.budget else "MISSED"
    print(f"budget {args.budget:,} B per source: {verdict}")
    return 0 if per_source <= args.budget else 1


if __name__ == "__main__":
    sys.exit(main())
