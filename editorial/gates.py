"""Publish gates: the checks an entry must pass before readers see it.

`run_gates(entry)` returns one `GateResult` per finding, in plain words an
editor understands, each naming the exact item and where to fix it. A result
with `blocking=True` and `passed=False` stops `editorial.workflow.publish_entry`
unless an editor overrides it with a written reason; a non-blocking failure is a
warning the editor reads and decides on.

The query count is fixed whatever the size of the entry: every part is read
with one query (sub-selects, never Python lists of ids, so an empty entry costs
the same as a large one). `tests/gates/test_gates.py` pins it.

Decisions worth knowing:

- **See-also targets that are not published are a warning, not a block.** The
  public page renders such a link as plain text (no dead link) and turns it into
  a link when the target is published (`publishing.rerender_linking`), so
  publishing is safe; the editor is told the reader will not get a link yet.
- **An episode without a known duration is a warning**: the timestamp cannot be
  checked, which is not the same as being wrong.
- **Unresolved comments are a warning** (editorial.comments): the editor reads
  each open thread before publishing, and may publish with one open (a note for
  the next revision); comments never reach readers either way.
- **Interest disclosures are a warning**: whether a guest's employer needs one is
  an editorial judgement; the editor adds a disclosure or marks it not needed
  for this entry (`editorial.models.InterestDisclosureWaiver`).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Subquery
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from editorial import newsroom
from editorial.models import Comment, InterestDisclosureWaiver
from editorial.permissions import Action
from editorial.sourcetext import report
from glossary.entry_page import ends_sentence
from glossary.episode_transcripts import QuoteCheck, check_entries
from glossary.markdown import raw_html_in
from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    EntryName,
    Episode,
    EpisodeReference,
    Quote,
    SeeAlso,
    Source,
    Sponsorship,
)
from glossary.timestamps import format_timestamp
from glossary.transcripts.quote_verification import Outcome


@dataclass(frozen=True)
class GateResult:
    """One finding of a publish check.

    `code` is stable (tests, override logs, the dashboard); `message` is for
    people; `fix_url` leads to where the problem is fixed, when there is one.
    """

    code: str
    passed: bool
    blocking: bool
    message: str
    fix_url: str | None = None
    # What the fix takes, when not everyone who reads the check may do it: whoever
    # cannot is sent to `fallback_url` (their own way to fix it), or, without one, told
    # who must act instead of being sent to a field or page they cannot use.
    fixed_by: Action | None = None
    fallback_url: str | None = None

    @classmethod
    def ok(cls, code: str, message: str, *, blocking: bool) -> GateResult:
        """A check that passed; `blocking` says whether failing it would stop publishing."""
        return cls(code, passed=True, blocking=blocking, message=message)

    @classmethod
    def block(
        cls,
        code: str,
        message: str,
        fix_url: str | None,
        *,
        fixed_by: Action | None = None,
        fallback_url: str | None = None,
    ) -> GateResult:
        """A failed check that stops publishing unless an editor overrides it with a reason."""
        return cls(code, False, True, message, fix_url, fixed_by, fallback_url)

    @classmethod
    def warn(
        cls,
        code: str,
        message: str,
        fix_url: str | None,
        *,
        fixed_by: Action | None = None,
        fallback_url: str | None = None,
    ) -> GateResult:
        """A failed check the editor reads and decides on; it does not stop publishing."""
        return cls(code, False, False, message, fix_url, fixed_by, fallback_url)

    @property
    def blocks(self) -> bool:
        """True when this result stops publishing (a failed blocking check)."""
        return self.blocking and not self.passed

    @property
    def is_warning(self) -> bool:
        return not self.blocking and not self.passed


# Codes, one per check. Kept as constants so the workflow and dashboard can name them.
HAS_SOURCE = "has_source"
CITATION_FRESH = "citation_fresh"
SOURCE_NOT_BROKEN = "source_not_broken"
SOURCE_MOVED = "source_moved"
SOURCE_EMPTY = "source_empty"
CLAIM_HELD = "claim_held"
TIMESTAMP_IN_EPISODE = "timestamp_in_episode"
SPONSORSHIP_DISCLOSED = "sponsorship_disclosed"
INTEREST_DISCLOSED = "interest_disclosed"
SEE_ALSO_PUBLISHED = "see_also_published"
SUMMARY_PRESENT = "summary_present"
SUMMARY_LENGTH = "summary_length"
QUOTE_IN_TRANSCRIPT = "quote_in_transcript"
QUOTE_AT_ITS_TIME = "quote_at_its_time"
QUOTE_SPEAKER = "quote_speaker"
NAME_UNIQUE = "name_unique"
NO_RAW_HTML = "no_raw_html"
REFERENCE_ENDS_SENTENCE = "reference_ends_sentence"
COMMENTS_RESOLVED = "comments_resolved"
BODY_PRESENT = "body_present"

# Blocking checks no written reason overrides: a page with nothing to read is not an
# entry, and a planned entry (a term, no body yet; editorial.assignments) must never
# reach readers by an override.
NOT_OVERRIDABLE = frozenset({BODY_PRESENT})


def blocking_failures(results: list[GateResult]) -> list[GateResult]:
    """The results that stop publishing."""
    return [r for r in results if r.blocks]


def warnings(results: list[GateResult]) -> list[GateResult]:
    """Failed checks that do not stop publishing but deserve a look."""
    return [r for r in results if r.is_warning]


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _url(name: str, *args: Any, anchor: str = "") -> str | None:
    try:
        return reverse(name, args=args) + (f"#{anchor}" if anchor else "")
    except NoReverseMatch:
        return None


def _entry_url(entry: Entry, inline: str = "") -> str | None:
    # Django admin gives each inline group the id "<related_name>-group".
    return _url("admin:glossary_entry_change", entry.pk, anchor=f"{inline}-group" if inline else "")


def _episode_label(episode: Episode) -> str:
    if not episode.title or episode.title.strip().lower() == f"episode {episode.number}":
        return f"episode {episode.number}"
    return f"episode {episode.number} (“{_short(episode.title, 50)}”)"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def run_gates(
    entry: Entry,
    *,
    now: datetime.datetime | None = None,
    quote_checks: Iterable[QuoteCheck] | None = None,
) -> list[GateResult]:
    """Every publish check for `entry`'s working copy, passed ones included.

    Reads the database a fixed number of times regardless of the entry's size.
    Uses the in-memory `entry` for its own fields (term, summary), so a form's
    unsaved values can be checked. `quote_checks`: the entry's quotes already checked
    against their transcripts (`check_entries`), when the caller has them.
    """
    scope = Entry.objects.filter(pk=entry.pk)
    return run_gates_for([entry], scope, now=now, quote_checks=quote_checks)[entry.pk]


def run_gates_for(
    entries: Iterable[Entry],
    scope: QuerySet[Entry],
    *,
    now: datetime.datetime | None = None,
    transcripts: bool = True,
    comments: bool = True,
    quote_checks: Iterable[QuoteCheck] | None = None,
) -> dict[int, list[GateResult]]:
    """`run_gates` for many entries at once, at the same fixed number of queries.

    `scope` is a queryset selecting the same entries (used as a sub-select, so
    the SQL does not grow with the number of entries); the dashboard passes
    ``Entry.objects.published()``. With `transcripts=False` quotes are not checked
    against transcripts (the dashboard: reading every transcript of the site on each
    view costs too much; `verify_quotes` and the bulk task cover the whole site). With
    `comments=False` open comment threads are not read (the dashboard, which lists only
    blocking failures, and open threads never block).
    """
    now = now or timezone.now()
    entries = list(entries)
    ids = Subquery(scope.values("pk"))
    rows = _read_parts(ids)
    sponsorships, appearances = _read_sponsors_and_guests(ids)
    waived: dict[int, set[int]] = {}
    for entry_id, organisation_id in _waivers(ids):
        waived.setdefault(entry_id, set()).add(organisation_id)
    see_also = _grouped(
        SeeAlso.objects.filter(entry__in=ids)
        .select_related("target__live_version")
        .order_by("order", "pk")
    )
    open_threads = (
        _grouped(
            Comment.objects.filter(entry__in=ids, parent__isnull=True, resolved_at__isnull=True)
            .select_related("author")
            .order_by("created_at", "pk")
        )
        if comments
        else {}
    )
    checked: dict[int, list[QuoteCheck]] = {}
    if transcripts:
        for check in check_entries(scope) if quote_checks is None else quote_checks:
            checked.setdefault(check.entry.pk, []).append(check)
    names = name_index(entries)

    out: dict[int, list[GateResult]] = {}
    for entry in entries:
        pk = entry.pk
        entry_refs, entry_quotes = rows.references.get(pk, []), rows.quotes.get(pk, [])
        entry_disclosures = rows.disclosures.get(pk, [])
        episode_ids = {r.episode_id for r in entry_refs} | {q.episode_id for q in entry_quotes}
        episode_ids |= {d.episode_id for d in entry_disclosures if d.episode_id}
        results = _summary_checks(entry)
        results += _citation_checks(entry, rows.citations.get(pk, []), now, rows.claims.get(pk, []))
        results += _timestamp_checks(entry, entry_refs, entry_quotes, entry_disclosures)
        results += _reference_sentence_checks(entry, entry_refs)
        results += _sponsorship_checks(
            entry,
            [s for episode_id in sorted(episode_ids) for s in sponsorships.get(episode_id, [])],
            entry_disclosures,
        )
        results += _interest_checks(
            entry, entry_refs, entry_quotes, entry_disclosures, appearances, waived.get(pk, set())
        )
        results += _see_also_checks(entry, see_also.get(pk, []))
        if transcripts:
            results += _transcript_checks(entry, checked.get(pk, []))
        results += _name_checks(entry, names)
        results += _body_checks(entry)
        if comments:
            results += _comment_checks(entry, open_threads.get(pk, []))
        out[pk] = results
    return out


def _grouped(rows: Iterable[Any]) -> dict[int, list[Any]]:
    """Rows by their entry's id, in the order read."""
    out: dict[int, list[Any]] = {}
    for row in rows:
        out.setdefault(row.entry_id, []).append(row)
    return out


