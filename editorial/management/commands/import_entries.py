from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import CommandError, CommandParser

from editorial import intake
from glossary.management.database import DatabaseCommand


class Command(DatabaseCommand):
    help = (
        "Import an existing glossary as drafts from CSV files (columns: term, slug, aliases, "
        "summary, body, tags, sources) and Markdown files with front matter (term, slug, "
        "aliases, summary, tags, sources; the body follows). Every file is read first; "
        "if any row or file cannot be used, each is reported and nothing is created. "
        "See docs/importing-entries.md."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "paths", nargs="+", metavar="FILE_OR_DIR", help=".csv or .md files, or directories"
        )
        parser.add_argument(
            "--as",
            dest="username",
            required=True,
            metavar="USERNAME",
            help="the person the drafts and their first versions are credited to",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="report what would be created and what cannot be read; create nothing",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            user = User.objects.get(username=options["username"], is_active=True)
        except User.DoesNotExist:
            raise CommandError(f"No active user {options['username']!r} (--as).") from None
        found = intake.collect([Path(p) for p in options["paths"]], user)
        for problem in found.problems:
            self.stderr.write(f"Cannot read {problem}")
        if found.problems and not options["dry_run"]:
            raise CommandError(
                f"{len(found.problems)} rows or files cannot be read (listed above); nothing "
                "was created. Fix or remove them and run again (--dry-run shows the plan)."
            )
        verb = "Would create" if options["dry_run"] else "Creating"
        for draft in found.drafts:
            extras = []
            if draft.tags:
                extras.append(f"topics {', '.join(draft.tags)}")
            if draft.sources:
                extras.append(f"{len(draft.sources)} source{'s' * (len(draft.sources) != 1)}")
            detail = f" ({'; '.join(extras)})" if extras else ""
            self.stdout.write(f"{verb} draft “{draft.term}” /glossary/{draft.slug}/{detail}")
        if found.new_sources:
            self.stdout.write(f"{verb} {len(found.new_sources)} new sources.")
        if options["dry_run"]:
            self.stdout.write(
                f"Dry run: {len(found.drafts)} drafts could be created, "
                f"{len(found.problems)} rows or files cannot be read. Nothing was created."
            )
            return
        if not found.drafts:
            raise CommandError("Nothing to import.")
        made = intake.create_drafts(found, user)
        self.stdout.write(
            self.style.SUCCESS(
                f"Created {len(made)} draft{'s' * (len(made) != 1)}, credited to "
                f"{user.username}; they are in the admin's entry list, ready to review."
            )
        )
