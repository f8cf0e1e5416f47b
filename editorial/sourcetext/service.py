"""Stored source texts in the database: storing, the confirmation rule, retention.

The pure core (``text``, ``store``, ``diff`` ...) works on strings; this module
keeps them: a text once per content hash (``SourceText``), a history of which
text each fetch of a source served (``SourceSnapshot``), and which text each
confirmation of a citation saw (``CitationConfirmation``).

``confirm_citations`` is *the* rule for confirming, whichever way a fact-checker
does it (the entry's "checked on" date or "Mark confirmed today"): the source's
fingerprint becomes the confirmed one, and the confirmation is tied to the
source's main text as last fetched, fetched there and then when there is none.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db import transaction
from django.utils import timezone

from editorial import archive
from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fetch import FetchOptions, check_urls, run
from editorial.models import CitationConfirmation, SourceSnapshot, SourceText
from editorial.sourcetext.excerpt import excerpt
from editorial.sourcetext.store import StoredRef, compress, content_hash, decompress, to_keep
from editorial.sourcetext.text import UnsupportedContent, readable_text
from glossary.inbound import strip_invisible
from glossary.models import Citation, Source

log = logging.getLogger(__name__)


def save_text(text: str) -> SourceText:
    """The stored row for `text`, created (compressed) the first time it is seen."""
    digest = content_hash(text)
    found = SourceText.objects.filter(content_hash=digest).first()
    if found is not None:
        return found
    row, _ = SourceText.objects.get_or_create(
        content_hash=digest,
        defaults={"compressed": compress(text), "size": len(text.encode("utf-8"))},
    )
    return row


def record_text(
    source_id: int, text: str, fingerprint: str, at: datetime.datetime
) -> SourceSnapshot:
    """Add to a source's history that a fetch at `at` served `text` (stored once)."""
    stored = save_text(text)
    return SourceSnapshot.objects.create(
        source_id=source_id,
        content_hash=stored.content_hash,
        text=stored,
        fetched_at=at,
        fingerprint=fingerprint,
    )


def record_page(
    source_id: int, body: str, content_type: str, fingerprint: str, at: datetime.datetime
) -> SourceSnapshot | None:
    """Store the readable text of a fetched page body; None when it holds no readable text.

    Called while a check's results are recorded: a page whose text cannot be read
    is logged and skipped, never allowed to undo the link checks recorded with it.
    """
    try:
        text = readable_text(body, content_type)
    except UnsupportedContent:
        return None
    except (ValueError, RuntimeError):
        log.exception("Could not read the text of source %s; its check is recorded", source_id)
        return None
    return record_text(source_id, text, fingerprint, at) if text else None


def text_of(stored: SourceText) -> str:
    """A stored text, decompressed."""
    return decompress(bytes(stored.compressed))


def latest_snapshot(source_id: int, fingerprint: str | None = None) -> SourceSnapshot | None:
    """The newest history row of a source that still has its text (of `fingerprint`, if given)."""
    rows = SourceSnapshot.objects.filter(source_id=source_id, text__isnull=False)
    if fingerprint is not None:
        rows = rows.filter(fingerprint=fingerprint)
    return rows.select_related("text").order_by("-fetched_at", "-pk").first()


@dataclass(frozen=True)
class Fetched:
    """What fetching a page for a confirmation gave: its fingerprint and readable text,
    and whether it answered with an empty page (2xx, no text to read: `Outcome.EMPTY`)."""

    fingerprint: str
    text: str
    empty: bool = False


def fetch_texts(urls: Iterable[str]) -> dict[str, Fetched]:
    """Fetch pages now through the link checker's SSRF-safe client (timeouts, size cap).

    A page that cannot be read (dead, refused, not text) maps to an empty text.
    Nothing is fetched when SOURCETEXT_FETCH_ON_CONFIRM is off.
    """
    wanted = list(dict.fromkeys(urls))
    if not wanted or not settings.SOURCETEXT_FETCH_ON_CONFIRM:
        return {}
    results = run(
        check_urls(
            wanted, FetchOptions.from_settings(), text_unless={u: frozenset() for u in wanted}
        )
    )
    return {
        r.url: Fetched(
            r.fingerprint, _readable(r.body, r.content_type), empty=r.outcome is Outcome.EMPTY
        )
        for r in results
    }


