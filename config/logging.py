"""Structured logs: one JSON object per line, for web and workers alike.

Every record carries the request id of the web request that caused it (set by
`RequestIdMiddleware`, taken from a trusted proxy's ``X-Request-ID`` or made
up here) or, in a Celery worker, the id and name of the running task. A task
enqueued while a request is handled carries that request's id with it, so one
id follows an editor's click from gunicorn into the worker.

Nothing here logs headers, cookies, query strings or bodies: those are where
secrets live (session ids, CSRF tokens, passwords typed into the login form).
"""

from __future__ import annotations

import contextvars
import datetime
import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from celery import current_task as celery_current_task
from celery.signals import before_task_publish, setup_logging
from django.core.signals import request_finished
from django.http import HttpRequest, HttpResponse

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "request_id", default=None
)

REQUEST_ID_HEADER = "X-Request-ID"
# A proxy's id is accepted only if it looks like an id; anything else could be
# a log-injection attempt and is replaced.
_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{8,128}$")

# LogRecord attributes that are plumbing, not information worth a JSON key.
_RESERVED = set(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys()
    | {"message", "asctime", "request", "server_time"}
)

access_logger = logging.getLogger("glossary_desk.request")


def new_request_id() -> str:
    return uuid.uuid4().hex


def current_task() -> Any:
    """The Celery task running in this thread, if any (None in the web process)."""
    task = celery_current_task
    if task is None or not getattr(task, "request", None) or task.request.id is None:
        return None
    return task


class ContextFilter(logging.Filter):
    """Attach request_id, task_id and task_name to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        task = current_task()
        if task is not None:
            record.task_id = task.request.id
            record.task_name = task.name
            headers = getattr(task.request, "headers", None) or {}
            request_id = headers.get("request_id") or getattr(task.request, "request_id", None)
            if request_id and not getattr(record, "request_id", None):
                record.request_id = request_id
        if not getattr(record, "request_id", None):
            request_id = request_id_var.get()
            if request_id:
                record.request_id = request_id
        return True


class JsonFormatter(logging.Formatter):
    """Format a record as one line of JSON with a UTC timestamp.

    Extra attributes passed with ``extra={...}`` become keys; values that are
    not JSON types are written with ``str()``.
    """

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "time": datetime.datetime.fromtimestamp(record.created, tz=datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key in _RESERVED or key.startswith("_") or key in payload:
                continue
            payload[key] = value
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            payload["stack"] = self.formatStack(record.stack_info)
        return json.dumps(payload, default=str, ensure_ascii=False)


class RequestIdMiddleware:
    """Give each request an id, echo it in the response, log one line per request.

    Put it first in MIDDLEWARE so that everything after it logs with the id.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.META.get("HTTP_X_REQUEST_ID", "")
        request_id = incoming if _SAFE_ID.match(incoming) else new_request_id()
        request.request_id = request_id  # type: ignore[attr-defined]
        # Left set after this returns: Django logs 4xx/5xx responses after the
        # middleware chain; `request_finished` clears it (see _forget_request_id).
        request_id_var.set(request_id)
        started = time.perf_counter()
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request_id
        # Health probes every few seconds would drown the log; they log at DEBUG.
        level = logging.DEBUG if request.path in ("/healthz", "/readyz") else logging.INFO
        access_logger.log(
            level,
            "%s %s %s",
            request.method,
            request.path,
            response.status_code,
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            },
        )
        return response


def _forget_request_id(**_: Any) -> None:
    request_id_var.set(None)


request_finished.connect(_forget_request_id, dispatch_uid="gd-forget-request-id")


def attach_request_id(headers: dict[str, Any] | None = None, **_: Any) -> None:
    """Celery `before_task_publish` handler: carry the request id into the task."""
    request_id = request_id_var.get()
    if headers is not None and request_id and "request_id" not in headers:
        headers["request_id"] = request_id


def logging_config(level: str = "INFO", json_logs: bool = True) -> dict[str, Any]:
    """The LOGGING dict for settings (and gunicorn): JSON to stderr, context attached."""
    formatter = "json" if json_logs else "plain"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "config.logging.ContextFilter"}},
        "formatters": {
            "json": {"()": "config.logging.JsonFormatter"},
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": formatter,
                "filters": ["context"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.db.backends": {"level": "WARNING"},
            # axes announces itself on every start; its lockouts are WARNING and still show.
            "axes.apps": {"level": "WARNING"},
            # Django's own per-request line duplicates ours (and logs 4xx as warnings).
            "django.server": {"level": "WARNING"},
            "gunicorn.error": {"handlers": ["console"], "level": level, "propagate": False},
            "gunicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }


def _leave_logging_to_django(**_: Any) -> None:
    """Celery `setup_logging` handler: having one stops Celery replacing our config."""


def connect_celery_signals() -> None:
    before_task_publish.connect(attach_request_id, weak=False, dispatch_uid="gd-request-id")
    setup_logging.connect(_leave_logging_to_django, weak=False, dispatch_uid="gd-logging")


connect_celery_signals()
