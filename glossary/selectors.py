"""What is public: the one visibility rule, seen from every kind of page.

Views, feeds, the sitemap, search and the API all read through these functions
and glossary.listing_reads (the same rule written as SQL, for the reads every list,
search and object page makes), and nothing else. An entry is public while it has a live version
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
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from django.db.models import OuterRef, Q, QuerySet, Subquery

from glossary.models import (
    Entry,
    EntryVersion,
    ListingCount,
    PublicRecord,
    PublicRecordLink,
)
from glossary.prepared import Prepared, aware


def published_entries() -> QuerySet[Entry]:
    return Entry.objects.published()


def live_versions() -> QuerySet[EntryVersion]:
    return EntryVersion.objects.live()


_live_page = Prepared(
    lambda slug: (
        live_versions()
        .filter(slug=slug)
        .values_list("term", "summary", "rendered_html", "live_for__significant_change_at")
    )
)
_live_api_answer = Prepared(lambda slug: live_versions().filter(slug=slug).values_list("api_json"))


def live_page(slug: str) -> tuple[str, str, str, datetime.datetime | None] | None:
    """What the entry page at /glossary/<slug>/ serves: term, summary, page, last change."""
    row = _live_page.first(slug)
    if row is None:
        return None
    term, summary, page_html, changed = row
    return term, summary, page_html, aware(changed)


_live_page_shown = Prepared(
    lambda slug: (
        live_versions()
        .filter(slug=slug)
        .values_list(
            "term",
            "summary",
            "rendered_html",
            "live_for__significant_change_at",
            "listing__show_id",
            "listing__show__slug",
            "listing__show__public_host",
        )
    )
)


class ShownPage(NamedTuple):
    """What a show's site serves at /glossary/<slug>/, and the show the entry is live on
    (its listing's, as published), to send a reader of another show's site there."""

    term: str
    summary: str
    page_html: str
    changed: datetime.datetime | None
    show_id: int | None
    show_slug: str | None
    show_host: str | None


def live_page_shown(slug: str) -> ShownPage | None:
    """`live_page` with the show the live version was published on (one statement)."""
    row = _live_page_shown.first(slug)
    if row is None:
        return None
    term, summary, page_html, changed, show_id, show_slug, show_host = row
    return ShownPage(term, summary, page_html, aware(changed), show_id, show_slug, show_host)


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
    # A show as the version's document names it, never through the desk's episodes: an
    # unpublished move of an episode to another show must not change what withdrawals and
    # `rerender` find, nor take a show's record from readers.
    PublicRecord.Kind.SHOW: "shows",
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


def public_people() -> QuerySet[PublicRecord]:
    return public_records(PublicRecord.Kind.PERSON)


def public_organisations() -> QuerySet[PublicRecord]:
    return public_records(PublicRecord.Kind.ORGANISATION)


def public_tags() -> QuerySet[PublicRecord]:
    """Tags live versions carry, each with how many live entries carry it (kept at publish:
    glossary.listing_index, not counted per tag)."""
    counts = ListingCount.objects.filter(
        kind=PublicRecord.Kind.TAG, object_id=OuterRef("object_id")
    )
    return public_records(PublicRecord.Kind.TAG).annotate(
        entry_count=Subquery(counts.values("live")[:1])
    )


def pages_touched(
    entry_ids: Sequence[int] | None, changed: Iterable[tuple[str, int]] = ()
) -> list[tuple[str, str]]:
    """The episodes, people and organisations, as (kind, slug), whose first page a change
    to these entries and to these public records ((kind, object id)) may have changed
    (glossary.stored_pages.store_first_pages); every one for None.

    The episodes the entries' versions name, changed, of a changed show, or naming a
    changed person or organisation; the people and organisations on those episodes, and
    those the versions name or that changed. Read before the change commits, while a
    deleted entry's versions are still there.
    """
    kinds = [PublicRecord.Kind.EPISODE, PublicRecord.Kind.PERSON, PublicRecord.Kind.ORGANISATION]
    records = PublicRecord.objects.filter(kind__in=kinds)
    if entry_ids is not None:
        by_kind: dict[str, set[int]] = {}
        for kind, object_id in changed:
            by_kind.setdefault(kind, set()).add(object_id)
        Kind = PublicRecord.Kind
        versions = EntryVersion.objects.filter(entry_id__in=entry_ids)
        episodes = Q(kind=Kind.EPISODE, object_id__in=versions.values("episodes")) | Q(
            kind=Kind.EPISODE, object_id__in=by_kind.get(Kind.EPISODE, ())
        )
        if Kind.SHOW in by_kind:
            episodes |= Q(kind=Kind.EPISODE, data__show__in=sorted(by_kind[Kind.SHOW]))
        for kind in (Kind.PERSON, Kind.ORGANISATION):
            if kind in by_kind:
                naming = PublicRecordLink.objects.filter(kind=kind, object_id__in=by_kind[kind])
                episodes |= Q(kind=Kind.EPISODE, id__in=naming.values("record_id"))
        on_episodes = PublicRecordLink.objects.filter(
            record__in=PublicRecord.objects.filter(episodes)
        )
        named = episodes
        for kind, index in ((Kind.PERSON, "people"), (Kind.ORGANISATION, "organisations")):
            named |= (
                Q(kind=kind, object_id__in=versions.values(index))
                | Q(kind=kind, object_id__in=on_episodes.filter(kind=kind).values("object_id"))
                | Q(kind=kind, object_id__in=by_kind.get(kind, ()))
            )
        records = records.filter(named)
    return list(records.order_by("kind", "slug").values_list("kind", "slug"))
