"""The Celery application shared by the worker, beat and the web process."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("glossary_desk")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Each app keeps its tasks in one tasks.py (editorial.tasks).
app.autodiscover_tasks()
