"""Publishing: freezing the working copy into versions, and what readers see.

Editors edit `Entry` and its parts freely. `save_version` freezes all of it
into an immutable `EntryVersion` whose document (glossary.document) says
everything the entry says; `make_live` makes a version the live one and renders
its whole page once (glossary.entry_page), so readers never see half-edited
work and public views never re-assemble an entry. Nothing here checks who may
publish: editorial.workflow's publishes are the one door, and they call `make_live`
once their checks pass. See docs/architecture.md.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Iterable, Sequence, Set
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Case, F, Max, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.text import slugify

from glossary import api, document, entry_page, listing_rows, records, search, selectors
from glossary import cache as public_cache
from glossary.document import Actor
from glossary.jsonld import LiveLinks
from glossary.models import (
    PUBLISHING_STATE,
    Entry,
    EntryRedirect,
    EntryVersion,
    RecordEdit,
    SiteGeneration,
)
from glossary.signals import live_content_changed


def _user(user: Actor) -> User | None:
    """Who to credit: the signed-in person, or nobody (the demo loader, a script)."""
    return user if isinstance(user, User) and user.is_authenticated else None


@transaction.atomic
def save_version(
    entry: Entry,
    *,
    user: Actor = None,
    comment: str = "",
    doc: document.EntryDocument | None = None,
) -> EntryVersion:
    """Freeze the working copy of `entry` (already built as `doc`, if given) as its next version."""
    return save_versions([(entry, doc)], user=user, comment=comment)[0]


@transaction.atomic
def save_versions(
    items: Sequence[tuple[Entry, document.EntryDocument | None]],
    *,
    user: Actor = None,
    comment: str = "",
) -> list[EntryVersion]:
    """`save_version` for several entries, in the order given, at a fixed number of queries."""
    items = list(items)
    if not items:
        return []
    missing = [entry for entry, doc in items if doc is None]
    built = document.build_many(missing) if missing else {}
    docs = [doc or built[entry.pk] for entry, doc in items]
    pks = sorted({entry.pk for entry, _ in items})
    # Lock the entry rows so two saves cannot take the same version number.
    hold_off_rerender()
    list(Entry.objects.select_for_update().filter(pk__in=pks).order_by("pk").values_list("pk"))
    numbers: dict[int, int] = dict(
        EntryVersion.objects.filter(entry__in=pks)
        .values("entry")
        .annotate(n=Max("number"))
        .values_list("entry", "n")
    )
    versions = []
    for (entry, _), doc in zip(items, docs, strict=True):
        numbers[entry.pk] = numbers.get(entry.pk, 0) + 1
        versions.append(
            EntryVersion(
                entry=entry,
                number=numbers[entry.pk],
                created_by=_user(user),
                # Frozen with the content: moving the working copy to another show changes
                # no public page until a version saved after the move is published.
                show_id=entry.show_id,
                data=doc.dump(),
                term=doc.term,
                slug=doc.slug,
                summary=doc.summary,
                search_text=doc.search_text(),
                search_names=doc.search_names(),
                comment=comment,
            )
        )
    EntryVersion.objects.bulk_create(versions)
    _index_versions(versions, docs)
    return versions


# The version's cross-reference indexes (many-to-many fields) and what fills each.
_INDEXES: dict[str, Callable[[document.Refs], set[int]]] = {
    "shows": lambda refs: refs.shows,
    "episodes": lambda refs: refs.episodes,
    "people": lambda refs: refs.people,
    "organisations": lambda refs: refs.organisations,
    "sources": lambda refs: refs.sources,
    "tags": lambda refs: refs.tags,
    "see_also_targets": lambda refs: refs.see_also,
}


def _index_versions(
    versions: Sequence[EntryVersion], docs: Sequence[document.EntryDocument]
) -> None:
    """Fill the indexes of versions just created: one insert per index, not a read and a
    write per version and index as `.set()` would."""
    refs = [document.referenced(doc) for doc in docs]
    for name, of in _INDEXES.items():
        descriptor = getattr(EntryVersion, name)
        through, field = descriptor.through, descriptor.field
        own, other = f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id"
        through.objects.bulk_create(
            through(**{own: version.pk, other: pk})
            for version, named in zip(versions, refs, strict=True)
            for pk in sorted(of(named))
        )


@transaction.atomic
def record_edit(
    entry: Entry,
    *,
    user: Actor,
    comment: str = "",
    doc: document.EntryDocument | None = None,
) -> EntryVersion:
    """Record a change to the working copy, credited to `user`, as the entry's next version.

    The one place an edit is marked: who and when, "has unpublished changes",
    and a published entry becomes a draft of its next version (readers keep the
    live version until it is published). Every path that changes what an entry
    would show readers calls this: the admin's save, rollback, one-click fixes.
    """
    docs = {entry.pk: doc} if doc is not None else None
    return record_edits([entry], user=user, comment=comment, docs=docs)[0]


@transaction.atomic
def record_edits(
    entries: Iterable[Entry],
    *,
    user: Actor,
    comment: str = "",
    docs: dict[int, document.EntryDocument] | None = None,
) -> list[EntryVersion]:
    """`record_edit` for several entries (each already built as `docs[pk]`, if given), in
    the order given, at a fixed number of queries."""
    entries = list(entries)
    now = timezone.now()
    for entry in entries:
        status = Entry.Status.DRAFT if entry.status == Entry.Status.PUBLISHED else entry.status
        entry.updated_at, entry.updated_by = now, _user(user)
        entry.has_unpublished_changes, entry.status = True, status
    # The same rule on the rows as they are now: an entry archived or withdrawn since the
    # caller read it (the admin reads it before it applies the form) stays so.
    Entry.objects.filter(pk__in=[entry.pk for entry in entries]).update(
        updated_at=now,
        updated_by=_user(user),
        has_unpublished_changes=True,
        status=Case(
            When(status=Entry.Status.PUBLISHED, then=Value(Entry.Status.DRAFT)),
            default=F("status"),
        ),
    )
    given = docs or {}
    versions = save_versions([(e, given.get(e.pk)) for e in entries], user=user, comment=comment)
    _record_renames_in_linking(list(zip(entries, versions, strict=True)), user=user)
    return versions


def _record_renames_in_linking(pairs: list[tuple[Entry, EntryVersion]], *, user: Actor) -> None:
    """An entry never published is named in others' see-also by its working term
    (document.see_also_term). Renaming it changes those entries' documents: record that
    as versions of them, credited to whoever renamed it, so it reaches readers only when
    someone else publishes them (docs/workflow.md)."""
    ids = [entry.pk for entry, _ in pairs]
    published = set(
        EntryVersion.objects.filter(entry__in=ids, published_at__isnull=False).values_list(
            "entry", flat=True
        )
    )
    # Others name a published entry as it was published, which a draft does not change.
    unpublished = [(entry, version) for entry, version in pairs if entry.pk not in published]
    if not unpublished:
        return
    before: dict[int, str] = {}
    for entry_id, term in (
        EntryVersion.objects.filter(entry__in=[entry.pk for entry, _ in unpublished])
        .exclude(pk__in=[version.pk for _, version in pairs])
        .order_by("entry", "-number")
        .values_list("entry", "term")
    ):
        before.setdefault(entry_id, term)
    for entry, version in unpublished:
        old = before.get(entry.pk)
        if old is None or old == version.term:
            continue
        what = f"The entry it links to, “{old}”, was renamed “{version.term}”."
        for other in Entry.objects.filter(see_also__target=entry).exclude(pk=entry.pk).distinct():
            doc = document.build(other)
            latest = other.versions.order_by("-number").values_list("data", flat=True).first()
            if latest is not None and latest != doc.dump():
                record_edit(other, user=user, comment=what, doc=doc)


@transaction.atomic
def record_reference_change(
    kind: str, object_ids: Iterable[int], *, user: Actor, what: str
) -> list[EntryVersion]:
    """A change to shared reference data, recorded in every entry whose page it would change.

    Readers never see reference data as the desk's tables hold it (glossary.records):
    each entry that shows the changed object gets a new version of its working copy,
    credited to `user`, and the change reaches readers only when someone else
    publishes one of them. Entries the change does not alter get no version.
    """
    object_ids = list(object_ids)
    note_record_edits(kind, object_ids, user=user)
    showing = document.entries_showing(kind, object_ids)
    versions: list[EntryVersion] = []
    # A host or a show is named by thousands of entries: built and recorded in batches.
    for start in range(0, len(showing), RENDER_BATCH):
        entries = showing[start : start + RENDER_BATCH]
        docs = document.build_many(entries)
        latest = _latest_data(entries)
        changed = [e for e in entries if latest.get(e.pk) != docs[e.pk].dump()]
        versions += record_edits(changed, user=user, comment=what, docs=docs)
    return versions


def note_record_edits(kind: str, object_ids: Iterable[int], *, user: Actor) -> None:
    """Record that `user` wrote part of these shared records (added or changed them): they
    count as an author of any change that carries the records to readers as they are
    now (editorial.workflow.records_edited_in_change). Nobody is noted for a script."""
    editor = _user(user)
    if editor is not None:
        RecordEdit.objects.bulk_create(
            RecordEdit(kind=kind, object_id=pk, edited_by=editor) for pk in object_ids
        )


def _latest_data(entries: Sequence[Entry]) -> dict[int, Any]:
    """Each entry's newest version's document, as stored, by entry id."""
    newest = EntryVersion.objects.filter(entry=OuterRef("entry")).order_by("-number")
    return dict(
        EntryVersion.objects.filter(entry__in=[e.pk for e in entries])
        .filter(number=Subquery(newest.values("number")[:1]))
        .values_list("entry", "data")
    )


def live_links(doc: document.EntryDocument) -> LiveLinks:
    """The see-also targets of `doc` that readers can open, named as their live versions are."""
    return selectors.live_links(s.entry for s in doc.see_also)


def render_live(version: EntryVersion, entry: Entry) -> None:
    """Render what readers get of `version`, the live version of `entry`: page, API answer
    and its rows in the public lists (glossary.listing_rows).

    The page names people, episodes, sources and tags as their public records do
    (glossary.records): the approved facts, which a later publish may correct.
    """
    _render_many([(version, entry, document.load(version.data))])


def _render_many(items: Sequence[tuple[EntryVersion, Entry, document.EntryDocument]]) -> None:
    """`render_live` for several live versions: the reads shared, one write per version."""
    if not items:
        return
    # Tags as their records name them: a rename published with another entry shows here.
    items = [
        (version, entry, doc)
        for (version, entry, _), doc in zip(
            items, records.with_approved_tags([doc for _, _, doc in items]), strict=True
        )
    ]
    docs = [doc for _, _, doc in items]
    approved = records.approved_facts_each(docs)
    readable = selectors.live_links({s.entry for doc in docs for s in doc.see_also})
    corrections: dict[int, list[tuple[datetime.datetime, str]]] = {}
    for entry_id, published_at, note in (
        EntryVersion.objects.filter(
            entry__in=[entry.pk for _, entry, _ in items], published_at__isnull=False
        )
        .exclude(correction_note="")
        .order_by("-published_at")
        .values_list("entry", "published_at", "correction_note")
    ):
        if published_at is not None:
            corrections.setdefault(entry_id, []).append((published_at, note))
    for (version, entry, doc), facts in zip(items, approved, strict=True):
        links = {s.entry: readable[s.entry] for s in doc.see_also if s.entry in readable}
        version.rendered_html = entry_page.render_page(
            doc,
            facts=facts,
            live_links=links,
            published=entry.first_published_at,
            modified=entry.significant_change_at,
            corrections=corrections.get(entry.pk, []),
        )
        version.api_json = api.entry_detail(
            doc,
            facts=facts,
            live_links=links,
            first_published=entry.first_published_at,
            updated=entry.significant_change_at,
            correction_note=version.correction_note,
        )
    # One statement for the batch's pages and answers (psycopg pipelines its runs), not
    # a save each: a save costs its own compile and round trip.
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {EntryVersion._meta.db_table} SET rendered_html = %s, api_json = %s "  # noqa: S608
            "WHERE id = %s",
            [(version.rendered_html, version.api_json, version.pk) for version, _, _ in items],
        )
    listing_rows.render_many([(v, e, d, f) for (v, e, d), f in zip(items, approved, strict=True)])


def bump_generation() -> None:
    """Mark, in this transaction, that what readers can see has changed (glossary.cache)."""
    now, token = timezone.now(), uuid.uuid4().hex
    if not SiteGeneration.objects.update(token=token, changed_at=now):
        SiteGeneration.objects.create(token=token, changed_at=now)


def _readers_see_a_change(
    entry_ids: Sequence[int] | None, changed: Set[records.Key] = frozenset()
) -> None:
    """`entry_ids`: the entries published or withdrawn, and `changed` the public records
    that changed with them; None when every live page changed."""
    bump_generation()
    # This process forgets its cached pages now, so the rest of the transaction sees
    # fresh ones; every process is told again once the change is committed.
    public_cache.invalidate()
    ids = None if entry_ids is None else tuple(entry_ids)
    entry_id = ids[0] if ids is not None and len(ids) == 1 else None
    # The first pages to store again once committed, found now: a deleted entry's versions
    # are gone by then. Pages are stored on PostgreSQL only (glossary.reference_views).
    pages = None
    if ids is not None:
        stored = connection.vendor == "postgresql"
        pages = selectors.pages_touched(ids, changed) if stored else []
    transaction.on_commit(
        lambda: live_content_changed.send(
            sender=Entry, entry_id=entry_id, entry_ids=ids, pages=pages
        )
    )


@transaction.atomic
def make_live(
    items: Sequence[tuple[Entry, EntryVersion | None]],
    *,
    user: Actor = None,
    material: bool = True,
    correction_note: str = "",
    comment: str = "",
    now: datetime.datetime | None = None,
) -> list[EntryVersion]:
    """Make each version (None: a fresh snapshot of the working copy) what readers see of
    its entry, in one transaction; the result in the order given.

    The make-live step of a publish, and nothing else: it checks no role, state or
    publish check. Only editorial.workflow's publishes call it, after those checks (a
    test holds that no other code does), so readers see only what someone other than
    its author approved.

    What a version says about the people, episodes, organisations, sources and tags it
    names becomes their public record; other live pages that show them are rendered
    again with it. A batch leaves exactly what making them live one after another
    would, at a number of queries that grows by a few per entry instead of by a
    hundred: the public records are refreshed once, each page is rendered once with
    every entry of the batch already live, and the generation token is replaced once.
    """
    now = now or timezone.now()
    items = list(items)
    pks = [entry.pk for entry, _ in items]
    if len(set(pks)) != len(pks):
        raise ValueError("Each entry can be published only once in a batch.")
    entries = _lock_to_publish(pks)
    unsaved = [entry for entry, (_, given) in zip(entries, items, strict=True) if given is None]
    fresh = iter(save_versions([(entry, None) for entry in unsaved], user=user, comment=comment))
    versions = [given if given is not None else next(fresh) for _, given in items]
    pairs = list(zip(entries, versions, strict=True))
    previous = {entry.pk: entry.live_version for entry in entries}
    docs = {version.pk: document.load(version.data) for version in versions}
    _mark_published(
        pairs, previous, user=user, material=material, correction_note=correction_note, now=now
    )
    replaced = [
        old
        for entry, version in pairs
        if (old := previous[entry.pk]) is not None and old.pk != version.pk
    ]
    for version in versions:
        search.index_live(version, docs[version.pk])
    for old in replaced:
        search.unindex(old)

    keys: set[records.Key] = set()
    for old in previous.values():
        if old is not None:
            keys |= records.keys_of(document.load(old.data))
    changed = records.refresh(keys, published=[(version, docs[version.pk]) for version in versions])
    _render_many([(version, entry, docs[version.pk]) for entry, version in pairs])
    batch = {version.pk for version in versions}
    _rerender_showing(changed, besides=batch)
    _update_redirects([(e, v, docs[v.pk], previous[e.pk]) for e, v in pairs])
    renamed = [
        entry
        for entry, version in pairs
        if (old := previous[entry.pk]) is None
        or (old.term, old.slug) != (version.term, version.slug)
    ]
    rerender_linking(renamed, besides=batch)
    _readers_see_a_change(pks, changed)
    return versions


def _lock_to_publish(pks: list[int]) -> list[Entry]:
    """The entries' rows, with their live versions, locked in id order (after waiting for a
    rerender under way), in the order given."""
    hold_off_rerender()
    locked = {
        e.pk: e
        for e in Entry.objects.select_for_update(of=("self",))
        .select_related("live_version")
        .filter(pk__in=pks)
        .order_by("pk")
    }
    if len(locked) != len(pks):
        raise Entry.DoesNotExist("An entry to publish no longer exists.")
    return [locked[pk] for pk in pks]


def _mark_published(
    pairs: list[tuple[Entry, EntryVersion]],
    previous: dict[int, EntryVersion | None],
    *,
    user: Actor,
    material: bool,
    correction_note: str,
    now: datetime.datetime,
) -> None:
    """Make each version its entry's live one, with who published it, when, and whether
    it is a material change (an entry's first publication always is)."""
    for entry, version in pairs:
        first = previous[entry.pk] is None and entry.first_published_at is None
        version.published_at = now
        version.published_by = _user(user)
        version.is_material = material or first
        version.correction_note = correction_note
        entry.live_version = version
        entry.status = Entry.Status.PUBLISHED
        entry.has_unpublished_changes = False
        entry.first_published_at = entry.first_published_at or now
        entry.last_published_at = now
        if version.is_material or entry.significant_change_at is None:
            entry.significant_change_at = now
    versions = [version for _, version in pairs]
    for is_material in (True, False):
        EntryVersion.objects.filter(
            pk__in=[v.pk for v in versions if v.is_material is is_material]
        ).update(
            published_at=now,
            published_by=_user(user),
            is_material=is_material,
            correction_note=correction_note,
        )
    _save_published(pairs, now)


def _save_published(pairs: Sequence[tuple[Entry, EntryVersion]], now: datetime.datetime) -> None:
    """Write what publishing set on the entries (`make_live`): one entry is saved as
    anywhere else (its model signals sent), a batch in one statement."""
    if len(pairs) == 1:
        entry, _ = pairs[0]
        entry.save(update_fields=sorted(PUBLISHING_STATE))
        return
    Entry.objects.filter(pk__in=[entry.pk for entry, _ in pairs]).update(
        live_version=Case(*(When(pk=entry.pk, then=version.pk) for entry, version in pairs)),
        status=Entry.Status.PUBLISHED,
        has_unpublished_changes=False,
        first_published_at=Coalesce(F("first_published_at"), Value(now)),
        last_published_at=now,
        significant_change_at=Case(
            When(pk__in=[e.pk for e, _ in pairs if e.significant_change_at == now], then=now),
            default=F("significant_change_at"),
        ),
    )


def _update_redirects(
    items: Sequence[tuple[Entry, EntryVersion, document.EntryDocument, EntryVersion | None]],
) -> None:
    """Old slugs answer 301 and aliases redirect; an entry's live slug is never a redirect."""
    for entry, version, _, old in items:
        if old is not None and old.slug != version.slug:
            EntryRedirect.objects.get_or_create(
                slug=old.slug, entry=entry, kind=EntryRedirect.Kind.OLD_SLUG
            )
    # The live slug is the entry's own address, never a redirect to itself; the aliases
    # are written again from the version.
    own = {(entry.pk, version.slug) for entry, version, _, _ in items}
    doomed = [
        pk
        for pk, entry_id, slug, kind in EntryRedirect.objects.filter(
            entry__in=[entry.pk for entry, *_ in items]
        )
        .filter(Q(kind=EntryRedirect.Kind.ALIAS) | Q(slug__in=[slug for _, slug in own]))
        .values_list("pk", "entry", "slug", "kind")
        if kind == EntryRedirect.Kind.ALIAS or (entry_id, slug) in own
    ]
    if doomed:
        EntryRedirect.objects.filter(pk__in=doomed).delete()
    # An alias becomes an address only if it fits one (EntryRedirect holds 200
    # characters); the entry form refuses longer ones, older versions may hold them.
    limit = EntryRedirect._meta.get_field("slug").max_length or 200
    EntryRedirect.objects.bulk_create(
        EntryRedirect(slug=slug, name=name, kind=EntryRedirect.Kind.ALIAS, entry=entry)
        for entry, version, doc, _ in items
        for slug, name in {
            slugify(a): a
            for a in doc.aliases
            if slugify(a) and len(slugify(a)) <= limit and len(a) <= limit
        }.items()
        if slug != version.slug
    )


def _rerender(versions: Iterable[EntryVersion]) -> int:
    """Render these live versions (with `live_for`) again, a few hundred at a time."""
    count = 0
    chunk: list[tuple[EntryVersion, Entry, document.EntryDocument]] = []
    for version in versions:
        chunk.append((version, version.live_for, document.load(version.data)))
        if len(chunk) == RENDER_BATCH:
            _render_many(chunk)
            count, chunk = count + len(chunk), []
    _render_many(chunk)
    return count + len(chunk)


RENDER_BATCH = 200


def _rerender_showing(changed: set[records.Key], *, besides: Set[int] = frozenset()) -> None:
    """Render again the live pages that show an object whose public record just changed."""
    by_kind: dict[str, set[int]] = {}
    for kind, object_id in changed:
        by_kind.setdefault(kind, set()).add(object_id)
    ids: set[int] = set()
    for kind, object_ids in by_kind.items():
        ids |= set(
            selectors.live_versions_naming_any(kind, object_ids).values_list("pk", flat=True)
        )
    _rerender(EntryVersion.objects.filter(pk__in=ids - besides).select_related("live_for"))


def rerender_linking(entries: Entry | Sequence[Entry], *, besides: Set[int] = frozenset()) -> None:
    """Re-render live pages whose see-also points at these entries, now that their state
    changed (except the versions in `besides`, rendered already)."""
    targets = [entries] if isinstance(entries, Entry) else list(entries)
    if not targets:
        return
    # A semi-join: a version linking to two of the targets is rendered once.
    naming = EntryVersion.objects.filter(see_also_targets__in=targets).values("pk")
    linking = (
        EntryVersion.objects.live()
        .filter(pk__in=naming)
        .exclude(pk__in=besides)
        .select_related("live_for")
    )
    _rerender(linking)


@transaction.atomic
def unpublish(entry: Entry, *, user: Actor = None, archive: bool = False) -> None:
    """Take `entry` off the public site; its versions stay for history and rollback."""
    hold_off_rerender()
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    withdrawn = entry.live_version
    changed: set[records.Key] = set()
    entry.live_version = None
    entry.status = Entry.Status.ARCHIVED if archive else Entry.Status.DRAFT
    entry.has_unpublished_changes = True
    entry.save(update_fields=["live_version", "status", "has_unpublished_changes"])
    if withdrawn is not None:
        search.unindex(withdrawn)
        changed = records.refresh(records.keys_of(document.load(withdrawn.data)))
        _rerender_showing(changed)
    rerender_linking(entry)
    _readers_see_a_change([entry.pk], changed)


# A transaction-level advisory lock (PostgreSQL): shared by everything that locks entry rows
# for update (publishes, withdrawals, new versions: tag merges, reference changes, the
# admin's save), taken before the first of them; whole by `rerender_all`, before anything.
# A rerender rewrites every listing row, count and public record, and at its commit the
# listing's key takes a share of every live entry's row; a publish holds its entry's row
# and writes a few of those rows, a tag merge locks entries one by one in A–Z order.
# Interleaved, each would wait for the other until PostgreSQL ended one ("deadlock
# detected"). So they wait for a rerender under way, and it for them, each before it
# holds any entry row. SQLite has one writer at a time.
_READERS_LOCK = 0x676C6F7373617279  # any key no other lock uses


def hold_off_rerender() -> None:
    """Before a transaction first locks entry rows for update: wait for a rerender under way
    (a transaction holding the lock already passes at once)."""
    _advisory_lock("pg_advisory_xact_lock_shared")


def _wait_for_publishing() -> None:
    _advisory_lock("pg_advisory_xact_lock")


def _advisory_lock(function: str) -> None:
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [_READERS_LOCK])


@transaction.atomic
def rerender_all() -> int:
    """Bring every public record up to date and render every live page again.

    After a template change, or to apply corrections already published with
    another entry (`manage.py rerender`; every deploy runs it).
    """
    _wait_for_publishing()
    records.refresh(records.all_live_keys())
    records.refresh_links()
    search.reindex_all()
    count = _rerender(EntryVersion.objects.live().select_related("live_for").iterator())
    _readers_see_a_change(None)
    return count
