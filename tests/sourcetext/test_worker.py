"""A real Celery worker and beat store a changed page's text on the scheduled check.

The page on the local server says "3 TB/s" when a fact-checker confirms it and
"3.6 TB/s" when beat's scheduled check reaches it; the worker stores the new
text beside the confirmed one, and everything downstream reads it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
import redis
from django.core.management import call_command

from editorial import gates
from editorial.models import CitationConfirmation, SourceSnapshot
from glossary.models import Source
from tests.linkcheck.test_worker import Processes, wait_for
from tests.redis_server import shared_redis_url
from tests.sourcetext.helpers import (
    NVLinkSourceFactory,
    UnconfirmedCitationFactory,
    change_page,
    confirm_in_admin,
    stored_text,
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# This worker's database on the shared Redis (flushed freely): tests.redis_server.
REDIS_URL = shared_redis_url()


@pytest.fixture
def processes(tmp_path: Path, transactional_db: None) -> Iterator[Processes]:
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    procs = Processes(tmp_path)
    procs.env.update(REDIS_URL=REDIS_URL, CELERY_BROKER_URL=REDIS_URL)
    yield procs
    procs.stop_all()
    client.flushdb()


def test_the_scheduled_check_stores_the_changed_text_and_keeps_the_confirmed_one(
    site, processes: Processes, make_entry, fact_checker, allow_loopback
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink", slug="nvlink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    change_page(site)
    Source.objects.filter(pk=source.pk).update(next_check_at=None)  # due now
    processes.worker()
    processes.beat()
    try:
        wait_for(
            lambda: SourceSnapshot.objects.filter(source=source).count() == 2,
            60,
            "the worker to store the page's new text",
        )
    except AssertionError:
        print(processes.logs())
        raise
    newest = SourceSnapshot.objects.filter(source=source).latest()
    assert "delivers 3.6 TB/s" in stored_text(newest.text)
    assert "delivers 3 TB/s" in stored_text(CitationConfirmation.objects.get().text)
    out = StringIO()
    call_command("source_changes", "--json", stdout=out)
    [found] = json.loads(out.getvalue())
    assert found["figures_gone"] == ["3 TB/s"]
    assert found["entries"] == ["nvlink"]
    [claim] = [r for r in gates.run_gates(entry) if r.code == gates.CLAIM_HELD]
    assert claim.message == (
        "NVIDIA: NVLink and NVLink Switch no longer says '3 TB/s'; it now says '3.6 TB/s'"
    )
