"""A real Celery worker and beat send the waiting notifications, into files.

An outbox in another process cannot be read, so the worker runs with Django's
file-based email backend into a temporary directory and the test reads the
message from there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from email import message_from_string, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import redis
from django.apps import apps
from django.conf import settings as django_settings

from editorial import notify, workflow
from editorial.linkcheck.state import Transition
from editorial.models import Notification
from glossary.models import Citation, Source
from tests.linkcheck.test_worker import _database_url
from tests.redis_server import shared_redis_url

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

REDIS_URL = shared_redis_url()
CELERY = str(Path(sys.executable).with_name("celery"))


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


@pytest.fixture
def celery_processes(tmp_path: Path, transactional_db: None) -> Iterator[dict[str, Any]]:
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": _database_url(),
        "REDIS_URL": REDIS_URL,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": str(outbox),
        "NOTIFY_INTERVAL_SECONDS": "1",
        # Nothing else is due: keep the other periodic jobs out of the way.
        "LINKCHECK_SCHEDULE_SECONDS": "86400",
    }
    running: list[subprocess.Popen[bytes]] = []
    for args in (
        ["worker", "--pool=solo", "--without-mingle", "--without-gossip", "-n", "notify@%h"],
        ["beat", "-s", str(tmp_path / "beat-schedule")],
    ):
        log = open(tmp_path / f"{args[0]}.log", "wb")  # noqa: SIM115
        running.append(
            subprocess.Popen(
                [CELERY, "-A", "config", *args, "--loglevel=INFO"],
                env=env,
                cwd=django_settings.BASE_DIR,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    try:
        yield {"outbox": outbox, "tmp_path": tmp_path}
    finally:
        for process in running:
            process.terminate()
        for process in running:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        client.flushdb()


def _messages(outbox: Path) -> list[EmailMessage]:
    found = []
    for path in sorted(outbox.glob("*.log")):
        # The file backend writes each message followed by a line of dashes.
        for chunk in path.read_text().split("-" * 79):
            if chunk.strip():
                message = message_from_string(chunk.strip(), policy=policy.default)
                assert isinstance(message, EmailMessage)
                found.append(message)
    return found


def test_beat_and_a_worker_email_a_review_request_and_a_link_alert_together(
    celery_processes: dict[str, Any], make_ready_entry, make_source, writer, fact_checker, editor
) -> None:
    # Recorded here without queuing the immediate send (that would run in this
    # process, which is eager): the periodic run in the worker must pick it up.
    notify.notifications_recorded.disconnect(dispatch_uid="editorial.notify.deliver_now")
    try:
        entry = make_ready_entry("Interconnect")
        workflow.submit_for_review(entry, user=writer)
    finally:
        apps.get_app_config("editorial").ready()
    source = make_source(title="Spec", health=Source.Health.BROKEN)
    Citation.objects.create(entry=entry, source=source, note="Defines it.")
    notify.tell_source_changes([(source, Transition("failing", "broken", False, False))])

    outbox = celery_processes["outbox"]
    try:
        wait_for(
            lambda: not Notification.objects.filter(sent_at__isnull=True).exists(),
            60,
            "the worker to send every waiting notification",
        )
    except AssertionError:
        logs = "\n".join(p.read_text()[-3000:] for p in celery_processes["tmp_path"].glob("*.log"))
        raise AssertionError(logs) from None
    messages = _messages(outbox)
    by_address = {m["To"]: m for m in messages}
    assert sorted(by_address) == sorted([editor.email, writer.email, fact_checker.email])
    assert len(messages) == 3  # one email each
    assert "Review requested" in by_address[editor.email]["Subject"]
    alert = by_address[fact_checker.email].get_content()
    assert "The link is broken" in alert
    assert by_address[fact_checker.email]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
