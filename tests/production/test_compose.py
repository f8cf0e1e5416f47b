"""docker-compose.yml, the Dockerfile and .env.example describe a complete, safe deployment.

No Docker engine runs here: these tests read the files as Docker would and
check that every command names real code; the end-to-end test runs them.
"""

from __future__ import annotations

import gc
import importlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from config.health import HEALTH_PATH
from tests.production.deployfiles import (
    ROOT,
    dockerfile_cmd,
    dockerfile_instructions,
    dockerfile_runs_after_copying_the_app,
    load_compose,
    read_dotenv,
    service_command,
    service_environment,
)

APP_SERVICES = ["migrate", "web", "worker", "beat"]


@pytest.fixture(scope="module")
def compose() -> dict:
    return load_compose()


@pytest.fixture(scope="module")
def services(compose: dict) -> dict:
    return compose["services"]


@pytest.fixture(scope="module")
def dotenv() -> dict[str, str]:
    values = read_dotenv()
    values.update(SECRET_KEY="k" * 60, POSTGRES_PASSWORD="pw")
    return values


def test_it_defines_the_database_broker_cache_release_web_worker_and_beat(services: dict) -> None:
    assert sorted(services) == sorted(["db", "redis", "cache", *APP_SERVICES])


def test_the_page_cache_has_its_own_bounded_redis_so_it_cannot_starve_the_broker(
    services: dict, dotenv: dict[str, str]
) -> None:
    cache = service_command(services["cache"], dotenv)
    assert cache[cache.index("--maxmemory") + 1] == "256mb"
    assert cache[cache.index("--maxmemory-policy") + 1] == "allkeys-lru"
    broker = service_command(services["redis"], dotenv)
    assert broker[broker.index("--maxmemory-policy") + 1] == "noeviction"
    for name in APP_SERVICES:
        env = service_environment(services[name], dotenv)
        assert env["CACHE_REDIS_URL"] == "redis://cache:6379/0", name
        assert env["REDIS_URL"] == "redis://redis:6379/0", name


def test_the_app_is_defined_once_and_reused_by_every_app_service(services: dict) -> None:
    images = {services[name]["image"] for name in APP_SERVICES}
    builds = {services[name]["build"] for name in APP_SERVICES}
    assert images == {"glossary-desk:latest"}
    assert builds == {"."}
    assert all(services[name]["env_file"] == ".env" for name in APP_SERVICES)


def test_the_web_command_is_the_images_default_and_names_real_code(
    services: dict, dotenv: dict[str, str]
) -> None:
    command = service_command(services["web"], dotenv)
    assert command == dockerfile_cmd()
    assert command[0] == "gunicorn"
    config = command[command.index("--config") + 1]
    assert (ROOT / config).is_file()
    module, _, attribute = command[-1].partition(":")
    assert callable(getattr(importlib.import_module(module), attribute))


def test_the_gunicorn_config_loads_and_logs_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GUNICORN_BIND", "127.0.0.1:8123")
    namespace: dict = {}
    path = ROOT / "docker" / "gunicorn.conf.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
    assert namespace["bind"] == "127.0.0.1:8123"
    assert namespace["workers"] >= 1
    formatter = namespace["logconfig_dict"]["handlers"]["console"]["formatter"]
    assert formatter == "json"


def test_each_gunicorn_worker_leaves_what_it_loaded_out_of_full_collections() -> None:
    from gunicorn.config import Config  # type: ignore[import-untyped]

    namespace: dict = {}
    path = ROOT / "docker" / "gunicorn.conf.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
    hook = namespace["post_worker_init"]
    Config().set("post_worker_init", hook)  # gunicorn accepts it as that hook
    assert gc.get_freeze_count() == 0
    try:
        hook(object())
        # Everything this process had loaded (Django, the app, pytest) is frozen.
        assert gc.get_freeze_count() > 10_000
        assert gc.isenabled()
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("name", ["worker", "beat"])
def test_worker_and_beat_run_the_projects_celery_app(
    services: dict, dotenv: dict[str, str], name: str
) -> None:
    command = service_command(services[name], dotenv)
    assert command[:3] == ["celery", "-A", "config"]
    assert command[3] == name
    from config.celery import app

    assert app.main == "glossary_desk"
    app.loader.import_default_modules()
    assert "editorial.tasks.check_due_sources" in app.tasks


