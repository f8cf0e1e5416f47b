"""Public records: what readers see of shows, episodes, people, organisations, sources and tags.

Reference data is edited on the desk by anyone and shared by many entries; a
change to it reaches readers only when an entry that shows it is published by
someone who did not make the change (editorial.workflow), because the facts
readers see come from published documents, never from the tables:

- each object named by a live version has one `PublicRecord`, holding the facts
  of the **most recently published** version that names it: a live one, or, for the
  kinds in STANDING, the one the record already holds if that was published later (a
  correction published with an entry stands when that entry is withdrawn or deleted;
  only a later publish changes it), except for what FOLLOWING_LIVE names: an episode's
  address, guests and sponsors are always the newest live version's;
- `refresh(keys)` recomputes the records of those objects after a version goes
  live or is withdrawn, deleting those no live version names any more;
- `approved_facts_each(docs)` is what a live page renders with: the records' facts for
  everything each document names. So when a correction is published with one
  entry, every other live page showing the same person is rendered again with
  it (glossary.publishing.make_live), and `manage.py rerender` does the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from glossary import document, selectors
from glossary.document import EntryDocument, Facts
from glossary.models import EntryVersion, ListingName, PublicRecord, PublicRecordLink
from glossary.paths import path_for

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
    if kind == Kind.TAG and len(newest) < len(ids):
        # A tag deleted on the desk takes its index rows with it, while the live versions
        # carrying it show it until they are published again: their listings still name
        # it (glossary.listing_index), so its page stays as long as theirs do. Read from
        # the index alone, `manage.py rerender` would delete the record and change readers'
        # pages with nothing published.
        named = (
            ListingName.objects.filter(
                kind=Kind.TAG,
                object_id__in=[i for i in ids if i not in newest],
                listing__version__live_for__isnull=False,
            )
            .order_by("-listing__version__published_at", "-listing_id")
            .values_list("object_id", "listing_id", "listing__version__published_at")
        )
        for object_id, version_id, published_at in named:
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


def _newest_published(
    published: Sequence[tuple[EntryVersion, EntryDocument]],
) -> dict[Key, tuple[int, Any]] | None:
    """For each object the versions just made live name, the newest of them naming it,
    as `_newest_live` would find it; None when some other live version was published as
    late or later (a back-dated publish), so the database has to be asked."""
    if not published:
        return {}
    earliest = min(version.published_at or timezone.now() for version, _ in published)
    later = (
        EntryVersion.objects.live()
        .exclude(pk__in=[version.pk for version, _ in published])
        .filter(published_at__gte=earliest)
    )
    if later.exists():
        return None
    newest: dict[Key, tuple[int, Any]] = {}
    for version, doc in sorted(published, key=lambda p: (p[0].published_at, p[0].pk)):
        for key in keys_of(doc):
            newest[key] = (version.pk, version.published_at)
    return newest


# The kinds whose records stand (`_later_than_live`): each holds the object's own facts
# (a name, an address, a link; an episode's title, dates and links to listen). An
# episode's record also holds facts that follow the live versions even when its own
# stand (`FOLLOWING_LIVE`): who appeared on it and who sponsored it, links to other
# records (kept after the entry that published them was withdrawn, a guest that entry
# added, hidden once his own record went, would come back on the episode page when
# another entry named him), and its address: its show, season and number, with the
# record's slug and place in lists. An address that stood could point at a show whose
# record had gone, and withdrawing an entry could not render the pages left; the desk's
# episodes may also take an address that stood. Its title stands like any other fact:
# a corrected title stays when the entry that carried the correction is withdrawn.
STANDING = frozenset(
    {Kind.SHOW, Kind.EPISODE, Kind.PERSON, Kind.ORGANISATION, Kind.SOURCE, Kind.TAG}
)


class _Following(NamedTuple):
    fields: tuple[str, ...]
    data: tuple[str, ...]


FOLLOWING_LIVE = {
    Kind.EPISODE.value: _Following(
        fields=("slug", "sort_key"),
        data=("show", "season", "number", "appearances", "sponsors"),
    )
}


def _later_than_live(
    existing: dict[Key, PublicRecord], newest: dict[str, dict[int, tuple[int, Any]]]
) -> tuple[set[Key], dict[Key, tuple[int, Any]]]:
    """Records that hold a later publication than any live version naming their object.

    Such a record (of a kind in STANDING) holds a correction published with an entry
    since withdrawn, or replaced by a version published earlier: it stands (`newest` is
    pointed at the version it holds, so its facts are read again from that version's
    document), and where that version is gone with its entry the record is kept as it
    is (returned). Going back to an older live version's facts would bring back what
    the correction replaced. A record pointing at a version that was not published when
    it says is not believed (an edited export: editorial.exchange) and follows the live
    versions. Returns the records kept as they are, and for those pointed at their own
    version, the live version `newest` said (`refresh` goes back to it if that version's
    document does not name the object: an edited export again).
    """
    later = {
        key: record
        for key, record in existing.items()
        if key[0] in STANDING
        and (live := newest[key[0]].get(key[1])) is not None
        and record.published_at > live[1]
    }
    published = dict(
        EntryVersion.objects.filter(
            pk__in={r.version_id for r in later.values() if r.version_id is not None}
        ).values_list("pk", "published_at")
    )
    kept: set[Key] = set()
    pointed: dict[Key, tuple[int, Any]] = {}
    for (kind, object_id), record in later.items():
        if record.version_id is None:
            kept.add((kind, object_id))
        elif published.get(record.version_id) == record.published_at:
            pointed[(kind, object_id)] = newest[kind][object_id]
            newest[kind][object_id] = (record.version_id, record.published_at)
    return kept, pointed


def refresh(
    keys: Iterable[Key], *, published: Sequence[tuple[EntryVersion, EntryDocument]] = ()
) -> set[Key]:
    """Bring the records of these objects in line with what is published; return what changed.

    `published` are versions made live in this transaction, with their documents:
    everything they name is refreshed too, and, unless another live version was
    published later, from them without asking the database which version is newest.
    The links of the episode records written are kept with them (`refresh_links`).
    """
    keys = set(keys)
    docs = {version.pk: doc for version, doc in published}
    known = _newest_published(published)
    if known is None:
        known = {}
        keys |= {key for _, doc in published for key in keys_of(doc)}
    by_kind: dict[str, list[int]] = defaultdict(list)
    for kind, object_id in keys | set(known):
        by_kind[kind].append(object_id)
    newest = _newest_of(keys, known)
    existing = _lock_records(by_kind)
    kept, pointed = _later_than_live(existing, newest)
    wanted = {v for found in newest.values() for v, _ in found.values()}
    wanted = (wanted | {v for v, _ in pointed.values()}) - set(docs)
    docs |= {
        pk: document.load(data)
        for pk, data in EntryVersion.objects.filter(pk__in=wanted).values_list("pk", "data")
    }
    for (kind, object_id), live in pointed.items():
        if (kind, object_id) not in keys_of(docs[newest[kind][object_id][0]]):
            newest[kind][object_id] = live
    changed: set[Key] = set()
    created: list[PublicRecord] = []
    updated: list[PublicRecord] = []
    moved: dict[tuple[int | None, Any], list[int]] = defaultdict(list)
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
            if key in kept and kind not in FOLLOWING_LIVE:
                continue
            fields, version_id, published_at = _stated(key, record, kept, pointed, newest, docs)
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
            # Its address, name and place in lists can change without its facts (a
            # show renamed moves its episodes), so every field is compared.
            if any(getattr(record, name) != value for name, value in fields.items()):
                for name, value in fields.items():
                    setattr(record, name, value)
                record.version_id, record.published_at = version_id, published_at
                updated.append(record)
            elif record.version_id != version_id:
                # The same facts, stated by a newer version: only the pointer moves.
                moved[(version_id, published_at)].append(record.pk)
    _write_records(gone=gone, created=created, updated=updated, moved=moved)
    # The links copy their episode's place in lists as well as its facts, and a place can
    # change alone (a show renamed): every episode record written is linked again.
    refresh_links(changed | {(r.kind, r.object_id) for r in updated})
    return changed


def _newest_of(
    keys: set[Key], known: dict[Key, tuple[int, Any]]
) -> dict[str, dict[int, tuple[int, Any]]]:
    """The newest live version (id, published_at) naming each object, by kind and id:
    `known` as given, the other `keys` read from the database."""
    asked: dict[str, list[int]] = defaultdict(list)
    for kind, object_id in keys - set(known):
        asked[kind].append(object_id)
    newest: dict[str, dict[int, tuple[int, Any]]] = defaultdict(dict)
    for (kind, object_id), found in known.items():
        newest[kind][object_id] = found
    for kind, ids in asked.items():
        newest[kind].update(_newest_live(kind, ids))
    return newest


def _lock_records(by_kind: dict[str, list[int]]) -> dict[Key, PublicRecord]:
    """The existing records of these objects, locked now, in id order, whatever the
    refresh writes to them: two publishes naming the same people and shows wait for each
    other, never deadlock."""
    if not by_kind:
        return {}
    condition = Q(pk__in=[])
    for kind, ids in by_kind.items():
        condition |= Q(kind=kind, object_id__in=ids)
    rows = PublicRecord.objects.filter(condition).order_by("pk").select_for_update()
    return {(r.kind, r.object_id): r for r in rows}


def _stated(
    key: Key,
    record: PublicRecord | None,
    kept: set[Key],
    pointed: dict[Key, tuple[int, Any]],
    newest: dict[str, dict[int, tuple[int, Any]]],
    docs: dict[int, EntryDocument],
) -> tuple[dict[str, Any], int | None, Any]:
    """What the record of `key` should say, and the version (id, published_at) it says it
    from."""
    kind, object_id = key
    newest_id, published_at = newest[kind][object_id]
    stating = docs[pointed[key][0] if key in pointed else newest_id]
    version_id: int | None = newest_id
    if key in kept and record is not None:
        # Its own facts as they stand, their version gone with its entry; what
        # FOLLOWING_LIVE names (below) follows the newest live version.
        fields = _stored(record)
        version_id, published_at = record.version_id, record.published_at
    else:
        fields = _record(kind, object_id, docs[newest_id])
    if kind in FOLLOWING_LIVE:
        stated = _record(kind, object_id, stating)
        following = FOLLOWING_LIVE[kind]
        for name in following.fields:
            fields[name] = stated[name]
        for name in following.data:
            fields["data"][name] = stated["data"][name]
    return fields, version_id, published_at


def _write_records(
    *,
    gone: list[int],
    created: list[PublicRecord],
    updated: list[PublicRecord],
    moved: dict[tuple[int | None, Any], list[int]],
) -> None:
    """A handful of statements whatever the number of objects: publishing an entry that
    names forty of them is not forty round trips."""
    if gone:
        PublicRecord.objects.filter(pk__in=gone).delete()
    if created:
        PublicRecord.objects.bulk_create(created)
    if updated:
        PublicRecord.objects.bulk_update(
            updated, ["slug", "name", "sort_key", "data", "version", "published_at"]
        )
    for (version_id, published_at), pks in moved.items():
        PublicRecord.objects.filter(pk__in=pks).update(
            version_id=version_id, published_at=published_at
        )


def _stored(record: PublicRecord) -> dict[str, Any]:
    """A record's fields as `_record` gives them, read from the record itself."""
    return {
        "slug": record.slug,
        "name": record.name,
        "sort_key": record.sort_key,
        "data": dict(record.data),
    }


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


