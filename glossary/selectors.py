"""What is public: the one visibility rule, seen from every kind of page.

Views, feeds, the sitemap, search and the API all read through these functions
and nothing else. An entry is public while it has a live version
(`Entry.objects.published()`); everything else is public only while a live
version names it:

- an episode, when a live version draws on it;
- a person, when a live version names them (quoted, cited, disclosed, or
  appearing on an episode the version draws on);
- an organisation, when a live version names it (disclosed, sponsoring or
  employing someone on an episode the version draws on);
- a tag, when a live version carries it.

Anything else answers 404, so reference data typed in for a draft stays private.
The versions' cross-reference indexes (EntryVersion.episodes, .people, ...) are
filled from each version's document when it is saved (glossary.publishing).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from taggit.models import Tag

from glossary.models import Entry, EntryVersion, Episode, Organisation, Person


def published_entries() -> QuerySet[Entry]:
    return Entry.objects.published()


def live_versions() -> QuerySet[EntryVersion]:
    return EntryVersion.objects.live()


def live_version(slug: str) -> EntryVersion | None:
    """The live version at /glossary/<slug>/, with its entry."""
    return live_versions().select_related("live_for").filter(slug=slug).first()


def _named_by_a_live_version(index: str, column: str) -> Exists:
    """`Exists` a live version whose index `index` (an m2m of EntryVersion) names the row."""
    through = getattr(EntryVersion, index).through
    return Exists(
        through.objects.filter(
            **{f"{column}_id": OuterRef("pk"), "entryversion__live_for__isnull": False}
        )
    )


def live_links(entry_ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    """Of these entries, those readers can open: id -> (term, slug) of the live version."""
    ids = list(entry_ids)
    if not ids:
        return {}
    rows = live_versions().filter(entry_id__in=ids).values_list("entry_id", "term", "slug")
    return {entry_id: (term, slug) for entry_id, term, slug in rows}


def public_episodes() -> QuerySet[Episode]:
    return Episode.objects.filter(_named_by_a_live_version("episodes", "episode"))


def public_people() -> QuerySet[Person]:
    return Person.objects.filter(_named_by_a_live_version("people", "person"))


def public_organisations() -> QuerySet[Organisation]:
    return Organisation.objects.filter(_named_by_a_live_version("organisations", "organisation"))


def public_tags() -> QuerySet[Tag]:
    """Tags live versions carry, each with how many live entries carry it."""
    tags: QuerySet[Tag] = Tag.objects.filter(_named_by_a_live_version("tags", "tag")).annotate(
        entry_count=Count("entry_versions", filter=Q(entry_versions__live_for__isnull=False))
    )
    return tags


def public_episode_ids() -> QuerySet[Episode, Any]:
    """The public episodes' ids, as a sub-select for filters."""
    return public_episodes().values("pk")
