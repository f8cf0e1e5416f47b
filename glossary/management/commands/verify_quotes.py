"""`manage.py verify_quotes [--entry SLUG] [--json]`: every quote checked against its transcript."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError, CommandParser

from glossary.episode_transcripts import check_entries, episode_path, tolerance
from glossary.management.database import DatabaseCommand
from glossary.models import Entry
from glossary.timestamps import format_timestamp


class Command(DatabaseCommand):
    help = (
        "Check every quote, and every phrase an episode reference quotes, against the "
        "episode's transcript (the entries' working copies)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--entry", metavar="SLUG", help="Only this entry.")
        parser.add_argument(
            "--json",
            action="store_true",
            help="A JSON list, one object per quote or reference phrase: entry, episode, "
            "kind, text, stored_at, found_at, verdict, speaker_agrees, score.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        entries = Entry.objects.all()
        if options["entry"]:
            entries = entries.filter(slug=options["entry"])
            if not entries.exists():
                raise CommandError(f"No entry has the slug “{options['entry']}”.")
        checks = check_entries(entries)
        if options["json"]:
            self.stdout.write(json.dumps([c.as_json() for c in checks], ensure_ascii=False))
            return
        for check in checks:
            v = check.verdict
            self.stdout.write(
                f"{check.entry.slug}  {episode_path(check.episode)} at "
                f"{format_timestamp(v.stored_at)}  {check.kind}  {v.verdict}: {v.message}\n"
                f"    “{check.text}”"
            )
        counts: dict[str, int] = {}
        for check in checks:
            counts[str(check.verdict.verdict)] = counts.get(str(check.verdict.verdict), 0) + 1
        summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
        self.stdout.write(
            f"{len(checks)} checked (tolerance ±{tolerance()} s): {summary or 'nothing to check'}."
        )