@dataclass(frozen=True)
class _Parts:
    """The working-copy parts the checks read, each by entry id."""

    citations: dict[int, list[Citation]]
    claims: dict[int, list[report.ClaimWarning]]
    references: dict[int, list[EpisodeReference]]
    quotes: dict[int, list[Quote]]
    disclosures: dict[int, list[Disclosure]]


def _read_parts(ids: Subquery) -> _Parts:
    """The parts of the entries `ids` selects, one query per kind."""
    citations = _grouped(
        Citation.objects.filter(entry__in=ids).select_related("source").order_by("order", "pk")
    )
    # Stored texts are read only when a cited page changed since it was confirmed.
    claims: dict[int, list[report.ClaimWarning]] = {}
    for warning in report.claim_warnings(c for cited in citations.values() for c in cited):
        claims.setdefault(warning.entry_id, []).append(warning)
    references = _grouped(
        EpisodeReference.objects.filter(entry__in=ids)
        .select_related("episode", "speaker")
        .order_by("order", "pk")
    )
    quotes = _grouped(
        Quote.objects.filter(entry__in=ids)
        .select_related("episode", "speaker")
        .order_by("order", "pk")
    )
    disclosures = _grouped(
        Disclosure.objects.filter(entry__in=ids).select_related("episode").order_by("order", "pk")
    )
    return _Parts(citations, claims, references, quotes, disclosures)


