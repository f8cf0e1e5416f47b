"""Archived copies of confirmed sources, saved by the Wayback Machine (docs/archive.md).

When a fact-checker confirms a citation, `request_archives` queues a capture of the
source's page (`ArchiveRequest`), inside the confirmation's transaction but without
touching the network, and asks a worker to send it once that commits. `run_due`
(the `archive_due` task, also every ARCHIVE_POLL_SECONDS from beat) does the work,
as IABot and lychee do with Save Page Now 2:

1. POST `ARCHIVE_BASE_URL/save` with `url=<the confirmed URL>` and the S3-style
   `Authorization: LOW key:secret` header; the answer names a `job_id`;
2. GET `ARCHIVE_BASE_URL/save/status/<job_id>` no more often than every
   ARCHIVE_POLL_SECONDS until its `status` is `success` (with `timestamp` and
   `original_url`) or `error`;
3. the archive URL `ARCHIVE_BASE_URL/web/<timestamp>/<original_url>` and the capture's
   date go on the source, recorded as a version of every entry citing it
   (`publishing.record_reference_change`): readers get it with the next publish by
   someone other than whoever it is credited to (docs/archive.md).

Polite: at most ARCHIVE_CONCURRENCY captures under way and ARCHIVE_RATE_PER_MINUTE
capture requests a minute, across workers (the claim is serialised in the database);
a 429 holds every send until its Retry-After (or the backoff) has passed; passing
faults are retried ARCHIVE_RETRIES times with doubling backoff, then the request
fails with the reason, shown in the source admin. Every request goes through the
link checker's door (`linkcheck.download.exchange`): timeouts, a size cap, and no
private address unless LINKCHECK_ALLOW_PRIVATE lists it.
"""

from __future__ import annotations

import datetime
import email.utils
import json
import logging
from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlencode

from celery import current_app
from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from editorial import newsroom
from editorial.linkcheck.download import Answer, DownloadError, Refused, exchange
from editorial.models import ArchiveRequest
from glossary import publishing
from glossary.document import Actor
from glossary.models import PublicRecord, Source, normalise_url

log = logging.getLogger(__name__)

State = ArchiveRequest.State
OPEN = (State.QUEUED, State.CAPTURING)
SWEEP_TASK = "editorial.tasks.archive_due"
SYSTEM_USERNAME = "web-archive"
# The answers are small JSON objects; anything bigger is not the API talking.
MAX_ANSWER_BYTES = 256 * 1024
# A capture request claimed but never answered (a worker died mid-request) is sent
# again after this long.
CLAIM_SECONDS = 600
BACKOFF_MAX_SECONDS = 6 * 3600
# Save Page Now's `status_ext` values for faults that pass: tried again with backoff.
PASSING_ERRORS = frozenset(
    {
        "error:bad-gateway",
        "error:browsing-timeout",
        "error:cannot-fetch",
        "error:celery",
        "error:gateway-timeout",
        "error:internal-server-error",
        "error:proxy-error",
        "error:read-timeout",
        "error:service-unavailable",
        "error:soft-time-limit-exceeded",
        "error:too-many-daily-captures",
        "error:user-session-limit",
    }
)


class ArchiveAnswerError(Exception):
    """The archive answered something that is not Save Page Now's JSON."""


def archivable(source: Source) -> bool:
    """A page worth saving: cited as live and not found broken (a capture of a dead page
    would only preserve its error)."""
    return (
        source.citation_status == Source.CitationStatus.LIVE
        and source.health != Source.Health.BROKEN
    )


def request_archives(sources: Iterable[Source], *, user: Actor) -> int:
    """Queue a capture of each confirmed source; how many were queued.

    Only with ARCHIVE_ON_CONFIRM. Database rows only, in the caller's transaction; the
    network is used after it commits, by a worker. A source with a capture under way
    gets no second one. Never raises for the archive's sake: a confirmation is never
    held up or undone by it.
    """
    if not settings.ARCHIVE_ON_CONFIRM:
        return 0
    wanted = {s.pk: s for s in sources if archivable(s)}
    if not wanted:
        return 0
    by = user if isinstance(user, User) and user.is_authenticated else None
    now = timezone.now()
    try:
        with transaction.atomic():
            busy = set(
                ArchiveRequest.objects.filter(source__in=wanted, state__in=OPEN).values_list(
                    "source_id", flat=True
                )
            )
            rows = [
                ArchiveRequest(
                    source=s, url=s.url, requested_by=by, requested_at=now, next_attempt_at=now
                )
                for pk, s in wanted.items()
                if pk not in busy
            ]
            # Another confirmation of the same source at the same moment: one request.
            ArchiveRequest.objects.bulk_create(rows, ignore_conflicts=True)
    except DatabaseError:
        log.exception("Could not queue archive captures; the confirmation stands")
        return 0
    if rows:
        transaction.on_commit(_kick)
    return len(rows)


