"""`manage.py generate_glossary --entries N [--seed S] [--force-append]`: see demo.generate."""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.management.base import CommandError, CommandParser

from demo import generate
from glossary.management.database import DatabaseCommand


class Progress:
    """One self-rewriting line on stderr: done/total, rate and time left.

    Not tqdm or rich: neither is a dependency of the product (rich is only pulled
    in by a dev tool), and one line is all a long run needs. On a terminal the line
    is rewritten in place; otherwise a line is written every tenth of the run.
    """

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.started = time.perf_counter()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.last_tenth = -1

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.started
        rate = done / elapsed if elapsed else 0.0
        left = (total - done) / rate if rate else 0.0
        line = (
            f"published {done:,}/{total:,} entries  {rate:,.0f}/s  "
            f"{int(elapsed) // 60}:{int(elapsed) % 60:02} elapsed, "
            f"{int(left) // 60}:{int(left) % 60:02} left"
        )
        if self.tty:
            self.stream.write("\r" + line + ("\n" if done == total else ""))
            self.stream.flush()
            return
        tenth = done * 10 // max(total, 1)
        if tenth != self.last_tenth or done == total:
            self.last_tenth = tenth
            self.stream.write(line + "\n")
            self.stream.flush()


class Command(DatabaseCommand):
    help = (
        "Generate a realistic glossary of N entries (shows, episodes, people, "
        "organisations, shared sources, quotes, citations, see-also links, disclosures, "
        "tags) and publish every entry through the real workflow: a writer's version, "
        "submitted for review, published by a second editor. The same seed gives the "
        "same glossary. Refuses a glossary that already has entries unless --force-append."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--entries", type=int, required=True, help="How many entries to generate."
        )
        parser.add_argument(
            "--seed", type=int, default=0, help="Same seed, same glossary (default 0)."
        )
        parser.add_argument(
            "--force-append",
            action="store_true",
            dest="force_append",
            help="Add the generated entries to a glossary that already has some "
            "(names that collide get a numbered suffix). They are published at once by "
            "the generator's own writer and editor accounts, so readers see invented "
            "entries: for scratch and benchmark databases only, never a real glossary.",
        )
        parser.add_argument(
            "--no-progress", action="store_true", help="No progress line on stderr."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        entries = options["entries"]
        if entries is None or entries < 1:
            raise CommandError("--entries must be a positive number, e.g. --entries 1000.")
        progress = None if options.get("no_progress") else Progress(self.stderr._out)
        try:
            result = generate.generate(
                entries,
                seed=options.get("seed") or 0,
                append=bool(options.get("force_append")),
                progress=progress,
            )
        except generate.GlossaryNotEmpty as exc:
            raise CommandError(str(exc)) from None
        timings = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result.timings.items())
        self.stdout.write(
            self.style.SUCCESS(
                f"Published {result.entries:,} entries ({result.quotes:,} quotes, "
                f"{result.citations:,} citations of {result.sources:,} sources, "
                f"{result.see_also:,} see-also links) on {result.shows} shows, "
                f"{result.episodes:,} episodes, {result.people:,} people, "
                f"{result.organisations:,} organisations, {result.tags} tags. {timings}."
            )
        )