def _read_sponsors_and_guests(
    ids: Subquery,
) -> tuple[dict[int, list[Sponsorship]], dict[tuple[int, int], Appearance]]:
    """The sponsorships of the episodes the entries draw on, by episode id, and the guest
    appearances (with an affiliation) of the people they quote or cite there, by
    (episode, person). The episodes are sub-selects, so the query count never depends on
    how many there are (an empty id list would skip the query)."""
    ref_episodes = EpisodeReference.objects.filter(entry__in=ids).values("episode_id")
    quote_episodes = Quote.objects.filter(entry__in=ids).values("episode_id")
    drawn_on = (
        Q(episode__in=ref_episodes)
        | Q(episode__in=quote_episodes)
        | Q(
            episode__in=Disclosure.objects.filter(entry__in=ids, episode__isnull=False).values(
                "episode_id"
            )
        )
    )
    sponsorships: dict[int, list[Sponsorship]] = {}
    for sponsorship in (
        Sponsorship.objects.filter(drawn_on)
        .select_related("episode", "organisation")
        .order_by("episode__season", "episode__number", "read_at")
    ):
        sponsorships.setdefault(sponsorship.episode_id, []).append(sponsorship)
    speakers = Q(
        episode__in=quote_episodes,
        person__in=Quote.objects.filter(entry__in=ids).values("speaker_id"),
    ) | Q(
        episode__in=ref_episodes,
        person__in=EpisodeReference.objects.filter(entry__in=ids, speaker__isnull=False).values(
            "speaker_id"
        ),
    )
    appearances: dict[tuple[int, int], Appearance] = {
        (a.episode_id, a.person_id): a
        for a in Appearance.objects.filter(
            speakers, role=Appearance.Role.GUEST, affiliation__isnull=False
        ).select_related("person", "affiliation", "episode")
    }
    return sponsorships, appearances


