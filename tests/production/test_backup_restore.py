"""The backup and restore in docs/operations.md work: pg_dump a glossary with
content, pg_restore it into a fresh database, and the app serves the entries from it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import psycopg

from tests.production.deployfiles import ROOT
from tests.production.postgres import scratch_database

OPERATIONS = ROOT / "docs" / "operations.md"


def run_django(database_url: str, code: str) -> str:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "REDIS_URL": "",
        "CELERY_BROKER_URL": "memory://",
        "LOG_LEVEL": "WARNING",
    }
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup()\n{code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def documented(command: str) -> str:
    """The documented command line for `command` (pg_dump / pg_restore)."""
    lines = [
        line.strip()
        for line in OPERATIONS.read_text().splitlines()
        if re.match(rf"\s*(docker compose exec -T db )?{command} ", line)
    ]
    assert lines, f"docs/operations.md shows no {command} command"
    return lines[0]


def test_the_documented_dump_and_restore_keep_every_entry(tmp_path: Path) -> None:
    # The flags the runbook uses, applied here to URLs instead of the compose service.
    dump_flags = documented("pg_dump")
    restore_flags = documented("pg_restore")
    for flag in ["--format=custom", "--no-owner"]:
        assert flag in dump_flags
    for flag in ["--no-owner", "--exit-on-error"]:
        assert flag in restore_flags

    dump = tmp_path / "glossary.dump"
    with scratch_database("gd_prod_backup_src") as source:
        run_django(
            source,
            "from django.core.management import call_command\n"
            "call_command('migrate', verbosity=0)\n"
            "call_command('load_demo', verbosity=0)",
        )
        with psycopg.connect(source) as conn:
            before = conn.execute(
                "SELECT term, live_version_id IS NOT NULL FROM glossary_entry ORDER BY term"
            ).fetchall()
        assert ("Interconnect", True) in before
        subprocess.run(
            [
                "pg_dump",
                "--format=custom",
                "--no-owner",
                "--no-privileges",
                "--file",
                str(dump),
                "--dbname",
                source,
            ],
            check=True,
            timeout=120,
        )
    assert dump.stat().st_size > 0

    with scratch_database("gd_prod_backup_restored") as restored:
        subprocess.run(
            [
                "pg_restore",
                "--no-owner",
                "--no-privileges",
                "--exit-on-error",
                "--dbname",
                restored,
                str(dump),
            ],
            check=True,
            timeout=120,
        )
        with psycopg.connect(restored) as conn:
            after = conn.execute(
                "SELECT term, live_version_id IS NOT NULL FROM glossary_entry ORDER BY term"
            ).fetchall()
        assert after == before
        # The app runs on the restored copy as it was: nothing to migrate, pages serve.
        page = run_django(
            restored,
            "from django.core.management import call_command\n"
            "call_command('migrate', check=True, plan=False, verbosity=0)\n"
            "from django.test import Client\n"
            "from glossary.models import Entry\n"
            "entry = Entry.objects.published().get(term='Interconnect')\n"
            "response = Client().get(entry.get_absolute_url())\n"
            "print(response.status_code)\n"
            "print(response.content.decode())",
        )
        status, _, html = page.partition("\n")
        assert status == "200"
        assert "<dfn" in html and "Interconnect" in html
        assert "Sources" in html
