"""The production shape, end to end, on this machine, without Docker.

It runs what docker-compose.yml and the Dockerfile run: the image's
collectstatic step, the release step (check --deploy, migrate) against a
fresh PostgreSQL database, gunicorn with the production settings, a Celery
worker and beat against a Redis of its own, and the link checker's local
test site. Then, over HTTP only, an editor signs in (setting up two-factor login,
which production requires), writes and publishes an
entry citing a good and a missing page, and the scheduled checks find which
is which. Stopping Redis leaves the public site up and /readyz not ready;
starting it again lets the next scheduled check run.

Every process is started in its own process group and stopped by the fixture
that started it, whatever happens.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from django_otp.oath import totp

from tests.linkcheck.server import LocalSite
from tests.production.conftest import free_port
from tests.production.deployfiles import (
    ROOT,
    dockerfile_cmd,
    dockerfile_env,
    dockerfile_runs_after_copying_the_app,
    load_compose,
    read_dotenv,
    service_command,
    service_environment,
)
from tests.production.postgres import scratch_database

pytestmark = pytest.mark.e2e

VENV_BIN = Path(sys.executable).parent
ADMIN_USER = "e2e-editor"
ADMIN_PASSWORD = secrets.token_urlsafe(16)


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll `condition` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = condition()
        except (requests.RequestException, redis.RedisError, OSError) as exc:
            last_error, value = exc, None
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(
        f"timed out after {timeout}s waiting for {what} (last error: {last_error})"
    )


# --- processes -------------------------------------------------------------------------


@dataclass
class Supervisor:
    """Starts processes in their own process groups and stops every one of them.

    Services started with `start_service` get compose's `restart: unless-stopped`:
    if one exits on its own, it is started again. (A Celery worker can exit when
    Redis vanishes while it holds unacknowledged messages, a known kombu race;
    in production the container's restart policy brings it back, and so here.)
    """

    logs: Path
    env: dict[str, str] = field(default_factory=dict)
    running: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    services: dict[str, list[str]] = field(default_factory=dict)
    restarts: Counter[str] = field(default_factory=Counter)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _watcher: threading.Thread | None = None

    def start(
        self,
        name: str,
        command: list[str],
        replace_env: dict[str, str] | None = None,
        **env: str,
    ) -> subprocess.Popen[bytes]:
        with self._lock, open(self.logs / f"{name}.log", "ab") as log:
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=replace_env if replace_env is not None else {**self.env, **env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self.running[name] = process
            return process

    def start_service(self, name: str, command: list[str]) -> None:
        with self._lock:
            self.services[name] = command
            self.start(name, command)
        if self._watcher is None:
            self._watcher = threading.Thread(target=self._watch, name="restart-policy", daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        while not self._stopping.wait(0.2):
            with self._lock:
                for name, command in self.services.items():
                    process = self.running.get(name)
                    if process is None or process.poll() is None:
                        continue
                    _signal_group(process, signal.SIGKILL)  # children it left behind
                    self.restarts[name] += 1
                    with open(self.logs / f"{name}.log", "ab") as log:
                        log.write(f"--- exited {process.returncode}; restarted ---\n".encode())
                    self.start(name, command)

    def run(self, name: str, command: list[str], timeout: float = 120) -> None:
        process = self.start(name, command)
        try:
            code = process.wait(timeout)
        finally:
            self.stop(name)
        assert code == 0, f"{' '.join(command)} exited {code}:\n{self.log(name)}"

    def finish(self, name: str, timeout: float = 120) -> None:
        """Wait for a one-shot process and require success."""
        code = self.running[name].wait(timeout)
        self.stop(name)
        assert code == 0, f"{name} exited {code}:\n{self.log(name)}"

    def stop(self, name: str, timeout: float = 20) -> None:
        with self._lock:
            self.services.pop(name, None)
            process = self.running.pop(name, None)
        if process is None:
            return
        if process.poll() is None:
            _signal_group(process, signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait(10)
        # Children (gunicorn and Celery pool workers) go with their group.
        _signal_group(process, signal.SIGKILL)

    def stop_all(self, timeout: float = 20) -> None:
        """Ask every process to stop at once, then wait; whatever lingers is killed."""
        self._stopping.set()
        if self._watcher is not None:
            self._watcher.join(10)
        with self._lock:
            processes = list(self.running.values())
            self.running.clear()
            self.services.clear()
        for process in processes:
            if process.poll() is None:
                _signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for process in processes:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait(10)
            _signal_group(process, signal.SIGKILL)

    def log(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def tails(self) -> str:
        return "\n".join(
            f"--- {path.name} ---\n{path.read_text(errors='replace')[-4000:]}"
            for path in sorted(self.logs.glob("*.log"))
        )


def _signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


class OwnRedis:
    """A redis-server of this test's own on a free port, so stopping it harms nobody."""

    def __init__(self, supervisor: Supervisor) -> None:
        self.supervisor = supervisor
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.supervisor.start(
            "redis",
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
        )
        wait_for(self.answers, 15, "redis-server to answer PING")

    def stop(self) -> None:
        self.supervisor.stop("redis")
        wait_for(lambda: not self.answers(), 10, "redis-server to stop answering")

    def answers(self) -> bool:
        try:
            return bool(redis.Redis(port=self.port, socket_connect_timeout=0.5).ping())
        except redis.ConnectionError:
            return False


# --- the HTTP client -------------------------------------------------------------------


class Browser:
    """HTTP as the proxy would pass it on: X-Forwarded-Proto https, cookies kept by hand.

    The session and CSRF cookies are Secure; a plain-HTTP client library would not
    send them back over loopback HTTP, so they are kept here and sent explicitly.
    """

    def __init__(self, base: str) -> None:
        self.base = base
        self.origin = "https://" + base.split("://", 1)[1]
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        headers = {"X-Forwarded-Proto": "https", "Origin": self.origin, **kwargs.pop("headers", {})}
        response = requests.request(
            method,
            self.base + path,
            headers=headers,
            cookies=self.cookies,
            allow_redirects=False,
            timeout=15,
            **kwargs,
        )
        self.cookies.update(response.cookies.get_dict())
        return response

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, data: dict[str, str] | list[tuple[str, str]]) -> requests.Response:
        return self.request("POST", path, data=data)


