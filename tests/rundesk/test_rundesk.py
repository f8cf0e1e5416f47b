"""`make run`'s launcher (manage.py rundesk) brings up the web server, a worker and beat
on the embedded file-system broker with no Redis, and Ctrl-C stops every process.

Runs against its own SQLite file in a temporary directory, not the test database.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests

from config.management.commands.rundesk import child_environment

MANAGE = str(Path(__file__).resolve().parents[2] / "manage.py")


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def clean_environment(tmp_path: Path) -> dict[str, str]:
    """A fresh clone's environment: no Redis, no broker, a SQLite file of its own."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(
            ("REDIS", "CELERY", "CACHE_REDIS", "LINKCHECK_", "DATABASE", "EMAIL_", "NOTIFY_")
        )
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
            # Beat fires every second, so two of its runs fit in a few seconds; the link
            # checker's entry would fire every second too, were it scheduled.
            "SCHEDULER_INTERVAL_SECONDS": "1",
            "LINKCHECK_SCHEDULE_SECONDS": "1",
            "DJANGO_SUPERUSER_PASSWORD": "run-test-password",
            # Waiting emails go out every second instead of every five minutes.
            "NOTIFY_INTERVAL_SECONDS": "1",
        }
    )
    return env


def heartbeat(db: Path) -> str | None:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT last_run_at FROM editorial_schedulerheartbeat").fetchone()
    return str(row[0]) if row else None


