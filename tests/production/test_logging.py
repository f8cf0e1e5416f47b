"""Logs are JSON lines that carry the request id or the Celery task id, and no secrets."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from celery import shared_task
from django.contrib.auth.models import User

from config.logging import (
    ContextFilter,
    JsonFormatter,
    attach_request_id,
    logging_config,
    request_id_var,
)

task_logger = logging.getLogger("tests.production.task")


@shared_task(name="tests.production.log_something")
def log_something(word: str) -> str:
    task_logger.info("task says %s", word)
    return word


def capture() -> tuple[logging.Handler, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ContextFilter())
    return handler, stream


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    handler, stream = capture()
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


def lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_each_request_logs_one_json_line_with_its_request_id(client, db, captured):
    response = client.get("/glossary/no-such-entry/")
    request_id = response["X-Request-ID"]
    assert len(request_id) == 32
    access = [line for line in lines(captured) if line["logger"] == "glossary_desk.request"]
    assert len(access) == 1
    line = access[0]
    assert line["request_id"] == request_id
    assert (line["method"], line["path"], line["status"]) == (
        "GET",
        "/glossary/no-such-entry/",
        404,
    )
    assert line["level"] == "INFO"
    assert line["time"].endswith("+00:00")
    assert isinstance(line["duration_ms"], float)


def test_everything_logged_during_a_request_carries_its_id(client, db, captured):
    client.get("/glossary/no-such-entry/", HTTP_X_REQUEST_ID="proxy-id-12345")
    ids = {line.get("request_id") for line in lines(captured)}
    assert ids == {"proxy-id-12345"}


def test_a_request_id_that_could_forge_log_lines_is_replaced(client, db):
    response = client.get("/healthz", HTTP_X_REQUEST_ID='x"\n{"level": "ERROR"}')
    assert response["X-Request-ID"] != 'x"\n{"level": "ERROR"}'
    assert len(response["X-Request-ID"]) == 32


def test_two_requests_get_different_ids(client, db):
    first = client.get("/healthz")["X-Request-ID"]
    second = client.get("/healthz")["X-Request-ID"]
    assert first != second


def test_health_probes_log_at_debug_so_they_do_not_drown_the_log(client, db, captured):
    client.get("/healthz")
    access = [line for line in lines(captured) if line["logger"] == "glossary_desk.request"]
    assert [line["level"] for line in access] == ["DEBUG"]


def test_a_task_logs_with_its_task_id_and_name(captured):
    result = log_something.apply(args=("hello",))
    said = [line for line in lines(captured) if line["message"] == "task says hello"]
    assert len(said) == 1
    assert said[0]["task_id"] == result.id
    assert said[0]["task_name"] == "tests.production.log_something"
    assert "request_id" not in said[0]


def test_a_task_queued_during_a_request_logs_that_requests_id(captured):
    headers: dict = {}
    token = request_id_var.set("web-request-1234")
    try:
        attach_request_id(headers=headers)
    finally:
        request_id_var.reset(token)
    assert headers == {"request_id": "web-request-1234"}
    log_something.apply(args=("queued",), headers=headers)
    said = [line for line in lines(captured) if line["message"] == "task says queued"]
    assert said[0]["request_id"] == "web-request-1234"


def test_outside_a_request_no_request_id_is_published_with_a_task():
    headers: dict = {}
    attach_request_id(headers=headers)
    assert headers == {}


def test_exceptions_are_logged_as_one_json_object(captured):
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("tests.production").exception("it failed")
    (line,) = [line for line in lines(captured) if line["message"] == "it failed"]
    assert line["level"] == "ERROR"
    assert "ValueError: boom" in line["exception"]


def test_a_failed_admin_login_logs_no_password(client, db, captured):
    User.objects.create_user("editor", password="correct-horse-battery")
    client.post(
        "/admin/login/?next=/admin/",
        {"username": "editor", "password": "guessed-Secret-123"},
        REMOTE_ADDR="203.0.113.9",
    )
    text = "\n".join(json.dumps(line) for line in lines(captured))
    assert "guessed-Secret-123" not in text
    assert "correct-horse-battery" not in text
    assert any("editor" in line["message"] for line in lines(captured))


def test_the_logging_config_writes_json_or_plain_lines():
    assert logging_config("INFO", json_logs=True)["handlers"]["console"]["formatter"] == "json"
    assert logging_config("INFO", json_logs=False)["handlers"]["console"]["formatter"] == "plain"


def test_the_request_id_does_not_leak_into_what_is_logged_after_the_request(client, db, captured):
    client.get("/glossary/no-such-entry/", HTTP_X_REQUEST_ID="proxy-id-67890")
    logging.getLogger("tests.production").warning("between requests")
    (line,) = [line for line in lines(captured) if line["message"] == "between requests"]
    assert "request_id" not in line