def name_index(entries: Iterable[Entry]) -> dict[str, list[tuple[int, str]]]:
    """The unarchived entries that use any of `entries`' terms or aliases (as
    glossary.models.name_keys compares them): name → [(entry id, term)]; one indexed
    query (EntryName), however many entries the glossary has."""
    wanted = sorted({name for entry in entries for name in entry.name_keys()})
    index: dict[str, list[tuple[int, str]]] = {}
    rows = (
        EntryName.objects.filter(name__in=wanted or [""])  # [""]: the same one query
        .exclude(entry__status=Entry.Status.ARCHIVED)
        .order_by("entry_id", "name")
        .values_list("name", "entry_id", "entry__term")
    )
    for name, pk, term in rows:
        index.setdefault(name, []).append((pk, term))
    return index


def duplicate_names(
    entry: Entry, index: dict[str, list[tuple[int, str]]] | None = None
) -> list[tuple[str, str]]:
    """(name, other entry's term) for each of `entry`'s term and aliases another entry also uses."""
    index = name_index([entry]) if index is None else index
    found = []
    for name in sorted(entry.name_keys()):
        for pk, term in index.get(name, []):
            if pk != entry.pk:
                found.append((name, term))
    return found


def _name_checks(entry: Entry, index: dict[str, list[tuple[int, str]]]) -> list[GateResult]:
    clashes = duplicate_names(entry, index)
    if not clashes:
        return [
            GateResult.ok(
                NAME_UNIQUE, "No other entry uses this term or its aliases.", blocking=False
            )
        ]
    listed = "; ".join(f"“{name}” is also “{term}”" for name, term in clashes)
    return [
        GateResult.warn(
            NAME_UNIQUE,
            f"Another entry uses the same name: {listed}. Readers looking for it will find "
            "two entries; merge them, or make the terms distinct.",
            _entry_url(entry),
        )
    ]


def _body_checks(entry: Entry) -> list[GateResult]:
    if not entry.body.strip():
        return [
            GateResult.block(
                BODY_PRESENT,
                "The body is empty: readers would get a term with nothing to read. Write the "
                "entry first (a planned entry waits for its writer; no override publishes it).",
                _entry_url(entry),
            )
        ] + _raw_html_checks(entry)
    results = [GateResult.ok(BODY_PRESENT, "The entry has a body.", blocking=True)]
    return results + _raw_html_checks(entry)


def _raw_html_checks(entry: Entry) -> list[GateResult]:
    raw = raw_html_in(entry.body)
    if not raw:
        return [GateResult.ok(NO_RAW_HTML, "The body has no raw HTML.", blocking=False)]
    shown = ", ".join(f"“{_short(r, 30)}”" for r in raw[:3])
    return [
        GateResult.warn(
            NO_RAW_HTML,
            f"The body contains raw HTML ({shown}"
            f"{' and more' if len(raw) > 3 else ''}), which readers see as literal text. "
            "Use Markdown instead (**bold**, _italic_, [text](https://…)).",
            _entry_url(entry),
        )
    ]


def _comment_checks(entry: Entry, open_threads: list[Comment]) -> list[GateResult]:
    if not open_threads:
        return [GateResult.ok(COMMENTS_RESOLVED, "Every comment is resolved.", blocking=False)]
    listed = "; ".join(
        f"on the {thread.get_field_display().lower()}"
        + (f" at “{_short(thread.quote, 40)}”" if thread.quote else "")
        + f", {thread.author.get_username()}: “{_short(thread.text, 60)}”"
        for thread in open_threads
    )
    return [
        GateResult.warn(
            COMMENTS_RESOLVED,
            f"{_plural(len(open_threads), 'unresolved comment')}: {listed}. Read each thread "
            "and resolve it, or publish knowing it is open; readers never see comments.",
            _url("admin:glossary_entry_change", entry.pk, anchor="comments"),
        )
    ]


