"""What is public: the one visibility rule, seen from every kind of page.

Views, feeds, the sitemap, search and the API all read through these functions
and nothing else. An entry is public while it has a live version
(`Entry.objects.published()`). Episodes, people, organisations and tags are
public while a live version names them, and readers see them as their
*public record* says (glossary.records), never as the desk's tables do:

- an episode, when a live version draws on it;
- a person, when a live version names them (quoted, cited, disclosed, or
  appearing on an episode the version draws on);
- an organisation, when a live version names it (disclosed, sponsoring or
  employing someone on an episode the version draws on);
- a tag, when a live version carries it.

Anything else answers 404, so reference data typed in for a draft, or changed
since the last publish, stays private. The versions' cross-reference indexes
(EntryVersion.episodes, .people, ...) are filled from each version's document
when it is saved (glossary.publishing).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from typing import Any

from django.core.signals import setting_changed
from django.db import connection
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.utils import timezone

from glossary.models import Entry, EntryVersion, PublicRecord


def published_entries() -> QuerySet[Entry]:
    return Entry.objects.published()


def live_versions() -> QuerySet[EntryVersion]:
    return EntryVersion.objects.live()


class _Prepared:
    """A selector's query compiled by the ORM once per process; only the slug varies.

    Compiling a query costs more than everything else the entry page and the
    entry API answer do per request; the query is still the selectors' own, so
    the visibility rule is written once.
    """

    _SLUG = "\x00slug\x00"

    def __init__(self, build: Callable[[str], QuerySet[Any, Any]]) -> None:
        self._build = build
        self._compiled: tuple[str, list[Any]] | None = None
        setting_changed.connect(self._forget, weak=False)

    def _forget(self, **_: Any) -> None:
        self._compiled = None

    def first(self, slug: str) -> tuple[Any, ...] | None:
        if self._compiled is None:
            compiled, bound = self._build(self._SLUG)[:1].query.sql_with_params()
            assert list(bound).count(self._SLUG) == 1  # noqa: S101 - the slug is the only one
            self._compiled = (compiled, list(bound))
        sql, params = self._compiled
        with connection.cursor() as cursor:
            cursor.execute(sql, [slug if p == self._SLUG else p for p in params])
            row: tuple[Any, ...] | None = cursor.fetchone()
        return row


_live_page = _Prepared(
    lambda slug: (
        live_versions()
        .filter(slug=slug)
        .values_list("term", "summary", "rendered_html", "live_for__significant_change_at")
    )
)
_live_api_answer = _Prepared(lambda slug: live_versions().filter(slug=slug).values_list("api_json"))


def live_page(slug: str) -> tuple[str, str, str, datetime.datetime | None] | None:
    """What the entry page at /glossary/<slug>/ serves: term, summary, page, last change."""
    row = _live_page.first(slug)
    if row is None:
        return None
    term, summary, page_html, changed = row
    # A raw cursor reads SQLite's datetimes as text; PostgreSQL's arrive converted.
    if changed is not None and not isinstance(changed, datetime.datetime):
        changed = datetime.datetime.fromisoformat(str(changed))
    if changed is not None and timezone.is_naive(changed):
        changed = changed.replace(tzinfo=datetime.UTC)
    return term, summary, page_html, changed


def live_api_answer(slug: str) -> str | None:
    """The API's answer for the live entry at `slug`, rendered when it was published."""
    row = _live_api_answer.first(slug)
    return None if row is None else str(row[0])


def live_version(slug: str) -> EntryVersion | None:
    """The live version at /glossary/<slug>/, with its entry."""
    return live_versions().select_related("live_for").filter(slug=slug).first()


def live_links(entry_ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    """Of these entries, those readers can open: id -> (term, slug) of the live version."""
    ids = list(entry_ids)
    if not ids:
        return {}
    rows = live_versions().filter(entry_id__in=ids).values_list("entry_id", "term", "slug")
    return {entry_id: (term, slug) for entry_id, term, slug in rows}


# The version index that says a live version names an object of each kind.
_INDEX: dict[str, str] = {
    PublicRecord.Kind.EPISODE: "episodes",
    PublicRecord.Kind.PERSON: "people",
    PublicRecord.Kind.ORGANISATION: "organisations",
    PublicRecord.Kind.SOURCE: "sources",
    PublicRecord.Kind.TAG: "tags",
    # A show is named through the episodes of it a version draws on.
    PublicRecord.Kind.SHOW: "episodes__show",
}


def live_versions_naming(kind: str, object_id: int) -> QuerySet[EntryVersion]:
    """The live versions that name one object (a person quoted, an episode drawn on...)."""
    # A semi-join (`pk IN (...)`), not a join made distinct: DISTINCT would compare every
    # selected column, the whole document included, to count and page the rows.
    naming = EntryVersion.objects.filter(**{_INDEX[kind]: object_id}).values("pk")
    return live_versions().filter(pk__in=naming)


def live_versions_naming_any(kind: str, object_ids: Iterable[int]) -> QuerySet[EntryVersion]:
    """The live versions that name any of these objects of one kind."""
    naming = EntryVersion.objects.filter(**{f"{_INDEX[kind]}__in": list(object_ids)})
    return live_versions().filter(pk__in=naming.values("pk"))


def version_index(kind: str) -> str:
    return _INDEX[kind]


def public_records(kind: str) -> QuerySet[PublicRecord]:
    return PublicRecord.objects.filter(kind=kind)


def public_record(kind: str, slug: str) -> PublicRecord | None:
    return public_records(kind).filter(slug=slug).first()


def records_by_id(kind: str, ids: Iterable[int]) -> dict[int, PublicRecord]:
    wanted = set(ids)
    if not wanted:
        return {}
    return {r.object_id: r for r in public_records(kind).filter(object_id__in=wanted)}


def public_episodes() -> QuerySet[PublicRecord]:
    return public_records(PublicRecord.Kind.EPISODE)


def public_episodes_naming(kind: str, object_id: int) -> QuerySet[PublicRecord]:
    """Public episodes whose record names this person or organisation, in list order."""
    return public_episodes().filter(links__kind=kind, links__object_id=object_id).distinct()


def public_people() -> QuerySet[PublicRecord]:
    return public_records(PublicRecord.Kind.PERSON)


def public_organisations() -> QuerySet[PublicRecord]:
    return public_records(PublicRecord.Kind.ORGANISATION)


def public_tags() -> QuerySet[PublicRecord]:
    """Tags live versions carry, each with how many live entries carry it."""
    through = EntryVersion.tags.through
    counts = (
        through.objects.filter(tag_id=OuterRef("object_id"), entryversion__live_for__isnull=False)
        .values("tag_id")
        .annotate(n=Count("*"))
        .values("n")
    )
    return public_records(PublicRecord.Kind.TAG).annotate(entry_count=Subquery(counts))