class FormReader(HTMLParser):
    """The fields of the form on a page with this id or class."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id = form_id
        self.inside = False
        self.fields: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and self.form_id in (a.get("id"), *a.get("class", "").split()):
            self.inside = True
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            if a.get("type") in ("submit", "button"):
                return
            self.fields[name] = a.get("value", "on" if a.get("type") == "checkbox" else "")
        elif tag == "select" and name:
            self._select = name
            self.fields.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.fields[self._select] = a.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.fields[name] = ""

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.fields[self._textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "form" and self.inside:
            self.inside = False


def form_fields(page: str, form_id: str) -> dict[str, str]:
    reader = FormReader(form_id)
    reader.feed(page)
    assert reader.fields, f"no form {form_id!r} on the page"
    return {name: html.unescape(value) for name, value in reader.fields.items()}


def image_environment(home: Path) -> dict[str, str]:
    """The Dockerfile's ENV with its paths mapped onto this checkout and .venv."""
    system_path = os.environ.get("PATH", "/usr/bin:/bin")
    env = {"HOME": str(home), "LANG": "C.UTF-8"}
    for key, value in dockerfile_env().items():
        value = value.replace("/venv/bin", str(VENV_BIN)).replace("$PATH", system_path)
        env[key] = str(ROOT) if value == "/app" else value
    assert env["PATH"].startswith(str(VENV_BIN))
    return env


# --- the shape -------------------------------------------------------------------------


@dataclass
class Shape:
    web: Browser
    site: LocalSite
    redis: OwnRedis
    supervisor: Supervisor


