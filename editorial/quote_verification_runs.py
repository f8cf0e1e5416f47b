"""The bulk check: every quote and quoted phrase on the desk against the transcripts.

`start` records a run and queues it after commit; `run` (called by the Celery task
editorial.tasks.verify_all_quotes) claims it with a conditional UPDATE, checks the
episodes a batch at a time (each batch's transcripts loaded and indexed once, a fixed
number of queries), and writes its progress after every batch.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from editorial.models import QuoteCheckRun
from glossary.episode_transcripts import check_parts, load_transcripts
from glossary.models import EpisodeReference, Quote
from glossary.transcripts.quote_verification import Outcome, quoted_phrases

# Episodes checked between two progress updates.
BATCH_EPISODES = 20
# The problems a run keeps; `counts` has the total.
PROBLEMS_KEPT = 1000
# A run whose worker died is taken over after this long without progress.
STALLED_AFTER = datetime.timedelta(minutes=10)

_QUOTING = Q(text__contains="“") | Q(text__contains='"')


def start(user: Any, *, enqueue: Callable[[int], object]) -> QuoteCheckRun:
    """Record a run and queue it (`enqueue(run_id)`, the task's `delay`: passed in because
    editorial.tasks imports this module) once the record is committed."""
    who = user if user is not None and getattr(user, "is_authenticated", False) else None
    with transaction.atomic():
        run_row = QuoteCheckRun.objects.create(started_by=who)
        transaction.on_commit(lambda: enqueue(run_row.pk))
    return run_row


def claim(run_id: int, now: datetime.datetime) -> bool:
    """Take the run: queued, or running but stalled (its worker died)."""
    return bool(
        QuoteCheckRun.objects.filter(pk=run_id)
        .filter(
            Q(state=QuoteCheckRun.State.QUEUED)
            | Q(state=QuoteCheckRun.State.RUNNING, updated_at__lt=now - STALLED_AFTER)
        )
        .update(
            state=QuoteCheckRun.State.RUNNING,
            started_at=now,
            updated_at=now,
            done=0,
            counts={},
            problems=[],
        )
    )


def run(run_id: int) -> dict[str, int]:
    """Check everything, recording progress on the run; returns the counts by verdict."""
    if not claim(run_id, timezone.now()):
        return {}
    try:
        return _check_everything(run_id)
    except Exception as exc:
        QuoteCheckRun.objects.filter(pk=run_id).update(
            state=QuoteCheckRun.State.FAILED, error=repr(exc), finished_at=timezone.now()
        )
        raise


def _check_everything(run_id: int) -> dict[str, int]:
    references = EpisodeReference.objects.filter(_QUOTING)
    phrases = sum(len(quoted_phrases(text)) for text in references.values_list("text", flat=True))
    total = Quote.objects.count() + phrases
    episodes = sorted(
        set(Quote.objects.values_list("episode_id", flat=True).distinct())
        | set(references.values_list("episode_id", flat=True).distinct())
    )
    QuoteCheckRun.objects.filter(pk=run_id).update(total=total)
    counts: dict[str, int] = {}
    problems: list[dict[str, object]] = []
    done = 0
    for first in range(0, len(episodes), BATCH_EPISODES):
        batch = episodes[first : first + BATCH_EPISODES]
        transcripts = load_transcripts(batch)
        quotes = Quote.objects.filter(episode_id__in=batch).select_related(
            "entry", "episode__show", "speaker"
        )
        refs = references.filter(episode_id__in=batch).select_related(
            "entry", "episode__show", "speaker"
        )
        for check in check_parts(quotes, refs, transcripts):
            verdict = check.verdict
            counts[str(verdict.verdict)] = counts.get(str(verdict.verdict), 0) + 1
            done += 1
            troubled = verdict.verdict in (Outcome.NOT_FOUND, Outcome.ELSEWHERE)
            if (troubled or verdict.speaker_agrees is False) and len(problems) < PROBLEMS_KEPT:
                problems.append(check.as_json())
        QuoteCheckRun.objects.filter(pk=run_id).update(
            done=done, counts=counts, problems=problems, updated_at=timezone.now()
        )
    QuoteCheckRun.objects.filter(pk=run_id).update(
        state=QuoteCheckRun.State.DONE,
        total=max(total, done),
        finished_at=timezone.now(),
        updated_at=timezone.now(),
    )
    return counts