def _kick() -> None:
    """Ask a worker to send the queued captures now rather than at beat's next sweep."""
    app = current_app
    if app.conf.task_always_eager:
        return  # no worker: never inside the request that confirmed
    try:
        app.send_task(SWEEP_TASK)
    except Exception:  # kombu raises a different error per transport
        log.warning("Could not queue the archive sweep; beat's next one sends the captures")


def run_due(now: datetime.datetime | None = None) -> dict[str, int]:
    """Poll the captures due a status check, then send the queued ones the limits allow.

    Returns how many of each outcome (`saved`, `capturing`, `queued`, `failed` ...).
    Safe to run twice at once: each send and poll is claimed first.
    """
    now = now or timezone.now()
    counts: Counter[str] = Counter()
    for pk in _claim_polls(now):
        counts[_poll(pk, now)] += 1
    claimed = _claim_sends(now)
    for n, pk in enumerate(claimed):
        outcome = _send(pk, now)
        if outcome == "limited":
            # Asked to slow down: the rest of this claim is not sent into the 429.
            counts["queued"] += len(claimed) - n
            _release(claimed[n + 1 :])
            break
        counts[outcome] += 1
    return dict(counts)


def _release(ids: list[int]) -> None:
    """Captures claimed but not sent go back to the queue, due when the hold ends."""
    until = (
        ArchiveRequest.objects.filter(limited_until__isnull=False)
        .order_by("-limited_until")
        .values_list("limited_until", flat=True)
        .first()
    )
    ArchiveRequest.objects.filter(pk__in=ids, state=State.CAPTURING, job_id="").update(
        state=State.QUEUED, sent_at=None, next_attempt_at=until or timezone.now()
    )