def link_facts(kind: str, object_id: int, episode: PublicRecord) -> dict[str, Any]:
    """What the page of the person or organisation `object_id` shows of `episode` (its
    public record): the episode as a link (`anchor`, rendered here as list rows are, and
    its `path`), its number, and the person's roles and employers there, or the
    organisation's sponsor reads (their timestamps), the people who spoke for it (id and
    job title) and what a read's link needs (the episode's addresses, its show).

    Only ids and the episode's own facts: the names of the people, organisations and
    show are read from their own records when the page is served.
    """
    data = episode.data
    path = path_for("glossary:episode", *episode.slug.split("/"))
    shown = {
        "number": data["number"],
        "path": path,
        "anchor": f'<a href="{escape(path)}">Episode {data["number"]}: '
        f"<cite>{escape(episode.name)}</cite></a>",
    }
    appearances = data.get("appearances", [])
    if kind == Kind.PERSON:
        shown["roles"] = [
            [a["role"], a.get("affiliation")] for a in appearances if a["person"] == object_id
        ]
        return shown
    return shown | {
        "show": data["show"],
        "url": data.get("url", ""),
        "audio_url": data.get("audio_url", ""),
        "reads": [s["read_at"] for s in data.get("sponsors", []) if s["organisation"] == object_id],
        "people": [
            [a["person"], a.get("title", "")]
            for a in appearances
            if a.get("affiliation") == object_id
        ],
    }


