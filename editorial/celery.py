"""The Celery application shared by the worker, beat and the web process."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "editorial.settings")

app = Celery("editorial")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