def _serialise() -> None:
    """Hold the archive's claim lock for the rest of the transaction (one claimer at a time,
    so two workers never both see room for the same capture)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext('editorial.archive'))")
        else:
            # SQLite: the first write takes the database's write lock until commit.
            ArchiveRequest.objects.filter(pk=-1).update(error="")


def _claim_sends(now: datetime.datetime) -> list[int]:
    with transaction.atomic():
        _serialise()
        if ArchiveRequest.objects.filter(limited_until__gt=now).exists():
            return []
        capturing = ArchiveRequest.objects.filter(state=State.CAPTURING).count()
        sent = ArchiveRequest.objects.filter(
            sent_at__gt=now - datetime.timedelta(minutes=1)
        ).count()
        room = min(
            settings.ARCHIVE_CONCURRENCY - capturing, settings.ARCHIVE_RATE_PER_MINUTE - sent
        )
        if room <= 0:
            return []
        ids = list(
            ArchiveRequest.objects.filter(state=State.QUEUED, next_attempt_at__lte=now)
            .order_by("next_attempt_at", "pk")
            .values_list("pk", flat=True)[:room]
        )
        ArchiveRequest.objects.filter(pk__in=ids, state=State.QUEUED).update(
            state=State.CAPTURING,
            sent_at=now,
            job_id="",
            next_attempt_at=now + datetime.timedelta(seconds=CLAIM_SECONDS),
        )
        return ids


def _claim_polls(now: datetime.datetime) -> list[int]:
    due = list(
        ArchiveRequest.objects.filter(state=State.CAPTURING, next_attempt_at__lte=now).values_list(
            "pk", "next_attempt_at"
        )
    )
    later = now + datetime.timedelta(seconds=settings.ARCHIVE_POLL_SECONDS)
    return [
        pk
        for pk, at in due
        if ArchiveRequest.objects.filter(pk=pk, state=State.CAPTURING, next_attempt_at=at).update(
            next_attempt_at=later
        )
    ]


def _headers() -> tuple[str, ...]:
    key, secret = settings.ARCHIVE_ACCESS_KEY, settings.ARCHIVE_SECRET_KEY
    return (f"Authorization: LOW {key}:{secret}",) if key and secret else ()


def _call(method: str, path: str, body: bytes | None = None) -> Answer:
    return exchange(
        method,
        settings.ARCHIVE_BASE_URL.rstrip("/") + path,
        headers=_headers(),
        body=body,
        max_bytes=MAX_ANSWER_BYTES,
    )


def _json(answer: Answer) -> dict[str, Any]:
    try:
        data = json.loads(answer.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ArchiveAnswerError(
            f"the archive answered HTTP {answer.status} with something that is not JSON"
        ) from None
    if not isinstance(data, dict):
        raise ArchiveAnswerError(f"the archive answered HTTP {answer.status} with {data!r}")
    return data


def _send(pk: int, now: datetime.datetime) -> str:
    row = ArchiveRequest.objects.filter(pk=pk).first()
    if row is None:
        return "gone"  # its source was deleted meanwhile
    try:
        answer = _call("POST", "/save", urlencode({"url": row.url}).encode())
    except Refused as exc:
        return _fail(row, now, str(exc))
    except DownloadError as exc:
        return _again(row, now, str(exc))
    if answer.status == 429:
        return _limited(row, now, answer)
    if answer.status in (401, 403):
        return _fail(
            row,
            now,
            f"the archive refused our keys (HTTP {answer.status}): check ARCHIVE_ACCESS_KEY "
            "and ARCHIVE_SECRET_KEY",
        )
    try:
        data = _json(answer)
    except ArchiveAnswerError as exc:
        return _again(row, now, str(exc)) if answer.status >= 500 else _fail(row, now, str(exc))
    job_id = data.get("job_id")
    if 200 <= answer.status < 300 and isinstance(job_id, str) and job_id:
        ArchiveRequest.objects.filter(pk=row.pk).update(
            job_id=job_id,
            polls=0,
            error="",
            next_attempt_at=now + datetime.timedelta(seconds=settings.ARCHIVE_POLL_SECONDS),
        )
        return "capturing"
    return _error(row, now, data, answer.status)


def _poll(pk: int, now: datetime.datetime) -> str:
    row = ArchiveRequest.objects.filter(pk=pk).first()
    if row is None:
        return "gone"  # its source was deleted meanwhile
    if not row.job_id:  # claimed for sending, and the worker never got an answer
        return _again(row, now, "the capture request was never answered")
    try:
        answer = _call("GET", f"/save/status/{quote(row.job_id, safe='')}")
    except Refused as exc:
        return _fail(row, now, str(exc))
    except DownloadError as exc:
        return _wait(row, now, str(exc))
    if answer.status == 429:
        _hold_sends(row, now, answer)
        return _wait(row, now, "the archive asked us to slow down (HTTP 429)")
    try:
        data = _json(answer)
    except ArchiveAnswerError as exc:
        return _wait(row, now, str(exc))
    status = data.get("status")
    if status == "success":
        return _saved(row, now, data)
    if status == "pending":
        return _wait(row, now, "")
    return _error(row, now, data, answer.status)


def _wait(row: ArchiveRequest, now: datetime.datetime, error: str) -> str:
    """The capture goes on: look again later, up to ARCHIVE_MAX_POLLS times."""
    polls = row.polls + 1
    if polls >= settings.ARCHIVE_MAX_POLLS:
        return _fail(
            row, now, error or f"the capture was still pending after {polls} status checks"
        )
    ArchiveRequest.objects.filter(pk=row.pk, state=State.CAPTURING).update(
        polls=polls,
        error=error,
        next_attempt_at=now + datetime.timedelta(seconds=settings.ARCHIVE_POLL_SECONDS),
    )
    return "capturing"


def _backoff(attempt: int) -> datetime.timedelta:
    seconds = settings.ARCHIVE_BACKOFF_SECONDS * 2 ** max(0, attempt - 1)
    return datetime.timedelta(seconds=min(seconds, BACKOFF_MAX_SECONDS))


def _again(
    row: ArchiveRequest,
    now: datetime.datetime,
    error: str,
    at_least: datetime.timedelta | None = None,
) -> str:
    """A passing fault: send the capture request again after the backoff, or give up."""
    attempts = row.attempts + 1
    if attempts > settings.ARCHIVE_RETRIES:
        return _fail(row, now, f"{error} (gave up after {attempts} attempts)")
    delay = max(_backoff(attempts), at_least or datetime.timedelta(0))
    ArchiveRequest.objects.filter(pk=row.pk, state=State.CAPTURING).update(
        state=State.QUEUED,
        attempts=attempts,
        job_id="",
        error=error,
        next_attempt_at=now + delay,
    )
    return "queued"


def retry_after(answer: Answer, now: datetime.datetime) -> datetime.timedelta | None:
    """The wait a 429's Retry-After asks for (seconds or an HTTP date), capped at
    ARCHIVE_RETRY_AFTER_MAX; None when it names none."""
    raw = answer.headers.get("retry-after", "").strip()
    if not raw:
        return None
    if raw.isdigit():
        seconds = float(raw)
    else:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.UTC)
        seconds = max(0.0, (when - now).total_seconds())
    return datetime.timedelta(seconds=min(seconds, settings.ARCHIVE_RETRY_AFTER_MAX))


def _hold_sends(row: ArchiveRequest, now: datetime.datetime, answer: Answer) -> datetime.timedelta:
    wait = retry_after(answer, now) or _backoff(row.attempts + 1)
    ArchiveRequest.objects.filter(pk=row.pk).update(limited_until=now + wait)
    return wait


def _limited(row: ArchiveRequest, now: datetime.datetime, answer: Answer) -> str:
    """429: every send waits out the Retry-After (or the backoff); this one is tried again."""
    wait = _hold_sends(row, now, answer)
    outcome = _again(row, now, "the archive asked us to slow down (HTTP 429)", at_least=wait)
    return "limited" if outcome == "queued" else outcome


def _error(row: ArchiveRequest, now: datetime.datetime, data: dict[str, Any], status: int) -> str:
    code = str(data.get("status_ext") or "")
    message = str(data.get("message") or "").strip()
    error = " ".join(part for part in (code, message) if part) or f"HTTP {status}"
    error = f"the archive could not save the page: {error}"
    if code in PASSING_ERRORS or status >= 500:
        return _again(row, now, error)
    return _fail(row, now, error)


def _fail(row: ArchiveRequest, now: datetime.datetime, error: str) -> str:
    ArchiveRequest.objects.filter(pk=row.pk, state__in=OPEN).update(
        state=State.FAILED, error=error[:2000], finished_at=now
    )
    log.warning("Archive of %s failed: %s", row.url, error)
    return "failed"


def capture_time(timestamp: str) -> datetime.datetime:
    """A Wayback timestamp (YYYYMMDDHHMMSS, UTC) as an instant; ValueError if it is not one."""
    if len(timestamp) != 14 or not timestamp.isdigit():
        raise ValueError(f"{timestamp!r} is not a Wayback timestamp (YYYYMMDDHHMMSS)")
    return datetime.datetime.strptime(timestamp, "%Y%m%d%H%M%S").replace(tzinfo=datetime.UTC)


def archive_url(timestamp: str, original_url: str) -> str:
    return f"{settings.ARCHIVE_BASE_URL.rstrip('/')}/web/{timestamp}/{original_url}"


def system_user() -> User:
    """Who a capture is credited to when nobody on the desk asked for it: inactive, no
    password, clearly named."""
    user, created = User.objects.get_or_create(
        username=SYSTEM_USERNAME,
        defaults={"first_name": "Web archive", "last_name": "(automatic)", "is_active": False},
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def _saved(row: ArchiveRequest, now: datetime.datetime, data: dict[str, Any]) -> str:
    timestamp = str(data.get("timestamp") or "")
    original = str(data.get("original_url") or row.url)
    try:
        captured = capture_time(timestamp)
    except ValueError as exc:
        return _fail(row, now, f"the archive reported success without a capture: {exc}")
    http_status = data.get("http_status")
    if isinstance(http_status, int) and not 200 <= http_status < 300:
        return _fail(row, now, f"the archive captured an HTTP {http_status} answer; not used")
    if normalise_url(original) != normalise_url(row.url):
        return _fail(row, now, f"the archive captured {original}, not {row.url}; not used")
    url = archive_url(timestamp, original)
    with transaction.atomic():
        locked = ArchiveRequest.objects.select_for_update().filter(pk=row.pk, state=State.CAPTURING)
        if not locked.exists():
            return "done already"
        source = Source.objects.select_for_update().get(pk=row.source_id)
        if source.url != row.url:
            return _fail(
                row, now, f"the source's URL is now {source.url}; a capture of {row.url} not used"
            )
        day = newsroom.today(captured)
        Source.objects.filter(pk=source.pk).update(archive_url=url, archive_date=day)
        # Readers see it only once someone other than its author publishes it.
        publishing.record_reference_change(
            PublicRecord.Kind.SOURCE,
            [source.pk],
            user=row.requested_by or system_user(),
            what=f"Archived copy of {source.url} saved by the Wayback Machine on "
            f"{newsroom.format_date(day)}.",
        )
        locked.update(
            state=State.SAVED,
            archive_url=url,
            captured_at=captured,
            finished_at=now,
            error="",
        )
    return "saved"