@pytest.fixture
def shape(tmp_path: Path) -> Iterator[Shape]:
    compose = load_compose()["services"]
    supervisor = Supervisor(logs=tmp_path)
    site = LocalSite()
    site.start()
    try:
        with scratch_database("gd_prod_e2e") as database_url:
            own_redis = OwnRedis(supervisor)
            web_port = free_port()
            dotenv = read_dotenv()
            dotenv.update(
                SECRET_KEY=secrets.token_urlsafe(50),
                POSTGRES_PASSWORD="unused-here",
                ALLOWED_HOSTS="127.0.0.1",
                SITE_URL=f"https://127.0.0.1:{web_port}",
                CSRF_TRUSTED_ORIGINS=f"https://127.0.0.1:{web_port}",
                TRUSTED_PROXY_COUNT="0",
                WEB_CONCURRENCY="2",
                WORKER_CONCURRENCY="2",
                LINKCHECK_ALLOW_PRIVATE="127.0.0.1",
                # What the operator fills in (check --deploy refuses a blank one). One person
                # plays every role here, so nobody is emailed; nothing listens there.
                EMAIL_HOST="127.0.0.1",
                EMAIL_PORT=str(free_port()),
            )
            image_env = image_environment(tmp_path)
            env = {
                **image_env,
                # What docker-compose.yml gives the app containers.
                **service_environment(compose["web"], dotenv),
                # This machine instead of the compose network.
                "DATABASE_URL": database_url,
                "REDIS_URL": own_redis.url,
                # Compose gives the cache its own Redis; here, another database of ours.
                "CACHE_REDIS_URL": own_redis.url.rsplit("/", 1)[0] + "/1",
                "STATIC_ROOT": str(tmp_path / "static"),
                "CELERY_BEAT_SCHEDULE_FILENAME": str(tmp_path / "celerybeat-schedule"),
                "GUNICORN_BIND": f"127.0.0.1:{web_port}",
                # The local test site is on loopback; this exception is named, not blanket.
                # W005: one person plays writer and editor here (WORKFLOW_ALLOW_SELF_APPROVAL).
                "SILENCED_SYSTEM_CHECKS": "glossary.W002,glossary.W005",
                # Time, squeezed: beat every second; a checked source is due again in
                # about two seconds; a claim lost with Redis expires in three.
                "LINKCHECK_SCHEDULE_SECONDS": "1",
                "LINKCHECK_HEALTHY_MIN_DAYS": "0.00002",
                "LINKCHECK_HEALTHY_MAX_DAYS": "0.00003",
                "LINKCHECK_FAILING_MIN_DAYS": "0.00002",
                "LINKCHECK_FAILING_MAX_DAYS": "0.00003",
                "LINKCHECK_CLAIM_SECONDS": "3",
                "LINKCHECK_HOST_SPACING": "0",
                "LINKCHECK_BACKOFF": "0.05",
                "LINKCHECK_TOTAL_TIMEOUT": "5",
                # One person plays writer and editor here.
                "WORKFLOW_ALLOW_SELF_APPROVAL": "true",
            }
            supervisor.env = env
            own_redis.start()

            # The image build's collectstatic and the release step, side by side.
            (collect,) = dockerfile_runs_after_copying_the_app()
            # At build time there is no .env: the step must need no secret or service.
            supervisor.start(
                "collectstatic",
                ["sh", "-c", collect],
                replace_env={**image_env, "STATIC_ROOT": env["STATIC_ROOT"]},
            )
            supervisor.run("release", service_command(compose["migrate"], dotenv))
            # As compose does once the release step has finished: the long-running
            # services start; an operator creates the first login meanwhile.
            web_command = service_command(compose["web"], dotenv)
            assert web_command == dockerfile_cmd()
            supervisor.start_service("web", web_command)
            supervisor.start_service("worker", service_command(compose["worker"], dotenv))
            supervisor.start_service("beat", service_command(compose["beat"], dotenv))
            supervisor.start(
                "createsuperuser",
                ["python", "manage.py", "createsuperuser", "--noinput"]
                + ["--username", ADMIN_USER, "--email", "editor@example.com"],
                DJANGO_SUPERUSER_PASSWORD=ADMIN_PASSWORD,
            )
            supervisor.finish("collectstatic")
            supervisor.finish("createsuperuser")
            browser = Browser(f"http://127.0.0.1:{web_port}")
            wait_for(lambda: browser.get("/healthz").status_code == 200, 30, "gunicorn")
            try:
                yield Shape(web=browser, site=site, redis=own_redis, supervisor=supervisor)
            finally:
                supervisor.stop_all()
    finally:
        supervisor.stop_all()
        site.stop()


def sign_in(web: Browser) -> None:
    page = web.get("/admin/login/")
    assert page.status_code == 200
    fields = form_fields(page.text, "login-form")
    fields.update(username=ADMIN_USER, password=ADMIN_PASSWORD)
    response = web.post("/admin/login/?next=/admin/", fields)
    assert response.status_code == 302 and response.headers["Location"] == "/admin/", response.text
    # Production requires two-factor login of an admin (DESK_REQUIRE_2FA): the desk sends
    # them to set up an app first, and the code is computed from the secret the page shows.
    setup = web.get("/admin/")
    assert setup.status_code == 302, setup.text[:2000]
    assert setup.headers["Location"].startswith("/admin/2fa/setup/"), setup.headers["Location"]
    page = web.get(setup.headers["Location"])
    secret = re.search(r'<code id="twofactor-secret">([A-Z2-7 ]+)</code>', page.text)
    assert secret, page.text[:2000]
    fields = form_fields(page.text, "twofactor-form")
    fields["code"] = f"{totp(base64.b32decode(secret.group(1).replace(' ', ''))):06d}"
    enrolled = web.post("/admin/2fa/setup/", fields)
    assert enrolled.status_code == 200 and "recovery-codes" in enrolled.text, enrolled.text[:2000]
    assert web.get("/admin/").status_code == 200


