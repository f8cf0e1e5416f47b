"""The Celery application shared by the worker, beat and the web process."""

import os
from pathlib import Path
from typing import Any

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("glossary_desk")
app.config_from_object("django.conf:settings", namespace="CELERY")


@app.on_after_configure.connect
def use_the_file_broker_folder(sender: Any, **kwargs: Any) -> None:
    """Point `make run`'s file broker at CELERY_BROKER_DIR (messages and broadcasts)."""
    if not str(sender.conf.broker_url or "").startswith("filesystem://"):
        return
    from django.conf import settings

    folder = Path(settings.CELERY_BROKER_DIR)
    sender.conf.broker_transport_options = {
        **sender.conf.broker_transport_options,
        "data_folder_in": str(folder / "messages"),
        "data_folder_out": str(folder / "messages"),
        "control_folder": str(folder / "control"),
    }


# Each app keeps its tasks in one tasks.py (editorial.tasks).
app.autodiscover_tasks()


@worker_ready.connect
def run_scheduler_once_at_start(sender: Any, **kwargs: Any) -> None:
    """A worker that comes up runs the scheduler at once, instead of a minute later.

    Scheduled actions that fell due while no worker ran are carried out now, and the
    dashboard learns the scheduler is alive on its first page. Safe to run more than
    once (editorial.scheduling claims each action with a conditional UPDATE).
    """
    sender.app.send_task("editorial.tasks.publish_due")
