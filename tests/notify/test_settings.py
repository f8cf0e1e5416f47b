"""Email settings: console in development, SMTP in production, loud on nonsense."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def read(expression: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("EMAIL_", "NOTIFY_"))}
    clean.pop("DEBUG", None)
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-c", f"import config.settings as s; print({expression})"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_development_prints_emails_and_production_sends_them_by_smtp() -> None:
    assert read("s.EMAIL_BACKEND").stdout.strip().endswith("console.EmailBackend")
    production = read(
        "s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_USE_TLS",
        DEBUG="false",
        SECRET_KEY="x" * 50,
        EMAIL_HOST="smtp.example.com",
        EMAIL_PORT="2525",
    )
    assert production.returncode == 0, production.stderr
    assert production.stdout.split() == [
        "django.core.mail.backends.smtp.EmailBackend",
        "smtp.example.com",
        "2525",
        "True",
    ]


def test_tls_and_ssl_together_are_refused() -> None:
    result = read("1", EMAIL_USE_TLS="true", EMAIL_USE_SSL="true")
    assert result.returncode != 0
    assert "EMAIL_USE_TLS or EMAIL_USE_SSL" in result.stderr


def test_an_unknown_default_delivery_is_refused() -> None:
    result = read("1", NOTIFY_DEFAULT_DELIVERY="hourly")
    assert result.returncode != 0
    assert "NOTIFY_DEFAULT_DELIVERY must be immediate, daily or off" in result.stderr


def test_a_digest_hour_past_23_is_refused() -> None:
    result = read("1", NOTIFY_DIGEST_HOUR="24")
    assert result.returncode != 0
    assert "NOTIFY_DIGEST_HOUR must be 0 to 23" in result.stderr
