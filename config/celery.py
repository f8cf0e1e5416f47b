"""The Celery application shared by the worker, beat and the web process."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("glossary_desk")
app.config_from_object("django.conf:settings", namespace="CELERY")
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