def _readable(body: str, content_type: str) -> str:
    try:
        return readable_text(body, content_type) if body else ""
    except UnsupportedContent:
        return ""


def sources_needing_fetch(sources: Iterable[Source]) -> list[Source]:
    """The sources with no stored text of their page as last fetched."""
    needed = []
    for source in sources:
        if (
            not source.last_fingerprint
            or latest_snapshot(source.pk, source.last_fingerprint) is None
        ):
            needed.append(source)
    return needed


Confirmer = AbstractBaseUser | AnonymousUser | None


@dataclass(frozen=True)
class Confirmed:
    """What a confirmation recorded, and the confirmed sources whose page was empty."""

    confirmations: list[CitationConfirmation]
    # Answered with no text to read (now, or on the link check the confirmation relied
    # on): nothing backs the confirmation, and readers get no excerpt of it.
    empty: list[Source]


def empty_page_warning(source: Source) -> str:
    """What the confirmer is told at once about a source in `Confirmed.empty`."""
    return (
        f"The page of “{source.title or source.url}” ({source.url}) came back empty: it "
        "answered, but with no text to read (emptied, or built by scripts). The desk "
        "kept no text of it and readers get no excerpt. Open it and check it still says "
        "what it is cited for; if not, mark the source dead and give an archive copy."
    )


@transaction.atomic
def confirm_citations(
    citations: Sequence[Citation],
    *,
    user: Confirmer,
    now: datetime.datetime | None = None,
    fetched: Mapping[str, Fetched] | None = None,
) -> Confirmed:
    """Record that a fact-checker confirmed `citations` (their `checked_on` already set).

    Per source: the text as last fetched (the newest stored text with the
    source's last fingerprint); failing that, the page is fetched now (`fetched`
    may carry pages a caller fetched before opening its transaction). The
    source's confirmed fingerprint becomes that text's, so later checks measure
    change from it. Per citation: a `CitationConfirmation` naming the text, and
    the reader's excerpt (editorial.sourcetext.excerpt) with its date. With
    ARCHIVE_ON_CONFIRM, a Wayback Machine capture of each source is queued, sent by a
    worker after the transaction commits (editorial.archive).
    """
    now = now or timezone.now()
    citations = [c for c in citations if c.checked_on is not None]
    if not citations:
        return Confirmed([], [])
    sources = {c.source_id: c.source for c in citations}
    texts, empty = _confirmed_texts(sources.values(), now=now, fetched=fetched)
    for source in sources.values():
        source.confirmed_fingerprint = texts[source.pk][1]
        source.confirmed_at = now
        Source.objects.filter(pk=source.pk).update(
            last_fingerprint=source.last_fingerprint,
            confirmed_fingerprint=source.confirmed_fingerprint,
            confirmed_at=now,
        )
    confirmations = []
    by = user if isinstance(user, User) and user.is_authenticated else None
    for citation in citations:
        stored, fingerprint = texts[citation.source_id]
        assert citation.checked_on is not None  # noqa: S101 - filtered above
        confirmations.append(
            CitationConfirmation(
                entry_id=citation.entry_id,
                source_id=citation.source_id,
                text=stored,
                fingerprint=fingerprint,
                confirmed_on=citation.checked_on,
                confirmed_at=now,
                confirmed_by=by,
            )
        )
        _write_excerpt(citation, stored)
    archive.request_archives(sources.values(), user=by)
    return Confirmed(CitationConfirmation.objects.bulk_create(confirmations), empty)


