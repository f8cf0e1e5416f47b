"""One size's admin figures, run inside the database `DATABASE_URL` names (see run.py).

Prints one JSON object: per page its p50 in milliseconds and its query count;
and the publishing figures (one entry, and a batch through the real path),
measured inside a transaction that is rolled back, so the database keeps its size.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from typing import Any

import django

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.models import Count  # noqa: E402
from django.test import Client  # noqa: E402
from taggit.models import Tag  # noqa: E402

from demo import generate  # noqa: E402
from glossary.models import Entry  # noqa: E402


class Rollback(Exception):
    pass


def pages() -> dict[str, str]:
    entry = Entry.objects.published().order_by("pk")[Entry.objects.count() // 2]
    tag = Tag.objects.annotate(n=Count("taggit_taggeditem_items")).order_by("-n").first()
    word = entry.term.split()[0].lower()
    return {
        "change": f"/admin/glossary/entry/{entry.pk}/change/",
        "add": "/admin/glossary/entry/add/",
        "changelist": "/admin/glossary/entry/",
        "changelist-filtered": "/admin/glossary/entry/?status__exact=published"
        + (f"&tag={tag.slug}" if tag else ""),
        "changelist-searched": f"/admin/glossary/entry/?q={word}",
        "dashboard": "/admin/dashboard/",
    }


def measure(client: Client, url: str, repeat: int) -> dict[str, Any]:
    for _ in range(2):
        assert client.get(url).status_code == 200, url
    # Counted by an execute wrapper: the query log is not kept with DEBUG off.
    queries = []

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        client.get(url)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, url
    return {
        "p50_ms": round(statistics.median(times), 1),
        "queries": len(queries),
        "bytes": len(response.content),
    }


def publishing(batch: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n in (1, batch):
        if not n:
            continue
        try:
            with transaction.atomic():
                result = generate.generate(n, seed=10_000 + n, append=True)
                out[f"publish_{n}_s"] = round(result.timings["publishing"], 2)
                raise Rollback
        except Rollback:
            pass
    return out


def main() -> None:
    repeat, batch = int(sys.argv[1]), int(sys.argv[2])
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["*"]
    # Not setup_test_environment(): it makes every template render send a signal with a
    # copy of its context for the test client (a fifth of the entry page's time), which
    # no editor's request pays.
    user, _ = User.objects.get_or_create(
        username="bench-admin", defaults={"is_staff": True, "is_superuser": True}
    )
    client = Client()
    client.force_login(user)
    figures: dict[str, Any] = {
        "entries": Entry.objects.count(),
        "pages": {name: measure(client, url, repeat) for name, url in pages().items()},
    }
    figures.update(publishing(batch))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
