"""The archive's settings fail loudly on nonsense, and beat sweeps only when it is on."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from celery import current_app

from editorial import archive
from tests.editorial.test_settings import ROOT, load_settings


def schedule(**env: str) -> list[str]:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; "
            "print(' '.join(sorted(settings.CELERY_BEAT_SCHEDULE)))",
        ],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.split()


@pytest.mark.parametrize(("setting", "swept"), [("false", False), ("true", True)])
def test_beat_sweeps_the_archive_queue_only_with_archive_on_confirm(
    setting: str, swept: bool
) -> None:
    names = schedule(ARCHIVE_ON_CONFIRM=setting, DJANGO_SETTINGS_MODULE="config.settings")
    assert ("archive-confirmed-sources" in names) is swept


def test_an_archive_base_url_that_is_not_a_web_address_fails_at_start_up() -> None:
    result = load_settings(ARCHIVE_BASE_URL="web.archive.org")
    assert result.returncode != 0
    assert "ARCHIVE_BASE_URL must be an http:// or https:// address" in result.stderr


def test_an_archive_key_without_its_secret_fails_at_start_up() -> None:
    result = load_settings(ARCHIVE_ACCESS_KEY="key")
    assert result.returncode != 0
    assert "Set both ARCHIVE_ACCESS_KEY and ARCHIVE_SECRET_KEY, or neither" in result.stderr


def test_the_sweep_a_confirmation_asks_for_is_a_registered_task() -> None:
    import editorial.tasks  # noqa: F401 - registers the tasks

    assert archive.SWEEP_TASK in current_app.tasks
