"""A real Celery worker and beat against the real Redis run scheduled checks end to end.

The worker shares the test database (PostgreSQL's test_<name>, or a SQLite file:
see conftest) and checks pages on the local test server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection

from glossary.models import LinkCheck, Source
from tests.linkcheck.server import LocalSite
from tests.redis_server import shared_redis_url

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

REDIS_URL = shared_redis_url("LINKCHECK_TEST_REDIS_URL")
CELERY = str(Path(sys.executable).with_name("celery"))


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll `condition` until it is truthy or the deadline passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def _database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        name = str(db["NAME"])
        assert "memory" not in name, "worker tests need a file SQLite test database"
        return f"sqlite:///{name}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


class Processes:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.running: list[subprocess.Popen[bytes]] = []
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": _database_url(),
            "REDIS_URL": REDIS_URL,
            "CELERY_BROKER_URL": REDIS_URL,
            "CELERY_TASK_ALWAYS_EAGER": "false",
            # A killed worker's task comes back after this many seconds.
            "CELERY_VISIBILITY_TIMEOUT": "2",
            "CELERY_UNACKED_RESTORE_INTERVAL": "1",
            "CELERY_UNACKED_RESTORE_THROTTLE": "1",
            "LINKCHECK_ALLOW_PRIVATE": "127.0.0.1",
            "LINKCHECK_SCHEDULE_SECONDS": "1",
            "LINKCHECK_TOTAL_TIMEOUT": "10",
            "LINKCHECK_READ_TIMEOUT": "10",
            "LINKCHECK_BACKOFF": "0.05",
            "LINKCHECK_HOST_SPACING": "0",
        }

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.tmp_path / f"{args[0]}-{len(self.running)}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(
            [CELERY, "-A", "config", *args, "--loglevel=INFO"],
            env=self.env,
            cwd=django_settings.BASE_DIR,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.running.append(process)
        return process

    def worker(self) -> subprocess.Popen[bytes]:
        # The solo pool runs the task in the process we kill, like a lost machine.
        return self.start(
            "worker",
            "--pool=solo",
            "--without-mingle",
            "--without-gossip",
            "-n",
            f"linkcheck-{uuid.uuid4().hex[:8]}@%h",
        )

    def beat(self) -> subprocess.Popen[bytes]:
        return self.start("beat", "-s", str(self.tmp_path / "beat-schedule"))

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in self.tmp_path.glob("*.log"))

    def stop_all(self) -> None:
        for process in self.running:
            if process.poll() is None:
                process.terminate()
        for process in self.running:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


@pytest.fixture
def clean_redis() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    yield client
    client.flushdb()


@pytest.fixture
def processes(
    tmp_path: Path, clean_redis: redis.Redis, transactional_db: None
) -> Iterator[Processes]:
    procs = Processes(tmp_path)
    yield procs
    procs.stop_all()


def _rows_for(source: Source) -> list[LinkCheck]:
    return list(LinkCheck.objects.filter(source=source))


def test_beat_and_a_worker_check_the_due_sources_end_to_end(
    server: LocalSite, processes: Processes, make_source
) -> None:
    ok = make_source(url=server.url("/ok"))
    gone = make_source(url=server.url("/status/410"))
    moved = make_source(url=server.url("/redirect/308?to=/ok"))
    processes.worker()
    processes.beat()
    try:
        wait_for(
            lambda: LinkCheck.objects.filter(source__in=[ok, gone, moved]).count() == 3,
            60,
            "three LinkCheck rows",
        )
    except AssertionError:
        print(processes.logs())
        raise
    outcomes = dict(LinkCheck.objects.values_list("source_id", "outcome"))
    assert outcomes == {ok.pk: "ok", gone.pk: "broken", moved.pk: "moved"}
    moved.refresh_from_db()
    assert moved.health == Source.Health.MOVED
    assert moved.suggested_url == server.url("/ok")
    # Beat keeps firing every second; the sources are not due, so later runs claim nothing.
    beats_before = server.requests.count(("GET", "/ok"))
    wait_for(
        lambda: processes.logs().count("{'claimed': 0") >= 2,
        20,
        "two more beats that claim nothing",
    )
    assert LinkCheck.objects.count() == 3
    assert server.requests.count(("GET", "/ok")) == beats_before


def test_a_check_whose_worker_is_killed_mid_task_completes_on_another_worker(
    server: LocalSite, processes: Processes, make_source
) -> None:
    slow = make_source(url=server.url("/slow?seconds=2"))
    first = processes.worker()
    processes.beat()
    try:
        wait_for(lambda: ("GET", "/slow?seconds=2") in server.requests, 60, "the check to start")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        assert _rows_for(slow) == []  # it died before recording anything
        processes.worker()
        rows = wait_for(lambda: _rows_for(slow), 60, "the redelivered check to be recorded")
    except AssertionError:
        print(processes.logs())
        raise
    assert [row.outcome for row in rows] == ["ok"]
    assert server.requests.count(("GET", "/slow?seconds=2")) >= 2  # fetched again after the kill
    slow.refresh_from_db()
    assert slow.health == Source.Health.OK


def test_two_workers_sharing_the_broker_never_check_a_url_twice(
    server: LocalSite, processes: Processes, make_source
) -> None:
    """Two real workers, beat claiming every second, many small batches: each URL once.

    Beat fires every second, so `check_due_sources` runs again and again, on
    either worker, while the batches of earlier claims are still being checked;
    both workers take batches. The server counts requests per URL.
    """
    sources = [
        make_source(url=server.url(f"/track/two-workers?hold=0.02&n={i}")) for i in range(200)
    ]
    processes.env.update(
        {
            "LINKCHECK_BATCH_SIZE": "10",
            "LINKCHECK_PER_HOST_CONCURRENCY": "4",
            # Production's redelivery timing: a task still running is never handed out again.
            "CELERY_VISIBILITY_TIMEOUT": "3600",
        }
    )
    processes.worker()
    processes.worker()
    try:
        wait_for(lambda: processes.logs().count(" ready.") == 2, 60, "both workers to be ready")
        processes.beat()
        wait_for(
            lambda: LinkCheck.objects.filter(source__in=sources).count() >= len(sources),
            90,
            "every source to be recorded",
        )
        # Later beats claim nothing: the sources are not due again for weeks.
        wait_for(
            lambda: processes.logs().count("{'claimed': 0") >= 2, 30, "two beats claiming nothing"
        )
    except AssertionError:
        print(processes.logs())
        raise
    paths = [p for method, p in server.requests if p.startswith("/track/two-workers")]
    asked = Counter(paths)
    assert len(asked) == len(sources)
    assert [p for p, n in asked.items() if n > 1] == []
    assert LinkCheck.objects.filter(source__in=sources).count() == len(sources)
    per_worker = [
        log.read_text(errors="replace").count("editorial.tasks.check_sources[")
        for log in sorted(processes.tmp_path.glob("worker-*.log"))
    ]
    assert len(per_worker) == 2 and min(per_worker) > 0, per_worker
