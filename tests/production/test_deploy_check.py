"""`manage.py check --deploy` is clean with the production environment from .env.example.

Each case runs in a subprocess: production settings are chosen at import time.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.production.deployfiles import ROOT, load_compose, read_dotenv, service_environment


def production_env(**overrides: str) -> dict[str, str]:
    """The web container's environment, with the blanks an operator fills in filled."""
    dotenv = read_dotenv()
    dotenv.update(
        SECRET_KEY=secrets.token_urlsafe(50),
        POSTGRES_PASSWORD="pw-" + "x" * 20,
        EMAIL_HOST="smtp.glossary.example.com",
    )
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_", "REDIS_", "CELERY_", "LINKCHECK_"))
        and key not in {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "SITE_URL", "TEST_REDIS_URL"}
    }
    env.update(service_environment(load_compose()["services"]["web"], dotenv))
    env.update(overrides)
    return env


CHECK = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]


def _bare() -> dict[str, str]:
    env = production_env(REDIS_URL="", DATABASE_URL="sqlite:////tmp/glossary.sqlite3")
    del env["ALLOWED_HOSTS"]
    return env


# Every scenario starts Django in its own process; they run side by side to keep
# the suite fast.
SCENARIOS: dict[str, Callable[[], dict[str, str]]] = {
    "production": production_env,
    "blank secret key": lambda: production_env(SECRET_KEY=""),
    # No Redis, SQLite and the development hosts: the services production needs.
    "bare": _bare,
    # Weakened security settings.
    "weakened": lambda: production_env(
        SECRET_KEY="x" * 60,
        SECURE_SSL_REDIRECT="false",
        SECURE_HSTS_SECONDS="0",
        LINKCHECK_ALLOW_PRIVATE="127.0.0.1",
    ),
    # Settings that loosen the site's defences without breaking anything visible.
    "loosened": lambda: production_env(
        ALLOWED_HOSTS="*",
        CONTENT_SECURITY_POLICY_REPORT_ONLY="true",
        WORKFLOW_ALLOW_SELF_APPROVAL="true",
        CACHE_REDIS_URL="",  # the page cache falls back to the broker's Redis
        DESK_REQUIRE_2FA="false",
    ),
    # The mail server left blank in .env: with notifications on, nobody would hear.
    "no mail server": lambda: production_env(EMAIL_HOST=""),
    "no mail server, no email": lambda: production_env(
        EMAIL_HOST="", NOTIFY_DEFAULT_DELIVERY="off"
    ),
    "silenced": lambda: production_env(
        LINKCHECK_ALLOW_PRIVATE="127.0.0.1", SILENCED_SYSTEM_CHECKS="glossary.W002"
    ),
}


@pytest.fixture(scope="module")
def checks() -> dict[str, subprocess.CompletedProcess[str]]:
    running = {
        name: subprocess.Popen(
            CHECK,
            cwd=ROOT,
            env=make_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, make_env in SCENARIOS.items()
    }
    results = {}
    for name, process in running.items():
        stdout, stderr = process.communicate(timeout=180)
        results[name] = subprocess.CompletedProcess(CHECK, process.returncode, stdout, stderr)
    return results


def settings_value(env: dict[str, str], expression: str) -> str:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import django; django.setup(); from django.conf import settings; print({expression})",
        ],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_check_deploy_is_clean_with_the_production_environment(checks: dict) -> None:
    result = checks["production"]
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_production_is_https_only_caches_in_redis_and_hashes_static_files() -> None:
    values = settings_value(
        production_env(),
        "settings.SECURE_SSL_REDIRECT, settings.SESSION_COOKIE_SECURE, "
        "settings.CSRF_COOKIE_SECURE, settings.SECURE_HSTS_SECONDS, "
        "settings.SECURE_PROXY_SSL_HEADER, settings.CSRF_TRUSTED_ORIGINS, "
        "settings.CACHES['default']['BACKEND'], settings.CACHES['default']['LOCATION'], "
        "settings.STORAGES['staticfiles']['BACKEND'], settings.CELERY_TASK_ALWAYS_EAGER",
    )
    assert values.split(" ") == [
        "True",
        "True",
        "True",
        "31536000",
        "('HTTP_X_FORWARDED_PROTO',",
        "'https')",
        "['https://glossary.example.com']",
        "config.cache.ResilientRedisCache",
        "redis://cache:6379/0",
        "whitenoise.storage.CompressedManifestStaticFilesStorage",
        "False",
    ]


def test_production_requires_two_factor_login_and_development_does_not() -> None:
    assert settings_value(production_env(), "settings.DESK_REQUIRE_2FA") == "True"
    development = {**production_env(), "DEBUG": "true"}
    assert settings_value(development, "settings.DESK_REQUIRE_2FA") == "False"


def test_a_blank_secret_key_stops_the_deployment(checks: dict) -> None:
    result = checks["blank secret key"]
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@pytest.mark.parametrize(
    ("scenario", "problem"),
    [
        ("weakened", "security.W009"),
        ("weakened", "security.W008"),
        ("weakened", "security.W004"),
        ("weakened", "glossary.W002"),
        ("bare", "glossary.E001"),
        ("bare", "glossary.E002"),
        ("bare", "glossary.E004"),
    ],
)
def test_an_unsafe_production_setting_fails_the_deploy_check(
    checks: dict, scenario: str, problem: str
) -> None:
    result = checks[scenario]
    assert result.returncode != 0
    assert problem in result.stderr


@pytest.mark.parametrize(
    ("problem", "hint"),
    [
        ("glossary.W003", "List the public host name(s) in ALLOWED_HOSTS"),
        ("glossary.W004", "Unset CONTENT_SECURITY_POLICY_REPORT_ONLY"),
        ("glossary.W005", "Unset WORKFLOW_ALLOW_SELF_APPROVAL"),
        ("glossary.W006", "Point CACHE_REDIS_URL at a Redis of its own"),
        ("glossary.W007", "Unset DESK_REQUIRE_2FA"),
    ],
)
def test_a_loosened_defence_is_a_warning_with_a_hint(checks: dict, problem: str, hint: str) -> None:
    result = checks["loosened"]
    assert result.returncode != 0
    # Warnings (the site works, less safely), not errors, each with its own hint.
    assert "WARNINGS:" in result.stderr
    assert "ERRORS:" not in result.stderr
    assert f"({problem})" in result.stderr, result.stderr
    message = result.stderr.split(f"({problem})", 1)[1].split("?:", 1)[0]
    assert f"HINT: {hint}" in message


def test_a_named_exception_can_be_silenced_deliberately(checks: dict) -> None:
    result = checks["silenced"]
    assert result.returncode == 0, result.stderr
    assert "(1 silenced)" in result.stdout


def test_notifications_with_no_mail_server_stop_the_deployment(checks: dict) -> None:
    result = checks["no mail server"]
    assert result.returncode != 0
    assert "ERRORS:" in result.stderr
    message = result.stderr.split("(glossary.E006)", 1)[1]
    assert message.startswith(
        " Email notifications are on (NOTIFY_DEFAULT_DELIVERY=immediate) but EMAIL_HOST is unset"
    )
    assert "HINT: Set EMAIL_HOST" in message


def test_a_desk_that_sends_no_email_needs_no_mail_server(checks: dict) -> None:
    result = checks["no mail server, no email"]
    assert result.returncode == 0, result.stderr
    assert "glossary.E006" not in result.stderr
