"""Every command that touches the glossary says, in one sentence, to migrate first.

Run before `migrate` (a fresh clone's first mistake) they used to print a traceback
ending in "no such table". Each runs in its own process against a database file
that `migrate` has not touched, side by side to keep the suite fast.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

from glossary.management.database import DatabaseCommand

ROOT = Path(__file__).resolve().parents[2]
NO_TABLES = "CommandError: The database has no tables yet: run `python manage.py migrate` first."

COMMANDS = {
    "import_glossary": ["import_glossary", "{export}"],
    "export_glossary": ["export_glossary", "{out}"],
    "import_entries": ["import_entries", "{csv}", "--as", "wanda"],
    "import_feed": ["import_feed", "demo-show", "{csv}"],
    "import_transcript": ["import_transcript", "demo-show/3/44", "{csv}"],
    "load_demo": ["load_demo"],
}


# The desk's commands that need no database (the rest are DatabaseCommands).
WITHOUT_DATABASE = {"rundesk"}


def _env(database: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(DATABASE_URL=f"sqlite:///{database}", DEBUG="true")
    return env


def _manage(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(scope="module")
def before_migrate(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str, str]]:
    folder = tmp_path_factory.mktemp("before-migrate")
    export = folder / "glossary.json"
    export.write_text('{"format": "glossary-desk-export", "version": 1}', encoding="utf-8")
    csv = folder / "entries.csv"
    csv.write_text("term,summary\nInterconnect,The links between chips.\n", encoding="utf-8")
    paths = {"export": export, "out": folder / "out.json", "csv": csv}
    env = _env(folder / "fresh.sqlite3")
    running = {
        name: _manage([arg.format(**paths) for arg in args], env) for name, args in COMMANDS.items()
    }
    results = {}
    for name, process in running.items():
        stdout, stderr = process.communicate(timeout=180)
        results[name] = (process.returncode, stdout, stderr)
    return results


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_run_before_migrate_says_to_migrate_in_one_sentence(
    before_migrate: dict[str, tuple[int, str, str]], name: str
) -> None:
    status, stdout, stderr = before_migrate[name]
    assert status == 1
    assert stderr.strip() == NO_TABLES, stderr
    assert "Traceback" not in stdout + stderr
    assert stdout == ""


def test_a_command_on_a_database_behind_the_code_names_the_first_missing_migration(
    tmp_path: Path,
) -> None:
    env = _env(tmp_path / "behind.sqlite3")
    # Only the first app's migrations: the rest of the schema is missing.
    first = _manage(["migrate", "contenttypes"], env)
    assert first.communicate(timeout=180)[0] and first.returncode == 0
    process = _manage(["import_glossary", str(tmp_path / "glossary.json")], env)
    stdout, stderr = process.communicate(timeout=180)
    assert process.returncode == 1
    assert "Traceback" not in stderr
    line = stderr.strip()
    assert line.startswith("CommandError: The database is ")
    assert "migrations behind the code (the first is " in line
    assert line.endswith("run `python manage.py migrate` first.")


def test_every_command_of_the_desk_that_touches_the_database_checks_it_first() -> None:
    ours = {
        name: app
        for name, app in get_commands().items()
        if app in ("glossary", "editorial", "demo", "config") and name not in WITHOUT_DATABASE
    }
    assert {"import_glossary", "load_demo", "checklinks", "rerender"} <= set(ours)
    unchecked = [
        name
        for name, app in ours.items()
        if not isinstance(load_command_class(app, name), DatabaseCommand)
    ]
    assert unchecked == []
