"""The bulk check (editorial.quote_verification_runs.run, the body of the Celery task)
against a database.

    .venv/bin/python bench/transcripts/bulk.py                   # 50 episodes x 100 quotes
    .venv/bin/python bench/transcripts/bulk.py --episodes 500    # the issue's 50,000 quotes

Builds a fresh SQLite database with EPISODES episodes, each with the generated two-hour
transcript (generate.py, about 20,000 words) stored as segments and QUOTES quotes (nine in
ten at their time, one in ten stored 15 minutes off), then times one run of the bulk check:
reading every transcript's segments, indexing, verifying, writing progress after each
batch of episodes. The reference, measured in the same run: the same checks with the
transcripts parsed from the WebVTT in memory (no database). It prints both, the ratio,
and the projection to 50,000 quotes across 500 episodes.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # type: ignore[import-not-found]  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=50)
    parser.add_argument("--quotes", type=int, default=100, help="quotes per episode")
    args, _ = parser.parse_known_args()
    db = Path(tempfile.mkdtemp(prefix="bench-quotes-")) / "bench.sqlite3"
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "false",  # with DEBUG on, Django keeps every query, which no worker does
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DATABASE_URL": f"sqlite:///{db}",
            "REDIS_URL": "",
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.core.management import call_command

    from editorial import quote_verification_runs
    from editorial.models import QuoteCheckRun
    from glossary.models import Entry, Episode, Person, Quote, Show
    from glossary.transcript_imports import import_transcript
    from glossary.transcripts.parse import parse_transcript
    from glossary.transcripts.quote_verification import verify

    call_command("migrate", verbosity=0)
    cues = generate.transcript(20_000)
    vtt = generate.webvtt(cues)
    said = generate.quotes(cues, args.quotes)
    end = int(cues[-1].end)
    cases = [
        (q.text, q.said_at if i % 10 else (q.said_at + 900) % end, q.speaker)
        for i, q in enumerate(said)
    ]
    show = Show.objects.create(name="Bench", slug="bench")
    people = {name: Person.objects.create(name=name, slug=name.lower().replace(" ", "-"))
              for name in generate.SPEAKERS}  # fmt: skip
    entry = Entry.objects.create(term="Bench", slug="bench")
    started = time.perf_counter()
    for n in range(args.episodes):
        episode = Episode.objects.create(show=show, number=n + 1, title=f"Episode {n + 1}")
        import_transcript(episode, vtt, origin="generated.vtt")
        Quote.objects.bulk_create(
            Quote(entry=entry, order=i, episode=episode, speaker=people[who], start=at, text=text)
            for i, (text, at, who) in enumerate(cases)
        )
    setup = time.perf_counter() - started
    total = args.episodes * len(cases)

    run = QuoteCheckRun.objects.create()
    started = time.perf_counter()
    counts = quote_verification_runs.run(run.pk)
    bulk = time.perf_counter() - started

    started = time.perf_counter()
    for _ in range(args.episodes):
        transcript = parse_transcript(vtt)
        for text, at, who in cases:
            verify(text, at, transcript, speaker=who)
    reference = time.perf_counter() - started

    run.refresh_from_db()
    print(
        f"{args.episodes} episodes x {len(cases)} quotes = {total:,} quotes, each episode a "
        f"{sum(len(c.text.split()) for c in cues):,}-word two-hour WebVTT ({len(cues):,} cues); "
        f"setup {setup:.1f} s"
    )
    print(
        f"bulk check (the task's body, from the database): {bulk:.1f} s, "
        f"{bulk / total * 1000:.2f} ms a quote; progress {run.done:,}/{run.total:,}, {counts}"
    )
    print(
        f"reference, same checks from the WebVTT in memory: {reference:.1f} s; "
        f"the task takes {bulk / reference:.2f}x its time"
    )
    print(
        f"projection, 50,000 quotes across 500 episodes, one worker: "
        f"{bulk * 50_000 / total:.0f} s ({bulk * 50_000 / total / 60:.1f} min)"
    )
    ok = run.state == "done" and run.done == total
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
