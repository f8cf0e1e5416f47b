"""What changed on cited sources since they were confirmed, for every place that says it.

The source admin, the dashboard, `manage.py source_changes`, the publish checks
and the fact-checkers' notification all read these functions, so they agree:
the *confirmed* text is the one the source's latest confirmation saw (per
citation, the one that citation's latest confirmation saw), the *current* text
the newest one stored from a check. Only sources whose fingerprint moved since
they were confirmed are read at all (a cheap filter on two columns); texts are
decompressed and compared only for those.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet

from editorial.models import CitationConfirmation, SourceSnapshot, SourceText
from editorial.sourcetext.claims import ClaimProblem, check_note, claim_words, relevant_sentences
from editorial.sourcetext.diff import TextDiff, diff
from editorial.sourcetext.figures import figures_gone
from editorial.sourcetext.store import decompress
from glossary.models import CHANGED_SINCE_CONFIRMED, Citation, Source


@dataclass(frozen=True)
class ClaimWarning:
    """A citation's note quotes something its source no longer says."""

    entry_id: int
    entry_slug: str
    entry_term: str
    source: Source
    problem: ClaimProblem

    @property
    def message(self) -> str:
        """ "NVIDIA: NVLink and NVLink Switch no longer says '3 TB/s'; it now says '3.6 TB/s'"."""
        return f"{self.source.display_title} {self.problem.message}"