def may_fail_blocking(now: datetime.datetime | None = None) -> Q:
    """An Entry filter that holds for every entry some blocking check fails on now.

    The SQL form of the blocking checks below (summary, sources, freshness, broken
    links, timestamps, sponsorship disclosures), so the dashboard can find the
    published entries that fail without running every check on every entry; it
    then runs the real checks on what this finds. Keep it in step with the checks:
    tests/dashboard/test_failing_at_size.py fails each one and expects it found.
    """
    today = newsroom.today(now or timezone.now())
    duration = F("episode__duration")
    timed = Q(episode__duration__isnull=False)

    # Every part is an uncorrelated sub-select of entry ids, computed once and
    # probed as a hash: the cost grows with the tables, not with tables × entries.
    def entries(parts: Any) -> Q:
        return Q(pk__in=parts.values("entry"))

    def undisclosed(model: Any) -> Any:
        return model.objects.filter(episode__sponsorships__isnull=False).exclude(
            Exists(
                Disclosure.objects.filter(
                    entry=OuterRef("entry"),
                    episode=OuterRef("episode"),
                    kind=Disclosure.Kind.SPONSORSHIP,
                )
            )
        )

    condition: Q = (
        Q(summary__regex=r"^\s*$")
        | Q(body__regex=r"^\s*$")
        | ~entries(Citation.objects.all())
        | entries(Citation.objects.stale(today))
        | entries(Citation.objects.filter(source__health=Source.Health.BROKEN))
        | entries(EpisodeReference.objects.filter(timed, at__gt=duration))
        | entries(Quote.objects.filter(timed, Q(start__gt=duration) | Q(end__gt=duration)))
        | entries(
            Disclosure.objects.filter(
                Q(episode__isnull=True) | Q(timed, at__gt=duration), at__isnull=False
            )
        )
        | entries(undisclosed(EpisodeReference))
        | entries(undisclosed(Quote))
        | entries(undisclosed(Disclosure))
    )
    return condition


def _summary_checks(entry: Entry) -> list[GateResult]:
    # About what search engines show of a meta description.
    limit = settings.META_DESCRIPTION_MAX_LENGTH
    summary = entry.summary.strip()
    if not summary:
        return [
            GateResult.block(
                SUMMARY_PRESENT,
                "The summary is empty. Search results, feeds and the index show it, so write "
                "one or two sentences.",
                _entry_url(entry),
            )
        ]
    results = [GateResult.ok(SUMMARY_PRESENT, "The entry has a summary.", blocking=True)]
    if len(summary) > limit:
        over = _plural(len(summary) - limit, "character")
        results.append(
            GateResult.warn(
                SUMMARY_LENGTH,
                f"The summary is {_plural(len(summary), 'character')}; search engines cut meta "
                f"descriptions after about {limit}, so search results will show "
                f"it cut short. Shorten it by {over}.",
                _entry_url(entry),
            )
        )
    else:
        results.append(
            GateResult.ok(
                SUMMARY_LENGTH,
                f"The summary is {_plural(len(summary), 'character')}, within the {limit} "
                "a meta description can show.",
                blocking=False,
            )
        )
    return results


def _citation_checks(
    entry: Entry,
    citations: list[Citation],
    now: datetime.datetime,
    claims: list[report.ClaimWarning],
) -> list[GateResult]:
    fix = _entry_url(entry, "citations")
    if not citations:
        return [
            GateResult.block(
                HAS_SOURCE,
                "The entry cites no source. Add at least one citation under “Citations”.",
                fix,
            )
        ]
    results = [
        GateResult.ok(
            HAS_SOURCE, f"The entry cites {_plural(len(citations), 'source')}.", blocking=True
        )
    ]
    results += _freshness_checks(entry, citations, now)
    results += _source_health_checks(citations)
    results += claim_checks(claims)
    return results


def _freshness_checks(
    entry: Entry, citations: list[Citation], now: datetime.datetime
) -> list[GateResult]:
    """Each citation confirmed within the freshness window (in the newsroom's days)."""
    fix = _entry_url(entry, "citations")
    window = settings.CITATION_FRESHNESS_DAYS
    today = newsroom.today(now)
    stale = []
    for citation in citations:
        title = _short(citation.source.display_title)
        if citation.checked_on is None:
            stale.append(
                GateResult.block(
                    CITATION_FRESH,
                    f"The citation of “{title}” has never been checked. A fact-checker "
                    "confirms it still supports the entry and sets “checked on”.",
                    fix,
                    fixed_by=Action.CONFIRM_CITATION,
                )
            )
            continue
        if citation.is_stale(today):
            age = (today - citation.checked_on).days
            stale.append(
                GateResult.block(
                    CITATION_FRESH,
                    f"The citation of “{title}” was last checked {_plural(age, 'day')} ago; "
                    f"the freshness window is {_plural(window, 'day')}.",
                    fix,
                    fixed_by=Action.CONFIRM_CITATION,
                )
            )
    return stale or [
        GateResult.ok(
            CITATION_FRESH,
            f"Every citation was checked within the last {_plural(window, 'day')}.",
            blocking=True,
        )
    ]


