"""The bulk check runs on a real Celery worker against the real Redis, with progress."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings

from config.celery import app
from demo.demo_data import TRANSCRIPTS
from editorial import quote_verification_runs
from editorial.models import QuoteCheckRun
from editorial.tasks import verify_all_quotes
from glossary.models import Entry, Episode, Person, Quote
from glossary.transcript_imports import import_transcript
from tests.linkcheck.test_worker import _database_url, wait_for
from tests.redis_server import shared_redis_url

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    # This process runs tasks in process; send_task says so, but it goes to the worker.
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
]

REDIS_URL = shared_redis_url()
CELERY = str(Path(sys.executable).with_name("celery"))
EPISODES, QUOTES_EACH = 6, 25


@pytest.fixture
def worker(tmp_path: Path, transactional_db: None) -> Iterator[Path]:
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()  # our own database number only
    log_path = tmp_path / "worker.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": _database_url(),
        "REDIS_URL": REDIS_URL,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
    }
    with open(log_path, "wb") as log:
        process = subprocess.Popen(  # noqa: S603 - our own celery, fixed arguments
            [
                CELERY,
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "--without-mingle",
                "--without-gossip",
                "--loglevel=INFO",
                "-n",
                f"quotes-{uuid.uuid4().hex[:8]}@%h",
            ],
            env=env,
            cwd=django_settings.BASE_DIR,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield log_path
        finally:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
            client.flushdb()


def _many_quotes(demo: Any) -> int:
    """Episodes that share the demo's episode-44 transcript, each quoted many times."""
    template = Episode.objects.get(number=44)
    patel = Person.objects.get(slug="jeetu-patel")
    entry = Entry.objects.create(term="Bulk", slug="bulk")
    content = TRANSCRIPTS[44].read_bytes()
    for n in range(EPISODES):
        episode = Episode.objects.create(
            show=template.show, season=9, number=100 + n, title=f"Copy {n}", duration=3600
        )
        import_transcript(episode, content, origin="copy.vtt")
        Quote.objects.bulk_create(
            Quote(
                entry=entry,
                order=i,
                episode=episode,
                speaker=patel,
                start=1538 if i % 5 else 100,  # one in five placed at the wrong time
                text="operate as one giant cluster, one coherent cluster",
            )
            for i in range(QUOTES_EACH)
        )
    return Quote.objects.count()


def test_a_worker_checks_every_quote_and_the_run_shows_its_progress(
    demo: Any, worker: Path
) -> None:
    total = _many_quotes(demo) + 2  # the seed's reference quotes two phrases
    started = QuoteCheckRun.objects.create()
    # This process runs tasks in process (no REDIS_URL here): send to the worker's broker.
    with app.connection_for_write(REDIS_URL) as connection:
        app.send_task(verify_all_quotes.name, args=[started.pk], connection=connection)
    try:
        wait_for(
            lambda: QuoteCheckRun.objects.get(pk=started.pk).state == "done",
            90,
            "the run to finish",
        )
    except AssertionError:
        print(worker.read_text(errors="replace")[-4000:])
        raise
    started.refresh_from_db()
    wrong = EPISODES * QUOTES_EACH // 5
    assert (started.total, started.done) == (total, total)
    assert started.counts == {"match": total - wrong, "elsewhere": wrong}
    assert len(started.problems) == wrong
    assert quote_verification_runs.run(started.pk) == {}  # a redelivery finds it done