def create_entry(web: Browser, term: str, slug: str, citations: list[tuple[str, str]]) -> int:
    """Fill in the admin's add form (inline citations included) as an editor would."""
    page = web.get("/admin/glossary/entry/add/")
    assert page.status_code == 200
    fields = form_fields(page.text, "entry_form")
    (prefix,) = [
        name.removesuffix("-TOTAL_FORMS")
        for name in fields
        if name.endswith("-TOTAL_FORMS")
        and f"{name.removesuffix('-TOTAL_FORMS')}-__prefix__-new_url" in fields
    ]
    template = {
        name.split("-__prefix__-", 1)[1]: value
        for name, value in fields.items()
        if name.startswith(f"{prefix}-__prefix__-")
    }
    data = {name: value for name, value in fields.items() if "__prefix__" not in name}
    data.update(
        term=term,
        slug=slug,
        summary=f"{term}: what the show means by it.",
        body=f"{term} is explained here, with two sources.",
        _continue="Save and continue editing",
    )
    today = time.strftime("%Y-%m-%d", time.gmtime())
    for n, (url, title) in enumerate(citations):
        row = {**template, "order": str(n + 1), "new_url": url, "new_title": title}
        row["checked_on"] = today
        data.update({f"{prefix}-{n}-{key}": value for key, value in row.items()})
    data[f"{prefix}-TOTAL_FORMS"] = str(len(citations))
    response = web.post("/admin/glossary/entry/add/", data)
    assert response.status_code == 302, _errors(response.text)
    match = re.search(r"/admin/glossary/entry/(\d+)/change/", response.headers["Location"])
    assert match, response.headers["Location"]
    return int(match.group(1))


def _errors(page: str) -> str:
    found = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)
    return "\n".join(re.sub(r"<[^>]+>", " ", error) for error in found) or page[:2000]


def publish(web: Browser, entry_id: int) -> None:
    """Submit for review, then publish from the entry's publish page (overriding with a
    reason if a blocking check fails, as a superuser may)."""
    change = f"/admin/glossary/entry/{entry_id}/"
    submitted = web.post(change + "submit/", {"csrfmiddlewaretoken": web.cookies["csrftoken"]})
    assert submitted.status_code == 302, submitted.text[:2000]
    page = web.get(change + "publish/")
    assert page.status_code == 200, page.text[:2000]
    fields = form_fields(page.text, "publish-form")
    fields["publish"] = "Publish"
    fields.setdefault("material", "on")
    published = web.post(change + "publish/", fields)
    if published.status_code == 400:
        fields["override_reason"] = "End-to-end test: the links are checked right after."
        published = web.post(change + "publish/", fields)
    assert published.status_code == 302, _errors(published.text)


def sources_with_health(web: Browser, health: str) -> str:
    response = web.get(f"/admin/glossary/source/?health__exact={health}")
    assert response.status_code == 200
    return response.text


def link_checks_recorded(web: Browser) -> int:
    response = web.get("/admin/glossary/linkcheck/")
    assert response.status_code == 200
    match = re.search(r"(\d+) link checks?", response.text)
    return int(match.group(1)) if match else 0


def requests_since(site: LocalSite, since: float) -> list[str]:
    return [
        path for (_m, path), t in zip(site.requests, site.request_times, strict=False) if t > since
    ]


def json_lines(log: str) -> list[dict[str, Any]]:
    """The JSON objects in a process's output (Celery's start-up banner is plain text)."""
    return [json.loads(line) for line in log.splitlines() if line.startswith("{")]


def readiness(web: Browser) -> tuple[int, dict[str, Any]]:
    response = web.get("/readyz")
    return response.status_code, response.json()