def refresh_links(changed: Iterable[Key] | None = None) -> None:
    """Bring the links of these episode records (all, with None) in line with their facts."""
    records = PublicRecord.objects.filter(kind=Kind.EPISODE)
    if changed is not None:
        ids = [object_id for kind, object_id in changed if kind == Kind.EPISODE]
        if not ids:
            return
        records = records.filter(object_id__in=ids)
    episodes = list(records.only("pk", "slug", "name", "data", "sort_key"))
    PublicRecordLink.objects.filter(record_id__in=[e.pk for e in episodes]).delete()
    PublicRecordLink.objects.bulk_create(
        PublicRecordLink(
            record_id=episode.pk,
            kind=kind,
            object_id=object_id,
            sort_key=episode.sort_key,
            facts=link_facts(kind, object_id, episode),
        )
        for episode in episodes
        for kind, object_id in sorted(links_of(episode.data))
    )


def all_live_keys() -> set[Key]:
    keys: set[Key] = set()
    for data in EntryVersion.objects.live().values_list("data", flat=True).iterator():
        keys |= keys_of(document.load(data))
    # Records no live version names any more are found too, and deleted.
    keys |= set(PublicRecord.objects.values_list("kind", "object_id"))
    return keys


def not_as_readers_see(
    items: Sequence[tuple[EntryDocument, set[Key]]],
) -> list[dict[Key, str]]:
    """For each document and some of the objects it names, those whose facts in it are
    not what readers see (no public record, or one stating other facts): what publishing
    it would show readers anew, by key, with the object's name as the document gives it.
    One read of the records for all of them."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for _, keys in items:
        for kind, object_id in keys:
            wanted[kind].add(object_id)
    condition = Q(pk__in=[])
    for kind, ids in wanted.items():
        condition |= Q(kind=kind, object_id__in=sorted(ids))
    seen: dict[Key, Any] = {
        (kind, object_id): data
        for kind, object_id, data in PublicRecord.objects.filter(condition).values_list(
            "kind", "object_id", "data"
        )
    }
    out: list[dict[Key, str]] = []
    for doc, keys in items:
        anew: dict[Key, str] = {}
        for key in sorted(keys):
            fields = _record(key[0], key[1], doc)
            if seen.get(key) != fields["data"]:
                anew[key] = fields["name"]
        out.append(anew)
    return out


def _records(kind: str, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    wanted = list(set(ids))
    if not wanted:
        return {}
    rows = PublicRecord.objects.filter(kind=kind, object_id__in=wanted)
    return dict(rows.values_list("object_id", "data"))


def with_approved_tags(docs: Sequence[EntryDocument]) -> list[EntryDocument]:
    """Each document with its tags named as their public records name them, in one read.

    Tags are not facts of the document's (glossary.document.Facts) but are shared
    the same way: a tag renamed and published with one entry is renamed on every live
    page that carries it, as a corrected person is. A tag with no record yet (the
    document being published) keeps its own name.
    """
    ids = {tag.id for doc in docs for tag in doc.tags}
    if not ids:
        return list(docs)
    approved = {
        object_id: document.Tag.model_validate(data)
        for object_id, data in PublicRecord.objects.filter(
            kind=Kind.TAG, object_id__in=sorted(ids)
        ).values_list("object_id", "data")
    }
    return [
        doc.model_copy(update={"tags": [approved.get(tag.id, tag) for tag in doc.tags]})
        if any(approved.get(tag.id, tag) != tag for tag in doc.tags)
        else doc
        for doc in docs
    ]


def approved_facts_each(docs: Sequence[EntryDocument]) -> list[Facts]:
    """The facts a live page shows for what each document names, in the order given: the
    public records' where they exist, with the records read once."""
    return _approved([[doc] for doc in docs])