def _confirmed_texts(
    sources: Iterable[Source],
    *,
    now: datetime.datetime,
    fetched: Mapping[str, Fetched] | None,
) -> tuple[dict[int, tuple[SourceText | None, str]], list[Source]]:
    """Each source's text as confirmed (stored text, fingerprint), by source id: as last
    fetched, or fetched now; and the sources whose page is empty."""
    texts: dict[int, tuple[SourceText | None, str]] = {}
    missing = []
    empty: list[Source] = []
    for source in sources:
        snapshot = latest_snapshot(source.pk, source.last_fingerprint or None)
        if source.last_fingerprint and snapshot is not None:
            texts[source.pk] = (snapshot.text, snapshot.fingerprint)
        else:
            missing.append(source)
    if missing:
        pages = dict(fetched or {})
        pages.update(fetch_texts(s.url for s in missing if s.url not in pages))
        for source in missing:
            page = pages.get(source.url)
            if page is not None and page.text:
                snapshot = record_text(source.pk, page.text, page.fingerprint, now)
                texts[source.pk] = (snapshot.text, page.fingerprint)
                if page.fingerprint:
                    source.last_fingerprint = page.fingerprint
            else:
                texts[source.pk] = (None, source.last_fingerprint)
                # Empty now, or (not fetched now) on the last link check.
                if (page is not None and page.empty) or (
                    page is None
                    and (
                        source.health == Source.Health.EMPTY or source.last_outcome == Outcome.EMPTY
                    )
                ):
                    empty.append(source)
    return texts, empty


def _write_excerpt(citation: Citation, stored: SourceText | None) -> None:
    """The reader's excerpt of the confirmed text, dated the day it was confirmed."""
    # The page's own words are kept as served (their hash is their identity); what
    # readers get is cleared of characters that change how it looks unseen (a
    # right-to-left override turns "STNEMYAP LLA DNES" into "SEND ALL PAYMENTS").
    passage = (
        excerpt(strip_invisible(text_of(stored)), _claim(citation)) if stored is not None else ""
    )
    citation.excerpt, citation.excerpt_on = passage, citation.checked_on if passage else None
    Citation.objects.filter(pk=citation.pk).update(
        excerpt=citation.excerpt, excerpt_on=citation.excerpt_on
    )


def _claim(citation: Citation) -> str:
    """What the excerpt must support: the note, or the entry's summary when there is none."""
    return citation.note or citation.entry.summary or citation.entry.term


def prune(latest: int | None = None, now: datetime.datetime | None = None) -> int:
    """Drop stored texts no longer kept (editorial.sourcetext.store.to_keep); returns how many.

    Kept: every text a confirmation saw, and each source's `latest` (default
    SOURCETEXT_KEEP_LATEST) most recent distinct texts. History rows stay (their
    text emptied) until they are older than the link-check history's retention.
    """
    latest = settings.SOURCETEXT_KEEP_LATEST if latest is None else latest
    now = now or timezone.now()
    history = [
        StoredRef(source_id, digest, seen_at)
        for source_id, digest, seen_at in SourceSnapshot.objects.values_list(
            "source_id", "content_hash", "fetched_at"
        )
    ]
    confirmed = set(
        CitationConfirmation.objects.filter(text__isnull=False).values_list(
            "text__content_hash", flat=True
        )
    )
    keep = to_keep(history, confirmed, latest)
    # Usually few: the hashes to drop, not the (many) to keep, go into the SQL.
    drop = sorted({ref.content_hash for ref in history} - keep)
    deleted = 0
    with transaction.atomic():
        for start in range(0, len(drop), 500):
            part = drop[start : start + 500]
            SourceSnapshot.objects.filter(content_hash__in=part).update(text=None)
            deleted += SourceText.objects.filter(
                content_hash__in=part, confirmations__isnull=True
            ).delete()[0]
        cutoff = now - datetime.timedelta(days=settings.LINKCHECK_RETENTION_DAYS)
        SourceSnapshot.objects.filter(text__isnull=True, fetched_at__lt=cutoff).delete()
    return deleted
