"""Settings come from the environment and fail loudly on nonsense."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_list, env_time_zone

ROOT = Path(__file__).resolve().parents[2]


def load_settings(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY", "DEBUG"}
    }
    clean.update(env)
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import config.settings as s; print(s.DATABASES['default']['ENGINE'])",
        ],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_debug_off_refuses_the_default_secret_key():
    result = load_settings(DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_debug_off_starts_with_a_real_secret_key():
    result = load_settings(DEBUG="false", SECRET_KEY="x" * 50, ALLOWED_HOSTS="glossary.example")
    assert result.returncode == 0, result.stderr


def test_database_url_names_postgres_or_sqlite():
    assert "postgresql" in load_settings(DATABASE_URL="postgres://u@127.0.0.1:5432/db").stdout
    assert "sqlite3" in load_settings(DATABASE_URL="sqlite:////tmp/glossary.db").stdout


def test_a_database_url_that_is_not_one_fails_loudly():
    result = load_settings(DATABASE_URL="nonsense://what")
    assert result.returncode != 0
    assert "DATABASE_URL" in result.stderr


def test_manage_py_needs_no_settings_module_set_by_hand():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


def test_env_bool_rejects_nonsense(monkeypatch):
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG must be true or false"):
        env_bool("FLAG", False)


def test_env_int_rejects_words_and_values_below_the_minimum(monkeypatch):
    monkeypatch.setenv("COUNT", "ten")
    with pytest.raises(ImproperlyConfigured, match="whole number"):
        env_int("COUNT", 1)
    monkeypatch.setenv("COUNT", "0")
    with pytest.raises(ImproperlyConfigured, match="at least 1"):
        env_int("COUNT", 1, minimum=1)


def test_env_list_splits_on_commas(monkeypatch):
    monkeypatch.setenv("HOSTS", "a.example, b.example,,")
    assert env_list("HOSTS", []) == ["a.example", "b.example"]


def test_the_newsroom_zone_must_be_a_zone_name(monkeypatch):
    monkeypatch.setenv("NEWSROOM_TIME_ZONE", "Eastern")
    with pytest.raises(ImproperlyConfigured, match="NEWSROOM_TIME_ZONE must be a time zone"):
        env_time_zone("NEWSROOM_TIME_ZONE", "America/New_York")
    monkeypatch.setenv("NEWSROOM_TIME_ZONE", "Europe/London")
    assert env_time_zone("NEWSROOM_TIME_ZONE", "America/New_York") == "Europe/London"
    monkeypatch.delenv("NEWSROOM_TIME_ZONE")
    assert env_time_zone("NEWSROOM_TIME_ZONE", "America/New_York") == "America/New_York"


def test_settings_refuse_an_unknown_newsroom_zone_at_start_up():
    result = load_settings(NEWSROOM_TIME_ZONE="America/Gotham")
    assert result.returncode != 0
    assert "NEWSROOM_TIME_ZONE must be a time zone name" in result.stderr
