"""Every cited source whose current text differs from the text a fact-checker confirmed.

    source_changes [--json]

With --json: a list of objects with the fields url, confirmed_on, checked_at,
removed (sentences), added (sentences), figures_gone (strings) and entries
(slugs of the entries citing it). Without: the same for people, figures gone first.

Only sources with stored texts can be compared. When none has one, or a page changed
since it was confirmed with no text kept to compare, the command says so (on stderr
with --json, so the JSON stays a list): "no differences" is never claimed for
pages the desk has not read.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser

from editorial import newsroom
from editorial.sourcetext.report import Coverage, SourceChange, changes, coverage
from glossary.management.database import DatabaseCommand


class Command(DatabaseCommand):
    help = "List the sources whose current text differs from their confirmed text."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--json", action="store_true", help="Print a JSON list (url, confirmed_on, ...)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        found = changes()
        covered = coverage()
        notes = _coverage_notes(covered)
        if options["json"]:
            self.stdout.write(
                json.dumps([c.as_json() for c in found], indent=2, ensure_ascii=False)
            )
            for line in notes:
                self.stderr.write(line)
            return
        for change in found:
            self.stdout.write(_describe(change))
        for line in notes:
            self.stdout.write(line)
        if covered.with_text == 0:
            return  # nothing could be compared: the note says why, never "no differences"
        if found:
            self.stdout.write(f"{len(found)} source(s) changed since confirmed.")
        if covered.uncompared:
            self.stdout.write(
                f"{len(covered.uncompared)} source(s) changed since confirmed with no "
                "confirmed text to compare."
            )
        if not found and not covered.uncompared:
            self.stdout.write(
                "No source's text differs from the text that was confirmed "
                f"({covered.with_text} of {covered.sources} sources have stored text)."
            )


def _coverage_notes(covered: Coverage) -> list[str]:
    if covered.sources == 0:
        return ["There are no sources yet."]
    if covered.with_text == 0:
        fetching = "on" if settings.SOURCETEXT_FETCH_ON_CONFIRM else "off"
        return [
            f"0 sources have stored text; confirming fetches it only with "
            f"SOURCETEXT_FETCH_ON_CONFIRM (now {fetching}), and a scheduled check stores it "
            "when a confirmed page changes. Nothing could be compared."
        ]
    return [
        f"{source.display_title} <{source.url}>: its page changed since it was confirmed, "
        "but no text of it was stored then (or since) to compare; open the page and "
        "confirm it again."
        for source in covered.uncompared
    ]


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
