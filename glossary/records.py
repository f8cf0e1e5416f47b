"""Public records: what readers see of shows, episodes, people, organisations, sources and tags.

Reference data is edited on the desk by anyone and shared by many entries; a
change to it reaches readers only when an entry that shows it is published by
someone who did not make the change (editorial.workflow), because the facts
readers see come from published documents, never from the tables:

- each object named by a live version has one `PublicRecord`, holding the facts
  of the **most recently published** live version that names it;
- `refresh(keys)` recomputes the records of those objects after a version goes
  live or is withdrawn, deleting those no live version names any more;
- `approved_facts(doc)` is what a live page renders with: the records' facts for
  everything the document names. So when a correction is published with one
  entry, every other live page showing the same person is rendered again with
  it (glossary.publishing.publish), and `manage.py rerender` does the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import Q

from glossary import document, selectors
from glossary.document import EntryDocument, Facts
from glossary.models import EntryVersion, PublicRecord, PublicRecordLink

Kind = PublicRecord.Kind
Key = tuple[str, int]


def keys_of(doc: EntryDocument) -> set[Key]:
    """Every object `doc` names, as (kind, id)."""
    keys: set[Key] = {(Kind.SHOW, s.id) for s in doc.shows}
    keys |= {(Kind.EPISODE, e.id) for e in doc.episodes}
    keys |= {(Kind.PERSON, p.id) for p in doc.people}
    keys |= {(Kind.ORGANISATION, o.id) for o in doc.organisations}
    keys |= {(Kind.SOURCE, s.id) for s in doc.sources}
    keys |= {(Kind.TAG, t.id) for t in doc.tags}
    return keys


def _newest_live(kind: str, ids: list[int]) -> dict[int, tuple[int, Any]]:
    """For each id, the (version id, published_at) of the newest live version naming it."""
    index = selectors.version_index(kind)
    rows = EntryVersion.objects.live().filter(**{f"{index}__in": ids})
    if connection.features.can_distinct_on_fields:
        # One row per object (PostgreSQL's DISTINCT ON), not one per live version
        # naming it: a tag on thousands of entries costs as little as a rare one.
        rows = rows.order_by(index, "-published_at", "-pk").distinct(index)
    else:
        rows = rows.order_by("-published_at", "-pk")
    newest: dict[int, tuple[int, Any]] = {}
    for object_id, version_id, published_at in rows.values_list(index, "pk", "published_at"):
        newest.setdefault(object_id, (version_id, published_at))
    return newest


def _record(kind: str, object_id: int, doc: EntryDocument) -> dict[str, Any]:
    """The record fields for one object, from the document that names it."""
    facts = doc.facts
    if kind == Kind.EPISODE:
        episode = facts.episodes[object_id]
        show = facts.shows[episode.show]
        return {
            "slug": f"{show.slug}/{episode.season}/{episode.number}",
            "name": episode.title,
            # Shows A to Z, then newest season and number first.
            "sort_key": f"{show.name.casefold()}|{99999 - episode.season:05}"
            f"|{9999999 - episode.number:07}",
            "data": episode.model_dump(mode="json"),
        }
    fact: document.Show | document.Person | document.Organisation | document.Source
    if kind == Kind.SHOW:
        fact = facts.shows[object_id]
        slug, name = fact.slug, fact.name
    elif kind == Kind.PERSON:
        fact = facts.people[object_id]
        slug, name = fact.slug, fact.name
    elif kind == Kind.ORGANISATION:
        fact = facts.organisations[object_id]
        slug, name = fact.slug, fact.name
    elif kind == Kind.SOURCE:
        fact = facts.sources[object_id]
        slug, name = "", fact.title
    else:
        tag = next(t for t in doc.tags if t.id == object_id)
        return {
            "slug": tag.slug,
            "name": tag.name,
            "sort_key": tag.name.casefold(),
            "data": tag.model_dump(mode="json"),
        }
    return {
        "slug": slug,
        "name": name,
        "sort_key": name.casefold(),
        "data": fact.model_dump(mode="json"),
    }


def refresh(keys: Iterable[Key]) -> set[Key]:
    """Bring the records of these objects in line with the live versions; return what changed."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    for kind, object_id in set(keys):
        by_kind[kind].append(object_id)
    newest = {kind: _newest_live(kind, ids) for kind, ids in by_kind.items()}
    wanted = {v for found in newest.values() for v, _ in found.values()}
    docs = {
        pk: document.load(data)
        for pk, data in EntryVersion.objects.filter(pk__in=wanted).values_list("pk", "data")
    }
    existing: dict[Key, PublicRecord] = {}
    if by_kind:
        condition = Q(pk__in=[])
        for kind, ids in by_kind.items():
            condition |= Q(kind=kind, object_id__in=ids)
        existing = {(r.kind, r.object_id): r for r in PublicRecord.objects.filter(condition)}
    changed: set[Key] = set()
    created: list[PublicRecord] = []
    updated: list[PublicRecord] = []
    gone: list[int] = []
    for kind, ids in by_kind.items():
        for object_id in ids:
            key = (kind, object_id)
            record = existing.get(key)
            if object_id not in newest[kind]:
                if record is not None:
                    gone.append(record.pk)
                    changed.add(key)
                continue
            version_id, published_at = newest[kind][object_id]
            fields = _record(kind, object_id, docs[version_id])
            if record is None:
                created.append(
                    PublicRecord(
                        kind=kind,
                        object_id=object_id,
                        version_id=version_id,
                        published_at=published_at,
                        **fields,
                    )
                )
                changed.add(key)
                continue
            if record.data != fields["data"] or record.slug != fields["slug"]:
                changed.add(key)
            if record.data != fields["data"] or record.version_id != version_id:
                for name, value in fields.items():
                    setattr(record, name, value)
                record.version_id, record.published_at = version_id, published_at
                updated.append(record)
    # A handful of statements whatever the number of objects: publishing an entry
    # that names forty of them is not forty round trips.
    if gone:
        PublicRecord.objects.filter(pk__in=gone).delete()
    if created:
        PublicRecord.objects.bulk_create(created)
    if updated:
        PublicRecord.objects.bulk_update(
            updated, ["slug", "name", "sort_key", "data", "version", "published_at"]
        )
    return changed