@pytest.mark.worker
def test_rundesk_runs_web_worker_and_beat_and_ctrl_c_stops_them_all(tmp_path: Path) -> None:
    env = clean_environment(tmp_path)
    python = sys.executable
    subprocess.run([python, MANAGE, "migrate", "-v0"], env=env, check=True)
    subprocess.run(
        [python, MANAGE, "createsuperuser", "--noinput", "--username=boss", "--email=b@x.test"],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    # Something for the desk to tell the admin, waiting as a workflow change leaves it.
    with sqlite3.connect(tmp_path / "db.sqlite3") as conn:
        conn.execute(
            "INSERT INTO editorial_notification (recipient_id, kind, subject, text, created_at,"
            " outcome, attempts, error) SELECT id, 'review_requested', 'Review requested:"
            " “Interconnect”', 'Wanda submitted “Interconnect” for review.',"
            " CURRENT_TIMESTAMP, '', 0, '' FROM auth_user WHERE username = 'boss'"
        )
    port = free_port()
    log_path = tmp_path / "rundesk.log"
    with log_path.open("wb") as log:
        launcher = subprocess.Popen(
            [python, MANAGE, "rundesk", f"127.0.0.1:{port}", "--run-dir", str(tmp_path / "run")],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"

    def page_answers() -> bool:
        try:
            return requests.get(f"{base}/", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False

    try:
        wait_for(page_answers, 60, "the web server")
        first = wait_for(lambda: heartbeat(tmp_path / "db.sqlite3"), 60, "a scheduler run")
        # Runs keep coming, so beat (not only the worker's run at start) is alive.
        wait_for(lambda: (heartbeat(tmp_path / "db.sqlite3") or "") > first, 60, "beat's next run")
        session = requests.Session()
        session.get(f"{base}/admin/login/", timeout=5)
        session.post(
            f"{base}/admin/login/?next=/admin/dashboard/",
            data={
                "username": "boss",
                "password": "run-test-password",
                "csrfmiddlewaretoken": session.cookies["csrftoken"],
            },
            headers={"Referer": f"{base}/admin/login/"},
            timeout=5,
        )
        dashboard = session.get(f"{base}/admin/dashboard/", timeout=10)
        assert dashboard.status_code == 200
        assert "The scheduler last ran at" in dashboard.text
        assert "The scheduler is not running" not in dashboard.text
        # Beat's delivery run wrote the email into the outbox the README names.
        outbox = tmp_path / "run" / "outbox"
        written = wait_for(lambda: list(outbox.glob("*.log")), 60, "an email in the outbox")
        email = written[0].read_text()
        assert "To: b@x.test" in email
        assert "Wanda submitted “Interconnect” for review." in email
    except AssertionError:
        launcher.send_signal(signal.SIGINT)
        launcher.wait(30)
        print(log_path.read_text())
        raise

    output = log_path.read_text()
    pids = {
        name: int(pid) for name, pid in re.findall(r"rundesk: (\w+) started, pid (\d+)", output)
    }
    assert set(pids) == {"web", "worker", "beat"}
    for pid in pids.values():
        assert group_alive(pid)

    launcher.send_signal(signal.SIGINT)  # what Ctrl-C sends
    assert launcher.wait(30) == 0
    output = log_path.read_text()
    assert "rundesk: all stopped." in output
    assert f"emails written to {tmp_path / 'run' / 'outbox'}" in output
    for name, pid in pids.items():
        assert not group_alive(pid), f"{name}'s processes outlived the launcher"
    # The demo's sources are real-world pages: beat never scheduled a link check.
    assert "publish-scheduled-entries" in output
    assert "linkcheck-due-sources" not in output


def test_rundesk_turns_scheduled_link_checks_off_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in (
        "EMAIL_BACKEND",
        "EMAIL_FILE_PATH",
        "LINKCHECK_ON_SCHEDULE",
        "SOURCETEXT_FETCH_ON_CONFIRM",
        "ARCHIVE_ON_CONFIRM",
        "REDIS_URL",
        "CELERY_BROKER_URL",
    ):
        monkeypatch.delenv(key, raising=False)
    env = child_environment(tmp_path)
    assert env["EMAIL_BACKEND"] == "django.core.mail.backends.filebased.EmailBackend"
    assert env["EMAIL_FILE_PATH"] == str(tmp_path / "outbox")
    assert env["LINKCHECK_ON_SCHEDULE"] == "false"
    assert env["SOURCETEXT_FETCH_ON_CONFIRM"] == "false"
    assert env["ARCHIVE_ON_CONFIRM"] == "false"
    assert env["CELERY_BROKER_URL"] == "filesystem://"
    assert env["CELERY_TASK_ALWAYS_EAGER"] == "false"
    monkeypatch.setenv("LINKCHECK_ON_SCHEDULE", "true")
    assert child_environment(tmp_path)["LINKCHECK_ON_SCHEDULE"] == "true"
    # With a Redis named, the launcher uses it instead of the file broker.
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/9")
    assert "CELERY_BROKER_URL" not in child_environment(tmp_path)


@pytest.mark.parametrize(("setting", "scheduled"), [("false", False), ("true", True), ("", True)])
def test_beat_schedules_link_checks_only_when_linkcheck_on_schedule(
    tmp_path: Path, setting: str, scheduled: bool
) -> None:
    env = clean_environment(tmp_path)
    if setting:
        env["LINKCHECK_ON_SCHEDULE"] = setting
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; "
            "print(sorted(settings.CELERY_BEAT_SCHEDULE))",
        ],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(MANAGE).parent,
    ).stdout
    assert "publish-scheduled-entries" in out
    assert ("linkcheck-due-sources" in out) is scheduled


@pytest.mark.worker
def test_when_one_process_dies_the_launcher_stops_the_others(tmp_path: Path) -> None:
    env = clean_environment(tmp_path)
    subprocess.run([sys.executable, MANAGE, "migrate", "-v0"], env=env, check=True)
    with socket.socket() as taken:
        # The web server cannot bind: it exits, and the worker and beat must go with it.
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [
                sys.executable,
                MANAGE,
                "rundesk",
                f"127.0.0.1:{port}",
                "--noreload",
                "--run-dir",
                str(tmp_path / "run"),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode != 0
    assert "web exited with status" in result.stderr
    pids = [int(pid) for pid in re.findall(r"started, pid (\d+)", result.stderr)]
    assert len(pids) == 3
    for pid in pids:
        assert not group_alive(pid)


def test_rundesk_keeps_an_email_backend_someone_chose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
    monkeypatch.delenv("EMAIL_FILE_PATH", raising=False)
    env = child_environment(tmp_path)
    assert env["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert "EMAIL_FILE_PATH" not in env