def _source_health_checks(citations: list[Citation]) -> list[GateResult]:
    """A broken source blocks; an empty or moved one warns (in the citations' order, the
    warnings before the broken sources' verdict)."""
    results: list[GateResult] = []
    broken = []
    for citation in citations:
        source = citation.source
        title = _short(source.display_title)
        source_url = _url("admin:glossary_source_change", source.pk)
        if source.health == Source.Health.BROKEN:
            broken.append(
                GateResult.block(
                    SOURCE_NOT_BROKEN,
                    f"The source “{title}” is broken: its address ({source.url}) has failed "
                    "repeated checks. Replace the source, or mark it dead and give an archive "
                    "copy.",
                    source_url,
                )
            )
        elif source.health == Source.Health.EMPTY:
            # A warning: the address works, and a page built by scripts may read fine.
            results.append(
                GateResult.warn(
                    SOURCE_EMPTY,
                    f"The source “{title}” answered with an empty page on several checks "
                    "days apart. Open it and check it still says what it is cited for; if "
                    "not, mark it dead and give an archive copy.",
                    source_url,
                )
            )
        elif source.health == Source.Health.MOVED:
            where = f" to {source.suggested_url}" if source.suggested_url else ""
            results.append(
                GateResult.warn(
                    SOURCE_MOVED,
                    f"The source “{title}” has moved{where}. Update its address so readers "
                    "are not redirected.",
                    source_url,
                )
            )
    return results + (
        broken or [GateResult.ok(SOURCE_NOT_BROKEN, "No cited source is broken.", blocking=True)]
    )


def claim_checks(claims: list[report.ClaimWarning]) -> list[GateResult]:
    """Notes quoting a figure or phrase their source's current text no longer says.

    A warning: the page may have corrected itself, or the entry may need to; a
    fact-checker reads the change and re-confirms or edits. Reads stored texts
    only for sources whose page changed since it was confirmed.
    """
    found = [
        GateResult.warn(
            CLAIM_HELD,
            warning.message,
            _url("admin:glossary_source_change", warning.source.pk, anchor="what-changed"),
        )
        for warning in claims
    ]
    return found or [
        GateResult.ok(
            CLAIM_HELD, "Every cited source still says what its note quotes.", blocking=False
        )
    ]


def _timestamp_checks(
    entry: Entry,
    references: list[EpisodeReference],
    quotes: list[Quote],
    disclosures: list[Disclosure],
) -> list[GateResult]:
    findings: list[GateResult] = []

    def check(
        what: str, episode: Episode | None, seconds: int | None, inline: str, required: bool
    ) -> None:
        found = _timestamp_finding(what, episode, seconds, _entry_url(entry, inline), required)
        if found is not None:
            findings.append(found)

    for ref in references:
        speaker = f" ({ref.speaker.name})" if ref.speaker else ""
        check(
            f"The episode reference “{_short(ref.text, 50)}”{speaker}",
            ref.episode,
            ref.at,
            "references",
            True,
        )
    for quote in quotes:
        label = f"The quote “{_short(quote.text, 50)}” ({quote.speaker.name})"
        check(label, quote.episode, quote.start, "quotes", True)
        if quote.end is not None:
            check(f"{label}: its end", quote.episode, quote.end, "quotes", True)
    for d in disclosures:
        if d.at is not None:
            text = _short(d.text or "generated from the episode", 40)
            check(
                f"The {d.get_kind_display().lower()} disclosure “{text}”",
                d.episode,
                d.at,
                "disclosures",
                False,
            )
    if not any(f.blocks for f in findings):
        findings.insert(
            0,
            GateResult.ok(
                TIMESTAMP_IN_EPISODE,
                "Every quote and episode reference has an episode and a timestamp within it.",
                blocking=True,
            ),
        )
    return findings