def links_of(data: dict[str, Any]) -> set[tuple[str, int]]:
    """Whom an episode record names: its guests and hosts, their employers, its sponsors."""
    named: set[tuple[str, int]] = {
        (Kind.PERSON, int(a["person"])) for a in data.get("appearances", [])
    }
    named |= {
        (Kind.ORGANISATION, int(a["affiliation"]))
        for a in data.get("appearances", [])
        if a.get("affiliation")
    }
    named |= {(Kind.ORGANISATION, int(s["organisation"])) for s in data.get("sponsors", [])}
    return named


def refresh_links(changed: Iterable[Key] | None = None) -> None:
    """Bring the links of these episode records (all, with None) in line with their facts."""
    records = PublicRecord.objects.filter(kind=Kind.EPISODE)
    if changed is not None:
        ids = [object_id for kind, object_id in changed if kind == Kind.EPISODE]
        if not ids:
            return
        records = records.filter(object_id__in=ids)
    rows = list(records.values_list("pk", "data"))
    PublicRecordLink.objects.filter(record_id__in=[pk for pk, _ in rows]).delete()
    PublicRecordLink.objects.bulk_create(
        PublicRecordLink(record_id=pk, kind=kind, object_id=object_id)
        for pk, data in rows
        for kind, object_id in sorted(links_of(data))
    )


def all_live_keys() -> set[Key]:
    keys: set[Key] = set()
    for data in EntryVersion.objects.live().values_list("data", flat=True).iterator():
        keys |= keys_of(document.load(data))
    # Records no live version names any more are found too, and deleted.
    keys |= set(PublicRecord.objects.values_list("kind", "object_id"))
    return keys


def _records(kind: str, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    wanted = list(set(ids))
    if not wanted:
        return {}
    rows = PublicRecord.objects.filter(kind=kind, object_id__in=wanted)
    return dict(rows.values_list("object_id", "data"))


def approved_facts(doc: EntryDocument) -> Facts:
    """The facts a live page shows for what `doc` names: the public records' where they exist."""
    return approved_facts_of([doc])


def approved_facts_of(docs: Iterable[EntryDocument]) -> Facts:
    """The approved facts of everything several documents name, in one read per kind.

    An episode's record may come from a newer version than a document, naming
    sponsors or guests the document does not: their records are read too. Where
    an object has no record yet (the document being published), its own facts
    stand.
    """
    docs = list(docs)
    own = [d.facts for d in docs]
    own_episodes = {pk: f for facts in own for pk, f in facts.episodes.items()}
    episodes = {
        pk: document.Episode.model_validate(data)
        for pk, data in _records(Kind.EPISODE, own_episodes).items()
    }
    episodes = {pk: episodes.get(pk, fact) for pk, fact in own_episodes.items()}
    people_ids = {pk for facts in own for pk in facts.people}
    people_ids |= {a.person for e in episodes.values() for a in e.appearances}
    org_ids = {pk for facts in own for pk in facts.organisations}
    org_ids |= {s.organisation for e in episodes.values() for s in e.sponsors}
    org_ids |= {a.affiliation for e in episodes.values() for a in e.appearances if a.affiliation}
    show_ids = {pk for facts in own for pk in facts.shows} | {e.show for e in episodes.values()}
    source_ids = {pk for facts in own for pk in facts.sources}

    wanted = {
        Kind.SHOW: show_ids,
        Kind.PERSON: people_ids,
        Kind.ORGANISATION: org_ids,
        Kind.SOURCE: source_ids,
    }
    condition = Q(pk__in=[])
    for kind, ids in wanted.items():
        if ids:
            condition |= Q(kind=kind, object_id__in=list(ids))
    found: dict[Key, dict[str, Any]] = {
        (kind, pk): data
        for kind, pk, data in PublicRecord.objects.filter(condition).values_list(
            "kind", "object_id", "data"
        )
    }

    def pick(kind: str, table: str, model: Any) -> dict[int, Any]:
        picked = {pk: model.model_validate(data) for (k, pk), data in found.items() if k == kind}
        for facts in own:
            for pk, fact in getattr(facts, table).items():
                picked.setdefault(pk, fact)
        return picked

    return Facts(
        episodes=episodes,
        shows=pick(Kind.SHOW, "shows", document.Show),
        people=pick(Kind.PERSON, "people", document.Person),
        organisations=pick(Kind.ORGANISATION, "organisations", document.Organisation),
        sources=pick(Kind.SOURCE, "sources", document.Source),
    )