def test_the_link_check_schedule_is_one_beat_sends(services: dict) -> None:
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "editorial.tasks.check_due_sources" in tasks


def test_the_release_step_checks_the_deployment_migrates_once_and_renders_live_pages(
    services: dict, dotenv: dict[str, str]
) -> None:
    command = service_command(services["migrate"], dotenv)
    assert command == ["sh", "docker/release.sh"]
    script = (ROOT / "docker" / "release.sh").read_text()
    steps = [line for line in script.splitlines() if line.startswith("python manage.py")]
    assert steps == [
        "python manage.py check --deploy --fail-level WARNING",
        "python manage.py migrate --noinput",
        "python manage.py rerender",
    ]
    assert services["migrate"]["restart"] == "no"
    for name in ["web", "worker", "beat"]:
        assert "migrate" not in " ".join(service_command(services[name], dotenv))


def test_app_services_wait_for_healthy_services_and_a_finished_release(services: dict) -> None:
    for name in ["web", "worker", "beat"]:
        assert services[name]["depends_on"] == {
            "db": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
            "cache": {"condition": "service_healthy"},
            "migrate": {"condition": "service_completed_successfully"},
        }, name
    assert services["migrate"]["depends_on"] == {
        "db": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }


def test_every_long_running_service_restarts_and_has_a_healthcheck(services: dict) -> None:
    for name in ["db", "redis", "cache", "web", "worker", "beat"]:
        assert services[name]["restart"] == "unless-stopped", name
        check = services[name]["healthcheck"]
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
        assert check["interval"] and check["retries"] >= 1, name


def test_the_web_healthcheck_calls_the_apps_liveness_endpoint(services: dict) -> None:
    test = services["web"]["healthcheck"]["test"]
    assert test[1:3] == ["python", "docker/healthcheck.py"]
    assert test[3].endswith(HEALTH_PATH)


def test_the_beat_healthcheck_watches_the_schedule_file_beat_writes(
    services: dict, dotenv: dict[str, str]
) -> None:
    test = services["beat"]["healthcheck"]["test"]
    schedule = test[test.index("--beat-schedule") + 1]
    assert service_environment(services["beat"], dotenv)["CELERY_BEAT_SCHEDULE_FILENAME"] == (
        schedule
    )
    mounts = [volume.split(":")[1] for volume in services["beat"]["volumes"]]
    assert str(Path(schedule).parent) in mounts