def _timestamp_finding(
    what: str, episode: Episode | None, seconds: int | None, fix: str | None, required: bool
) -> GateResult | None:
    """What is wrong with one timestamp of `what` in `episode`, if anything: no episode,
    a missing timestamp (when `required`), no duration to check it against (a warning),
    or a time past the episode's end."""
    if episode is None:
        return GateResult.block(
            TIMESTAMP_IN_EPISODE, f"{what} does not say which episode it comes from.", fix
        )
    if seconds is None:
        if required:
            return GateResult.block(
                TIMESTAMP_IN_EPISODE,
                f"{what} in {_episode_label(episode)} has no timestamp.",
                fix,
            )
        return None
    if episode.duration is None:
        return GateResult.warn(
            TIMESTAMP_IN_EPISODE,
            f"{what} at {format_timestamp(seconds)} cannot be checked: "
            f"{_episode_label(episode)} has no duration recorded. Add the episode's "
            "length.",
            _url("admin:glossary_episode_change", episode.pk),
        )
    if seconds > episode.duration:
        return GateResult.block(
            TIMESTAMP_IN_EPISODE,
            f"{what} is at {format_timestamp(seconds)}, past the end of "
            f"{_episode_label(episode)}, which runs {format_timestamp(episode.duration)}.",
            fix,
        )
    return None


def _reference_sentence_checks(
    entry: Entry, references: list[EpisodeReference]
) -> list[GateResult]:
    """A reference is a sentence of the page's "on the show" paragraph: one that does not
    end as a sentence ran into the disclosure after it ("… every layer at once Episode 28
    was sponsored …"). The page now adds a full stop; the writer decides the right one."""
    unfinished = [ref for ref in references if ref.text.strip() and not ends_sentence(ref.text)]
    if not unfinished:
        return [
            GateResult.ok(
                REFERENCE_ENDS_SENTENCE,
                "Every episode reference ends a sentence.",
                blocking=False,
            )
        ]
    return [
        GateResult.warn(
            REFERENCE_ENDS_SENTENCE,
            f"The episode reference at {format_timestamp(ref.at)} in "
            f"{_episode_label(ref.episode)} ends “{_ending(ref.text)}”, which does not end a "
            "sentence; the page adds a full stop after it. End it with the punctuation you "
            "mean.",
            _entry_url(entry, "references"),
        )
        for ref in unfinished
    ]


