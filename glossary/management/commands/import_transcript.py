"""`manage.py import_transcript EPISODE FILE`: read a transcript and make it the episode's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.template.defaultfilters import pluralize

from glossary.episode_transcripts import UnknownEpisode, find_episode
from glossary.management.database import DatabaseCommand
from glossary.transcript_imports import import_transcript
from glossary.transcripts.parse import TranscriptError


class Command(DatabaseCommand):
    help = (
        "Import a WebVTT, SRT or Podcasting 2.0 JSON transcript for an episode, replacing "
        "the one it had. A broken file changes nothing. What was skipped (a WebVTT cue "
        "players skip too) is printed as a warning naming its line."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "episode", help="The episode's path without /episodes/ (demo-show/3/44) or its id."
        )
        parser.add_argument("file", help="The transcript file (format read from its content).")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            episode = find_episode(options["episode"])
        except UnknownEpisode as exc:
            raise CommandError(str(exc)) from None
        path = Path(options["file"])
        try:
            content = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror or exc}") from None
        try:
            stored = import_transcript(episode, content, origin=path.name)
        except TranscriptError as exc:
            raise CommandError(
                f"{path}: {exc}. Nothing was imported; episode {episode.number} keeps "
                "the transcript it had."
            ) from None
        for warning in stored.warnings:
            self.stderr.write(self.style.WARNING(f"{path}: {warning}"))
        count = len(stored.warnings)
        said = f" Read it with the {count} warning{pluralize(count)} above." if count else ""
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {stored.segment_count} segments ({stored.get_format_display()}) "
                f"for episode {episode.number}: {episode.title}.{said}"
            )
        )
