"""`make run`: the web server, a Celery worker and beat together, stopped together.

With no REDIS_URL the three share kombu's file-system broker in the run directory
(one file per message; nothing to install or start), so scheduled publications
happen and the dashboard's scheduler check passes on a fresh clone. Emails go to
files in the run directory's outbox (`.desk/outbox/`), one per message. Each child
runs in its own process group; Ctrl-C (SIGINT), SIGTERM or SIGHUP to this process
stops every group, and if one child dies the others are stopped too.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

# How long the children get to finish after SIGTERM before they are killed.
STOP_GRACE_SECONDS = 10.0
FILE_BACKEND = "django.core.mail.backends.filebased.EmailBackend"


def child_environment(run_dir: Path) -> dict[str, str]:
    """The environment the three children share."""
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if not env.get("REDIS_URL") and not env.get("CELERY_BROKER_URL"):
        env["CELERY_BROKER_URL"] = "filesystem://"
        env["CELERY_BROKER_DIR"] = str(run_dir / "broker")
    # Tasks go to the worker, not run inside the web request.
    env["CELERY_TASK_ALWAYS_EAGER"] = "false"
    env.setdefault("CELERY_BEAT_SCHEDULE_FILENAME", str(run_dir / "celerybeat-schedule"))
    # The demo cites real-world pages: a local desk reaches out to them only when asked.
    # Beat checks them only on request, and confirming a citation fetches nothing.
    env.setdefault("LINKCHECK_ON_SCHEDULE", "false")
    env.setdefault("SOURCETEXT_FETCH_ON_CONFIRM", "false")
    env.setdefault("ARCHIVE_ON_CONFIRM", "false")
    # The desk's emails land as files in the run directory's outbox, one per message,
    # where whoever runs the demo can read them (the README names it); the console
    # backend scattered them through three processes' output.
    if not env.get("EMAIL_BACKEND"):
        env["EMAIL_BACKEND"] = FILE_BACKEND
        env["EMAIL_FILE_PATH"] = str(outbox(run_dir))
    return env


def outbox(run_dir: Path) -> Path:
    """Where `make run`'s emails are written."""
    return run_dir / "outbox"


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a recycled id that is no longer ours
        return False
    return True


class Command(BaseCommand):
    help = (
        "Run the web server, a Celery worker and Celery beat together (what `make run` "
        "does); Ctrl-C stops all three. With no REDIS_URL they share a broker in files "
        "under --run-dir. Beat checks cited links only with LINKCHECK_ON_SCHEDULE=true."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "addrport", nargs="?", default="127.0.0.1:8000", help="host:port to serve on"
        )
        parser.add_argument(
            "--run-dir",
            default=str(settings.BASE_DIR / ".desk"),
            help="where the embedded broker's messages and beat's schedule are kept",
        )
        parser.add_argument(
            "--noreload",
            action="store_true",
            help="do not restart the web server when code changes",
        )
        parser.add_argument(
            "--concurrency", type=int, default=2, help="worker processes (default 2)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        run_dir = Path(options["run_dir"]).resolve()
        env = child_environment(run_dir)
        if env.get("CELERY_BROKER_URL") == "filesystem://":
            for sub in ("messages", "control"):
                (run_dir / "broker" / sub).mkdir(parents=True, exist_ok=True)
        run_dir.mkdir(parents=True, exist_ok=True)
        if env.get("EMAIL_BACKEND") == FILE_BACKEND and env.get("EMAIL_FILE_PATH"):
            Path(env["EMAIL_FILE_PATH"]).mkdir(parents=True, exist_ok=True)

        python = sys.executable
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        runserver = [python, manage, "runserver", options["addrport"]]
        if options["noreload"]:
            runserver.append("--noreload")
        celery = [python, "-m", "celery", "-A", "config"]
        commands = {
            "web": runserver,
            "worker": [
                *celery,
                "worker",
                "--loglevel=INFO",
                f"--concurrency={options['concurrency']}",
                f"--hostname=desk@{os.uname().nodename}",
            ],
            "beat": [
                *celery,
                "beat",
                "--loglevel=INFO",
                f"--schedule={env['CELERY_BEAT_SCHEDULE_FILENAME']}",
            ],
        }

        stop = threading.Event()
        received: list[int] = []

        def on_signal(signum: int, frame: object) -> None:
            received.append(signum)
            stop.set()

        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, on_signal)

        children: dict[str, subprocess.Popen[bytes]] = {}
        try:
            for name, command in commands.items():
                # Its own process group, so stopping it reaches the reloader's and the
                # pool's processes too.
                children[name] = subprocess.Popen(  # noqa: S603 (our own commands)
                    command, env=env, stdin=subprocess.DEVNULL, start_new_session=True
                )
                self.stderr.write(f"rundesk: {name} started, pid {children[name].pid}")
            broker = env.get("CELERY_BROKER_URL") or env.get("REDIS_URL", "")
            checks = "off" if env["LINKCHECK_ON_SCHEDULE"].lower() in ("false", "0", "no") else "on"
            mail = (
                f"emails written to {env['EMAIL_FILE_PATH']}"
                if env.get("EMAIL_BACKEND") == FILE_BACKEND and env.get("EMAIL_FILE_PATH")
                else f"emails through {env.get('EMAIL_BACKEND')}"
            )
            self.stderr.write(
                f"rundesk: web server, worker and beat running (broker {broker}, "
                f"scheduled link checks {checks}, {mail}); "
                "Ctrl-C stops all three."
            )
            failed = ""
            while not stop.is_set():
                for name, child in children.items():
                    if child.poll() is not None:
                        failed = f"{name} exited with status {child.returncode}"
                        stop.set()
                        break
                stop.wait(0.5)
        finally:
            self._stop_all(children)
        if failed and not received:
            raise CommandError(f"rundesk: {failed}; stopped the others.")
        self.stderr.write("rundesk: all stopped.")

    def _stop_all(self, children: dict[str, subprocess.Popen[bytes]]) -> None:
        for name, child in children.items():
            if not group_alive(child.pid):
                continue
            if name == "web":
                # The reloader and the server it runs both stop on SIGTERM.
                os.killpg(child.pid, signal.SIGTERM)
            elif child.poll() is None:
                # Celery's main process stops its own pool (a warm shutdown).
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for child in children.values():
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        # The leader may be gone while its pool or reloader child lingers.
        while time.monotonic() < deadline and any(group_alive(c.pid) for c in children.values()):
            time.sleep(0.1)
        for name, child in children.items():
            if group_alive(child.pid):
                self.stderr.write(f"rundesk: {name} did not stop in time; killing it.")
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