def _ending(text: str, limit: int = 40) -> str:
    """The last words of `text`, about `limit` characters of them, whole words only."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    if text[-limit - 1] != " " and " " in tail:
        tail = tail.split(" ", 1)[1]
    return "…" + tail.lstrip()


def _sponsorship_checks(
    entry: Entry, sponsorships: list[Sponsorship], disclosures: list[Disclosure]
) -> list[GateResult]:
    disclosed = {d.episode_id for d in disclosures if d.kind == Disclosure.Kind.SPONSORSHIP}
    by_episode: dict[int, list[Sponsorship]] = {}
    for s in sponsorships:
        by_episode.setdefault(s.episode_id, []).append(s)
    results = []
    for episode_id, sponsors in by_episode.items():
        if episode_id in disclosed:
            continue
        episode = sponsors[0].episode
        names = ", ".join(s.organisation.name for s in sponsors)
        results.append(
            GateResult.block(
                SPONSORSHIP_DISCLOSED,
                f"The entry draws on {_episode_label(episode)}, which was sponsored by {names}, "
                "but has no sponsorship disclosure for it. Generate the sentence from the "
                "episode's data, or write one under “Disclosures”.",
                _url("desk:gates-generate-sponsorship", entry.pk, episode.pk)
                or _entry_url(entry, "disclosures"),
                fixed_by=Action.EDIT,
            )
        )
    if not results:
        n = len(by_episode)
        message = (
            "Every sponsored episode the entry draws on has a sponsorship disclosure."
            if n
            else "None of the episodes the entry draws on had a sponsor."
        )
        results.append(GateResult.ok(SPONSORSHIP_DISCLOSED, message, blocking=True))
    return results


def _interest_checks(
    entry: Entry,
    references: list[EpisodeReference],
    quotes: list[Quote],
    disclosures: list[Disclosure],
    appearances: dict[tuple[int, int], Appearance],
    waived: set[int],
) -> list[GateResult]:
    # Only pairs the entry actually uses: a speaker quoted or cited from that episode.
    used = [(q.episode_id, q.speaker_id) for q in quotes]
    used += [(r.episode_id, r.speaker_id) for r in references if r.speaker_id]
    disclosed_orgs = {d.organisation_id for d in disclosures if d.organisation_id}
    results = []
    seen: set[int] = set()
    for pair in dict.fromkeys(used):
        a = appearances.get(pair)
        if a is None or a.affiliation_id in seen:
            continue
        seen.add(a.affiliation_id)  # type: ignore[arg-type]
        if a.affiliation_id in disclosed_orgs or a.affiliation_id in waived:
            continue
        org = a.affiliation
        assert org is not None  # noqa: S101 - filtered on affiliation__isnull=False
        results.append(
            GateResult.warn(
                INTEREST_DISCLOSED,
                f"{a.person.name} spoke for {org.name} in {_episode_label(a.episode)}, and the "
                f"entry has no disclosure of {org.name}'s interest. Add a commercial-interest "
                "disclosure, or mark it not needed for this entry.",
                _url("desk:gates-interest-not-needed", entry.pk, org.pk)
                or _entry_url(entry, "disclosures"),
                # Marking it not needed is an editor's call; a writer adds the disclosure.
                fixed_by=Action.PUBLISH,
                fallback_url=_entry_url(entry, "disclosures"),
            )
        )
    if not results:
        results.append(
            GateResult.ok(
                INTEREST_DISCLOSED,
                "Every quoted guest's organisation has a disclosure or was marked not needed.",
                blocking=False,
            )
        )
    return results


def _waivers(ids: Subquery) -> list[tuple[int, int]]:
    """(entry, organisation) pairs an editor marked as needing no interest disclosure."""
    return list(
        InterestDisclosureWaiver.objects.filter(entry__in=ids).values_list(
            "entry_id", "organisation_id"
        )
    )


def _see_also_checks(entry: Entry, see_also: list[SeeAlso]) -> list[GateResult]:
    results = [
        GateResult.warn(
            SEE_ALSO_PUBLISHED,
            f"The see-also link to “{s.target.term}” points at an entry that is not published; "
            "readers will see its name without a link until it is.",
            _url("admin:glossary_entry_change", s.target_id),
        )
        for s in see_also
        if s.target.live_version_id is None
    ]
    return results or [
        GateResult.ok(
            SEE_ALSO_PUBLISHED,
            "Every see-also link points at a published entry."
            if see_also
            else "The entry has no see-also links.",
            blocking=False,
        )
    ]


def _transcript_checks(entry: Entry, checks: list[QuoteCheck]) -> list[GateResult]:
    """Quotes and quoted phrases against the episode transcripts: one not found blocks;
    one said at another time, or by someone else, warns."""
    results: list[GateResult] = []
    for check in checks:
        verdict = check.verdict
        what = (
            f"The quote “{_short(check.text, 50)}”"
            if check.kind == "quote"
            else f"The phrase “{_short(check.text, 50)}” quoted in an episode reference"
        )
        where = f"{_episode_label(check.episode)} at {format_timestamp(verdict.stored_at)}"
        inline = "quotes" if check.kind == "quote" else "references"
        if verdict.verdict == Outcome.NOT_FOUND:
            results.append(
                GateResult.block(
                    QUOTE_IN_TRANSCRIPT,
                    f"{what} ({where}) is not in the episode's transcript (closest score "
                    f"{verdict.score:.0f}, needs {verdict.threshold:.0f}). Check its wording "
                    "against the episode, or override with a reason if the transcript is wrong.",
                    _entry_url(entry, inline),
                )
            )
        elif verdict.verdict == Outcome.ELSEWHERE and verdict.found_at is not None:
            fix = (
                _url("desk:quote-move", check.quote.pk)
                if check.quote is not None
                else _entry_url(entry, inline)
            )
            results.append(
                GateResult.warn(
                    QUOTE_AT_ITS_TIME,
                    f"{what} is placed at {format_timestamp(verdict.stored_at)} in "
                    f"{_episode_label(check.episode)}, but the transcript has it at "
                    f"{format_timestamp(verdict.found_at)}.",
                    fix,
                    fixed_by=Action.EDIT,
                )
            )
        if verdict.speaker_agrees is False:
            results.append(
                GateResult.warn(
                    QUOTE_SPEAKER,
                    f"{what} ({where}) is credited to {check.speaker}, but the transcript "
                    f"gives the words to {verdict.speaker}.",
                    _entry_url(entry, inline),
                )
            )
    if not any(r.blocks for r in results):
        checked = [c for c in checks if c.verdict.verdict != Outcome.NO_TRANSCRIPT]
        message = (
            f"{_plural(len(checked), 'quote')} and quoted phrase"
            f"{'' if len(checked) == 1 else 's'} found in the episode transcripts."
            if checked
            else "No quote could be checked: no transcript for the episodes quoted."
            if checks
            else "The entry quotes nothing from an episode."
        )
        results.insert(0, GateResult.ok(QUOTE_IN_TRANSCRIPT, message, blocking=True))
    return results
