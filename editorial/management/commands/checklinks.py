"""Check links in the foreground, without a worker.

    checklinks --due | --all | --source ID [ID ...] | --url URL [URL ...]
               [--concurrency N] [--timeout SECONDS] [--json]

Source checks are recorded and update each source's state (the same code the
worker runs); --url checks are recorded as history only.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils import timezone

from editorial.linkcheck import service
from editorial.linkcheck.fetch import CheckResult, FetchOptions
from editorial.linkcheck.guard import Refused, check_scheme
from editorial.sourcetext import service as sourcetext
from glossary.management.database import DatabaseCommand
from glossary.models import Source


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise CommandError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise CommandError(f"expected a number of at least 1, not {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CommandError(f"expected a number of seconds, not {text!r}") from None
    if value <= 0:
        raise CommandError(f"expected a positive number of seconds, not {value}")
    return value


class Progress:
    """A one-line progress bar on stderr (only redrawn on a terminal)."""

    def __init__(self, total: int, stream: Any, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.enabled = enabled and total > 0
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, result: CheckResult) -> None:
        with self._lock:
            self.done += 1
            self.counts[str(result.outcome)] += 1
            if not self.enabled:
                return
            if not self.tty and self.done < self.total:
                return  # in a log, one line at the end instead of hundreds of redraws
            width = 30
            filled = int(width * self.done / self.total)
            bar = "#" * filled + "-" * (width - filled)
            problems = self.done - self.counts["ok"]
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} checked, {problems} not ok")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


class Command(DatabaseCommand):
    help = "Check cited links now, in the foreground, and print what was found."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_argument_group("what to check (choose one or combine --source/--url)")
        which.add_argument("--all", action="store_true", help="every source")
        which.add_argument("--due", action="store_true", help="sources due for a check")
        which.add_argument(
            "--source",
            dest="source_ids",
            nargs="+",
            action="extend",
            type=_positive_int,
            default=[],
            metavar="ID",
            help="sources by id",
        )
        which.add_argument(
            "--url",
            dest="urls",
            nargs="+",
            action="extend",
            default=[],
            metavar="URL",
            help="URLs, with or without a source row (history only)",
        )
        parser.add_argument("--concurrency", type=_positive_int, help="global concurrency")
        parser.add_argument("--timeout", type=_positive_float, help="total seconds per request")
        parser.add_argument("--json", action="store_true", help="print a JSON array of results")
        parser.add_argument(
            "--no-progress", action="store_true", help="do not draw the progress bar"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        selected = [opts["all"], opts["due"], bool(opts["source_ids"] or opts["urls"])]
        if sum(selected) == 0:
            raise CommandError("Say what to check: --all, --due, --source ID or --url URL.")
        if sum(selected) > 1:
            raise CommandError("--all, --due and --source/--url cannot be combined.")
        for url in opts["urls"]:
            try:
                check_scheme(url.split(":", 1)[0] if ":" in url else "")
            except Refused:
                raise CommandError(f"Not an http(s) URL: {url!r}") from None

        options = FetchOptions.from_settings(
            global_concurrency=opts["concurrency"], total_timeout=opts["timeout"]
        )
        claim = self._claim(opts)
        total = len(claim.source_ids) + len(dict.fromkeys(opts["urls"]))
        stderr = getattr(self.stderr, "_out", sys.stderr)
        progress = Progress(total, stderr, enabled=not opts["no_progress"])

        results: list[CheckResult] = []
        if claim.source_ids:
            results += service.check_claimed(
                claim, options, progress, store_text=sourcetext.record_page
            )
        if opts["urls"]:
            url_results = service.run_checks(opts["urls"], options, progress)
            service.record_urls(url_results)
            results += url_results

        if opts["json"]:
            self.stdout.write(json.dumps([r.as_json() for r in results], indent=2))
        else:
            self._summary(results)

    def _claim(self, opts: dict[str, Any]) -> service.Claim:
        if opts["all"]:
            ids = list(Source.objects.values_list("pk", flat=True))
            return service.claim_sources(ids)
        if opts["due"]:
            return service.claim_due()
        ids = opts["source_ids"]
        if ids:
            found = set(Source.objects.filter(pk__in=ids).values_list("pk", flat=True))
            missing = sorted(set(ids) - found)
            if missing:
                raise CommandError(f"No source with id {', '.join(map(str, missing))}.")
            return service.claim_sources(ids)
        return service.Claim(lease=timezone.now(), source_ids=[])

    def _summary(self, results: list[CheckResult]) -> None:
        if not results:
            self.stdout.write("Nothing to check.")
            return
        counts = Counter(str(r.outcome) for r in results)
        width = max(len(k) for k in counts) + 2
        self.stdout.write(f"{'outcome':<{width}}count")
        for outcome, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            self.stdout.write(f"{outcome:<{width}}{count}")
        problems = [r for r in results if str(r.outcome) != "ok"]
        if problems:
            self.stdout.write("")
            self.stdout.write(f"{'outcome':<13}{'status':<8}{'ms':>7}  url / detail")
            for r in problems:
                detail = r.error or (f"→ {r.final_url}" if r.final_url != r.url else "")
                status = "" if r.status_code is None else str(r.status_code)
                self.stdout.write(
                    f"{str(r.outcome):<13}{status:<8}{r.elapsed_ms:>7}  {r.url}"
                    + (f"\n{'':<30}{detail}" if detail else "")
                )
        self.stdout.write(f"\n{len(results)} checked, {len(problems)} not ok.")
