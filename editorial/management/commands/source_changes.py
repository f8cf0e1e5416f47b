"""Every cited source whose current text differs from the text a fact-checker confirmed.

    source_changes [--json]

With --json: a list of objects with the fields url, confirmed_on, checked_at,
removed (sentences), added (sentences), figures_gone (strings) and entries
(slugs of the entries citing it). Without: the same for people, figures gone first.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser

from editorial import newsroom
from editorial.sourcetext.report import SourceChange, changes
from glossary.management.database import DatabaseCommand


class Command(DatabaseCommand):
    help = "List the sources whose current text differs from their confirmed text."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--json", action="store_true", help="Print a JSON list (url, confirmed_on, ...)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        found = changes()
        if options["json"]:
            self.stdout.write(
                json.dumps([c.as_json() for c in found], indent=2, ensure_ascii=False)
            )
            return
        if not found:
            self.stdout.write("No source's text differs from the text that was confirmed.")
            return
        for change in found:
            self.stdout.write(_describe(change))
        self.stdout.write(f"{len(found)} source(s) changed since confirmed.")


def _describe(change: SourceChange) -> str:
    source = change.source
    checked = newsroom.format_instant(change.checked_at) if change.checked_at else "not yet"
    lines = [
        f"{source.display_title} <{source.url}>",
        f"  confirmed {newsroom.format_date(change.confirmed_on)}; last checked {checked}",
        f"  cited by: {', '.join(change.entries) or 'no entry'}",
    ]
    if change.figures_gone:
        lines.append(f"  figures gone: {', '.join(change.figures_gone)}")
    lines += [f"  claim: {claim.entry_slug}: {claim.message}" for claim in change.claims]
    lines += [f"  - {sentence}" for sentence in change.diff.removed]
    lines += [f"  + {sentence}" for sentence in change.diff.added]
    return "\n".join(lines) + "\n"
