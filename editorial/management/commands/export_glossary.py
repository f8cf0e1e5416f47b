from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from editorial.exchange import FORMAT_VERSION, write_export
from editorial.management.commands._progress import Bar
from glossary.management.database import DatabaseCommand


class Command(DatabaseCommand):
    help = (
        "Write everything editors made to PATH as JSON (docs/export-format.md): entries with "
        "every version and workflow event, reference data, sources with their link-check "
        "history, citations, disclosures, tags, see-also, schedules, waivers, and the people "
        "by username with their roles. Never passwords."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the file to write (replaced if it exists)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        if not path.parent.is_dir():
            raise CommandError(f"{path.parent} is not a directory")
        # The raw stream: Django's wrapper would end every redraw with a newline.
        bar = Bar(getattr(self.stderr, "_out", sys.stderr), not options["no_progress"])
        counts = write_export(path, bar)
        summary = ", ".join(f"{n} {name}" for name, n in counts.items() if n)
        self.stdout.write(
            self.style.SUCCESS(f"Wrote {path} (format version {FORMAT_VERSION}): {summary}.")
        )