def test_the_worker_healthcheck_pings_this_worker_through_the_broker(services: dict) -> None:
    test = services["worker"]["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL"
    assert "celery -A config inspect ping" in test[1]
    assert "celery@$$HOSTNAME" in test[1]


def test_data_lives_in_named_volumes(compose: dict, services: dict) -> None:
    declared = set(compose["volumes"])
    assert "pgdata:/var/lib/postgresql/data" in services["db"]["volumes"]
    assert "redisdata:/data" in services["redis"]["volumes"]
    used = {
        volume.split(":")[0]
        for service in services.values()
        for volume in service.get("volumes", [])
    }
    assert used == declared


def test_there_is_exactly_one_beat(services: dict, dotenv: dict[str, str]) -> None:
    assert services["beat"]["deploy"]["replicas"] == 1
    for name in ["web", "worker", "migrate"]:
        command = service_command(services[name], dotenv)
        assert "beat" not in command and "-B" not in command and "--beat" not in command, name


def test_workers_can_be_scaled(services: dict) -> None:
    worker = services["worker"]
    # A fixed container name or host port would make --scale worker=N fail.
    assert "container_name" not in worker
    assert "ports" not in worker
    assert "deploy" not in worker or worker["deploy"].get("replicas", 1) >= 1


def test_the_database_url_is_built_from_the_env_file(
    services: dict, dotenv: dict[str, str]
) -> None:
    env = service_environment(services["web"], dotenv)
    assert env["DATABASE_URL"] == "postgres://glossary:pw@db:5432/glossary"
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert env["DEBUG"] == "false"


def test_no_secret_is_in_the_repository(services: dict) -> None:
    example = read_dotenv()
    for name in ["SECRET_KEY", "POSTGRES_PASSWORD"]:
        assert example[name] == "", f"{name} must be blank in .env.example"
    raw = (ROOT / "docker-compose.yml").read_text()
    assert "${POSTGRES_PASSWORD:?" in raw
    assert not re.search(r"(?i)(password|secret)[^:\n]*:\s*[\"']?[A-Za-z0-9]{6,}", raw)
    assert ".env" in (ROOT / ".gitignore").read_text().splitlines()
    dockerignore = (ROOT / ".dockerignore").read_text().splitlines()
    assert ".env" in dockerignore and ".git" in dockerignore
    tracked = subprocess.run(
        ["git", "ls-files", ".env"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert tracked.stdout == ""


def test_a_missing_database_password_stops_compose_from_starting(services: dict) -> None:
    from tests.production.deployfiles import interpolate

    with pytest.raises(ValueError, match="POSTGRES_PASSWORD"):
        interpolate(services["db"]["environment"]["POSTGRES_PASSWORD"], {"POSTGRES_PASSWORD": ""})


def test_the_image_installs_from_pyproject_and_runs_as_a_non_root_user() -> None:
    instructions = dockerfile_instructions()
    users = [rest for keyword, rest in instructions if keyword == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert any(keyword == "COPY" and "pyproject.toml" in rest for keyword, rest in instructions)
    assert any(keyword == "RUN" and "pyproject.toml" in rest for keyword, rest in instructions)
    env = " ".join(rest for keyword, rest in instructions if keyword == "ENV")
    assert "DJANGO_SETTINGS_MODULE=config.settings" in env
    assert importlib.import_module("config.settings")
    # Static files are collected at build time with hashed, compressed names.
    assert dockerfile_runs_after_copying_the_app() == [
        "STATIC_MANIFEST=true python manage.py collectstatic --noinput"
    ]


def test_the_image_copies_everything_the_app_reads_at_run_time() -> None:
    copied = {
        rest.split()[0]
        for keyword, rest in dockerfile_instructions()
        if keyword == "COPY" and not rest.startswith("--from")
    }
    for needed in ["manage.py", "config", "editorial", "glossary", "templates", "docker"]:
        assert needed in copied, needed
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    for needed in ["config", "editorial", "glossary", "templates", "docker", "manage.py"]:
        assert needed not in ignored


def test_the_beat_healthcheck_passes_on_a_fresh_schedule_and_fails_on_a_stale_one(
    tmp_path: Path,
) -> None:
    schedule = tmp_path / "celerybeat-schedule"
    script = [sys.executable, str(ROOT / "docker" / "healthcheck.py"), "--beat-schedule"]
    missing = subprocess.run([*script, str(schedule)], capture_output=True, text=True)
    assert missing.returncode == 1 and "no schedule file" in missing.stderr
    schedule.with_suffix(".dat").write_bytes(b"x")
    fresh = subprocess.run([*script, str(schedule)], capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr
    old = time.time() - 3600
    os.utime(schedule.with_suffix(".dat"), (old, old))
    stale = subprocess.run(
        [*script, str(schedule), "--max-age", "600"], capture_output=True, text=True
    )
    assert stale.returncode == 1 and "last written" in stale.stderr
