from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from editorial import exchange
from editorial.management.commands._progress import Bar
from glossary.management.database import DatabaseCommand


class Command(DatabaseCommand):
    help = (
        "Read a file written by export_glossary into an empty database, keeping every id, "
        "so the site serves the same pages and the admin the same history. Into a database "
        "with content it refuses unless --merge is given; --dry-run says what would change "
        "and writes nothing. The whole file is checked first and written in one transaction."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="a file written by export_glossary")
        parser.add_argument(
            "--merge",
            action="store_true",
            help="add to a database with content only what it lacks (docs/export-format.md)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="check the file and report; write nothing"
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        bar = Bar(getattr(self.stderr, "_out", sys.stderr), not options["no_progress"])
        dry = options["dry_run"]
        try:
            data = exchange.read_export(Path(options["path"]))
            checked = exchange.check_export(data, bar)
            if options["merge"]:
                plan = exchange.merge_glossary(checked, dry_run=dry, progress=bar)
                self._report_merge(plan, dry)
                return
            report = exchange.import_glossary(checked, dry_run=dry, progress=bar)
        except exchange.ExchangeError as exc:
            raise CommandError(f"Nothing was imported. {exc}") from None
        made = ", ".join(f"{n} {name}" for name, n in report.created.items() if n)
        verb = "Would import" if dry else "Imported"
        self.stdout.write(self.style.SUCCESS(f"{verb}: {made}."))
        if report.users_kept:
            self.stdout.write(
                f"Kept the existing people {', '.join(report.users_kept)} (their passwords, "
                "names and roles are unchanged)."
            )
        if report.users_created and not dry:
            self.stdout.write(
                "People arrive without passwords: set them with `manage.py changepassword "
                "USERNAME` or the admin's password reset."
            )

    def _report_merge(self, plan: exchange.MergePlan, dry: bool) -> None:
        verb = "Would add" if dry else "Added"
        for line in plan.lines():
            self.stdout.write(line)
        total = sum(plan.created.values())
        self.stdout.write(self.style.SUCCESS(f"{verb} {total} rows in all."))