def test_the_production_shape_publishes_checks_links_and_rides_out_a_redis_restart(
    shape: Shape,
) -> None:
    web, site = shape.web, shape.site
    good, missing = site.url("/ok"), site.url("/status/404")
    try:
        sign_in(web)
        entry_id = create_entry(
            web,
            "Scale-out fabric",
            "scale-out-fabric",
            [(good, "The vendor's fabric overview"), (missing, "A page that has gone")],
        )
        publish(web, entry_id)

        # The public page is served by gunicorn with the production settings.
        public = web.get("/glossary/scale-out-fabric/")
        assert public.status_code == 200
        text = html.unescape(public.text)
        assert "Scale-out fabric" in text
        assert "The vendor's fabric overview" in text and "A page that has gone" in text
        assert "script-src 'self'" in public.headers["Content-Security-Policy"]
        assert public.headers["Strict-Transport-Security"].startswith("max-age=31536000")

        # Beat schedules the checks, the worker runs them against the local site.
        wait_for(
            lambda: (
                good in sources_with_health(web, "ok")
                and missing in sources_with_health(web, "failing")
            ),
            30,
            "the admin to show one source ok and one failing",
        )
        assert missing not in sources_with_health(web, "ok")
        assert good not in sources_with_health(web, "failing")
        status, ready = readiness(web)
        assert (status, ready["status"]) == (200, "ready")
        # Web and worker log JSON lines: the web's carry the request id it sent back,
        # the worker's the task id and name.
        web_lines = json_lines(shape.supervisor.log("web"))
        assert {
            (line["path"], line["status"])
            for line in web_lines
            if line.get("request_id") == public.headers["X-Request-ID"]
        } == {("/glossary/scale-out-fabric/", 200)}
        worker_lines = json_lines(shape.supervisor.log("worker"))
        assert any(
            line.get("task_name") == "editorial.tasks.check_sources" and line.get("task_id")
            for line in worker_lines
        )

        # Redis goes away: readers still get pages, /readyz says what is wrong.
        shape.redis.stop()
        during = web.get("/glossary/scale-out-fabric/")
        assert during.status_code == 200
        assert "Scale-out fabric" in html.unescape(during.text)
        assert web.get("/").status_code == 200
        status, ready = readiness(web)
        assert status == 503
        assert ready["status"] == "not ready"
        assert ready["checks"]["broker"]["ok"] is False
        assert ready["checks"]["cache"]["ok"] is False
        assert ready["checks"]["database"]["ok"] is True
        assert ready["checks"]["migrations"]["ok"] is True
        assert str(shape.redis.port) not in json.dumps(ready)

        # Redis comes back on the same address: the next scheduled check runs.
        checks_before = link_checks_recorded(web)
        shape.redis.start()
        restarted_at = time.monotonic()
        wait_for(lambda: readiness(web)[0] == 200, 20, "/readyz to be ready again")
        wait_for(
            lambda: {"/ok", "/status/404"} <= set(requests_since(site, restarted_at)),
            40,
            "beat and the worker to check both links again after Redis returned",
        )
        wait_for(
            lambda: link_checks_recorded(web) >= checks_before + 2,
            20,
            "the new checks to be recorded",
        )
        assert good in sources_with_health(web, "ok")
        assert missing in sources_with_health(web, "failing")
    except BaseException:
        print(shape.supervisor.tails())
        print("site requests:", list(zip(site.requests, site.request_times, strict=False))[-12:])
        print("now:", time.monotonic(), "restarts:", dict(shape.supervisor.restarts))
        raise
    # Say so when the restart policy had to act (it is allowed to; see Supervisor).
    print("services restarted by the restart policy:", dict(shape.supervisor.restarts))


def test_the_supervisor_restarts_a_service_that_exits_like_compose_would(tmp_path: Path) -> None:
    supervisor = Supervisor(logs=tmp_path, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    try:
        supervisor.start_service("flaky", ["sh", "-c", "echo up; sleep 0.3; exit 3"])
        # Two restarts counted is not yet the third run's output: wait for what is asserted.
        wait_for(lambda: supervisor.log("flaky").count("up") >= 3, 10, "three runs")
        assert supervisor.restarts["flaky"] >= 2
        supervisor.start("one-shot", ["sh", "-c", "exit 3"])
        assert supervisor.running["one-shot"].wait(5) == 3
        assert supervisor.restarts["one-shot"] == 0  # one-shot commands are not services
    finally:
        supervisor.stop_all()
    assert supervisor.running == {}
    assert supervisor.log("flaky").count("up") >= 3
    assert "exited 3; restarted" in supervisor.log("flaky")