def _approved(groups: Sequence[Sequence[EntryDocument]]) -> list[Facts]:
    """The approved facts of everything each group of documents names; every record is
    read and validated once.

    An episode's record may come from a newer version than a document, naming
    sponsors or guests the document does not: their records are read too. Where
    an object has no record yet (the document being published), its own facts
    stand.
    """
    own_episodes = [
        {pk: f for doc in group for pk, f in doc.facts.episodes.items()} for group in groups
    ]
    episode_records = {
        pk: document.Episode.model_validate(data)
        for pk, data in _records(Kind.EPISODE, {pk for e in own_episodes for pk in e}).items()
    }
    wanted: list[dict[str, set[int]]] = []
    for group, own in zip(groups, own_episodes, strict=True):
        episodes = [episode_records.get(pk, fact) for pk, fact in own.items()]
        facts = [doc.facts for doc in group]
        people = {pk for f in facts for pk in f.people}
        people |= {a.person for e in episodes for a in e.appearances}
        orgs = {pk for f in facts for pk in f.organisations}
        orgs |= {s.organisation for e in episodes for s in e.sponsors}
        orgs |= {a.affiliation for e in episodes for a in e.appearances if a.affiliation}
        wanted.append(
            {
                Kind.SHOW: {pk for f in facts for pk in f.shows} | {e.show for e in episodes},
                Kind.PERSON: people,
                Kind.ORGANISATION: orgs,
                Kind.SOURCE: {pk for f in facts for pk in f.sources},
            }
        )
    condition = Q(pk__in=[])
    for kind in (Kind.SHOW, Kind.PERSON, Kind.ORGANISATION, Kind.SOURCE):
        ids = {pk for w in wanted for pk in w[kind]}
        if ids:
            condition |= Q(kind=kind, object_id__in=sorted(ids))
    models: dict[str, Any] = {
        Kind.SHOW: document.Show,
        Kind.PERSON: document.Person,
        Kind.ORGANISATION: document.Organisation,
        Kind.SOURCE: document.Source,
    }
    found: dict[Key, Any] = {
        (kind, pk): models[kind].model_validate(data)
        for kind, pk, data in PublicRecord.objects.filter(condition).values_list(
            "kind", "object_id", "data"
        )
    }

    def pick(
        group: Sequence[EntryDocument], want: dict[str, set[int]], kind: str, table: str
    ) -> dict[int, Any]:
        picked = {pk: found[(kind, pk)] for pk in want[kind] if (kind, pk) in found}
        for doc in group:
            for pk, fact in getattr(doc.facts, table).items():
                picked.setdefault(pk, fact)
        return picked

    return [
        Facts(
            episodes={pk: episode_records.get(pk, fact) for pk, fact in own.items()},
            shows=pick(group, want, Kind.SHOW, "shows"),
            people=pick(group, want, Kind.PERSON, "people"),
            organisations=pick(group, want, Kind.ORGANISATION, "organisations"),
            sources=pick(group, want, Kind.SOURCE, "sources"),
        )
        for group, own, want in zip(groups, own_episodes, wanted, strict=True)
    ]