@dataclass(frozen=True)
class SourceChange:
    """How a source's current text differs from the text confirmed on `confirmed_on`."""

    source: Source
    confirmed_on: datetime.date
    checked_at: datetime.datetime | None
    diff: TextDiff
    figures_gone: list[str]
    relevant: list[str]
    entries: list[str]
    claims: list[ClaimWarning] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The object `source_changes --json` prints (its field names are a contract)."""
        return {
            "url": self.source.url,
            "confirmed_on": self.confirmed_on.isoformat(),
            "checked_at": self.checked_at.isoformat() if self.checked_at else None,
            "removed": self.diff.removed,
            "added": self.diff.added,
            "figures_gone": self.figures_gone,
            "entries": self.entries,
        }


@dataclass
class _Texts:
    """The confirmed and current texts of some sources, read with a fixed number of queries."""

    source_confirmed: dict[int, tuple[int, datetime.date]]  # source -> (text id, confirmed on)
    citation_confirmed: dict[tuple[int, int], int]  # (entry, source) -> text id
    current: dict[int, tuple[int, datetime.datetime]]  # source -> (text id, fetched at)
    hashes: dict[int, str]
    _bodies: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, source_ids: Iterable[int]) -> _Texts:
        ids = list(source_ids)
        source_confirmed: dict[int, tuple[int, datetime.date]] = {}
        citation_confirmed: dict[tuple[int, int], int] = {}
        rows = (
            CitationConfirmation.objects.filter(source__in=ids, text__isnull=False)
            .order_by("source_id", "-confirmed_at", "-pk")
            .values_list("source_id", "entry_id", "text_id", "confirmed_on")
        )
        for source_id, entry_id, text_id, confirmed_on in rows:
            source_confirmed.setdefault(source_id, (text_id, confirmed_on))
            citation_confirmed.setdefault((entry_id, source_id), text_id)
        current: dict[int, tuple[int, datetime.datetime]] = {}
        for source_id, text_id, fetched_at in (
            SourceSnapshot.objects.filter(source__in=ids, text__isnull=False)
            .order_by("source_id", "-fetched_at", "-pk")
            .values_list("source_id", "text_id", "fetched_at")
        ):
            current.setdefault(source_id, (text_id, fetched_at))
        wanted = {t for t, _ in source_confirmed.values()} | {t for t, _ in current.values()}
        wanted |= set(citation_confirmed.values())
        hashes = dict(SourceText.objects.filter(pk__in=wanted).values_list("pk", "content_hash"))
        return cls(source_confirmed, citation_confirmed, current, hashes)

    def differs(self, source_id: int) -> bool:
        confirmed, current = self.source_confirmed.get(source_id), self.current.get(source_id)
        if confirmed is None or current is None:
            return False
        return self.hashes[confirmed[0]] != self.hashes[current[0]]

    def load(self, text_ids: Iterable[int]) -> None:
        """Decompress the given texts (one query for all that are not loaded yet)."""
        missing = set(text_ids) - set(self._bodies)
        for pk, data in SourceText.objects.filter(pk__in=missing).values_list("pk", "compressed"):
            self._bodies[pk] = decompress(bytes(data))

    def body(self, text_id: int) -> str:
        return self._bodies[text_id]


def changes(sources: QuerySet[Source] | None = None) -> list[SourceChange]:
    """Every source (of `sources`) whose current text differs from its confirmed text.

    A fixed number of queries: sources, confirmations, history, hashes, texts, citations.
    """
    candidates = list(
        (sources if sources is not None else Source.objects.all())
        .filter(CHANGED_SINCE_CONFIRMED)
        .order_by("title", "pk")
    )
    if not candidates:
        return []
    texts = _Texts.of(s.pk for s in candidates)
    changed = [s for s in candidates if texts.differs(s.pk)]
    if not changed:
        return []
    citations: dict[int, list[Citation]] = {}
    for citation in (
        Citation.objects.filter(source__in=[s.pk for s in changed])
        .select_related("entry")
        .order_by("entry__slug", "pk")
    ):
        citations.setdefault(citation.source_id, []).append(citation)
    needed = [texts.source_confirmed[s.pk][0] for s in changed]
    needed += [texts.current[s.pk][0] for s in changed]
    needed += [
        texts.citation_confirmed[(c.entry_id, c.source_id)]
        for cited in citations.values()
        for c in cited
        if (c.entry_id, c.source_id) in texts.citation_confirmed
    ]
    texts.load(needed)
    return [_change(source, texts, citations.get(source.pk, [])) for source in changed]


def _change(source: Source, texts: _Texts, citations: list[Citation]) -> SourceChange:
    confirmed_id, confirmed_on = texts.source_confirmed[source.pk]
    current_id, fetched_at = texts.current[source.pk]
    confirmed, current = texts.body(confirmed_id), texts.body(current_id)
    text_diff = diff(confirmed, current)
    words = claim_words([*(c.entry.summary for c in citations), *(c.note for c in citations)])
    claims = []
    for citation in citations:
        if not citation.note:
            continue
        own = texts.citation_confirmed.get((citation.entry_id, citation.source_id), confirmed_id)
        for problem in check_note(citation.note, current, texts.body(own)):
            claims.append(
                ClaimWarning(
                    citation.entry_id, citation.entry.slug, citation.entry.term, source, problem
                )
            )
    return SourceChange(
        source=source,
        confirmed_on=confirmed_on,
        checked_at=source.last_checked_at or fetched_at,
        diff=text_diff,
        figures_gone=figures_gone(confirmed, current),
        relevant=relevant_sentences(text_diff, words),
        entries=sorted({c.entry.slug for c in citations}),
        claims=claims,
    )


@dataclass(frozen=True)
class Coverage:
    """How much of the library `changes` can speak for: without stored texts it finds
    nothing, which must not read as "nothing changed"."""

    sources: int  # every source in the library
    with_text: int  # sources the desk holds a page text of (from a check or a confirmation)
    # Pages whose fingerprint moved since they were confirmed, with no text from the
    # confirmation or none since to compare: changed, but not said how.
    uncompared: list[Source]


def coverage() -> Coverage:
    """The library's sources, how many have a stored text, and the changed ones that
    cannot be compared (a fixed number of queries)."""
    with_snapshot = SourceSnapshot.objects.filter(text__isnull=False).values("source_id")
    with_confirmed = CitationConfirmation.objects.filter(text__isnull=False).values("source_id")
    counts = Source.objects.aggregate(
        sources=Count("pk"),
        with_text=Count(
            "pk", filter=Q(pk__in=with_snapshot) | Q(pk__in=with_confirmed), distinct=True
        ),
    )
    candidates = list(Source.objects.filter(CHANGED_SINCE_CONFIRMED).order_by("title", "pk"))
    texts = _Texts.of(s.pk for s in candidates)
    uncompared = [
        s for s in candidates if s.pk not in texts.source_confirmed or s.pk not in texts.current
    ]
    return Coverage(counts["sources"], counts["with_text"], uncompared)


def source_change(source: Source) -> SourceChange | None:
    """`changes` for one source; None when its text is as confirmed (or nothing is stored)."""
    found = changes(Source.objects.filter(pk=source.pk))
    return found[0] if found else None


def claim_warnings(citations: Iterable[Citation]) -> list[ClaimWarning]:
    """The notes of `citations` (with their sources loaded) their sources no longer support.

    Reads nothing when no cited source changed since it was confirmed, so the
    publish checks pay for it only then.
    """
    citations = list(citations)
    changed = {c.source_id for c in citations if c.source.changed_since_confirmed and c.note}
    if not changed:
        return []
    by_source = {c.source.pk: c for c in changes(Source.objects.filter(pk__in=changed))}
    wanted = {(c.entry_id, c.source_id) for c in citations}
    return [
        claim
        for change in by_source.values()
        for claim in change.claims
        if (claim.entry_id, claim.source.pk) in wanted
    ]


def change_summary(source: Source) -> str:
    """A plain-text account of what changed on `source`, for the fact-checkers' email.

    Figures gone first, then the claims that no longer hold, then the sentences
    that matter to the citing entries, then every removed and added sentence.
    "" when the source's text is as confirmed.
    """
    change = source_change(source)
    if change is None:
        return ""
    lines = [
        f"{source.display_title} ({source.url})",
        f"Changed since it was confirmed on {change.confirmed_on:%B} "
        f"{change.confirmed_on.day}, {change.confirmed_on.year}.",
    ]
    if change.figures_gone:
        lines.append("Figures no longer on the page: " + ", ".join(change.figures_gone) + ".")
    for claim in change.claims:
        lines.append(f"- {claim.entry_term} ({claim.entry_slug}): {claim.message}")
    if change.relevant:
        lines += ["", "Sentences that matter to the citing entries:"]
        lines += [f"  {sentence}" for sentence in change.relevant]
    lines += ["", "Removed:", *(f"  - {s}" for s in change.diff.removed)]
    lines += ["Added:", *(f"  + {s}" for s in change.diff.added)]
    lines.append(f"Cited by: {', '.join(change.entries) or 'no entry'}.")
    return "\n".join(lines)
