"""Publishing: freezing the working copy into versions, and what readers see.

Editors edit `Entry` and its parts freely. `save_version` freezes all of it
into an immutable `EntryVersion` whose document (glossary.document) says
everything the entry says; `publish` makes a version the live one and renders
its whole page once (glossary.entry_page), so readers never see half-edited
work and public views never re-assemble an entry. See docs/architecture.md.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from glossary import api, document, entry_page, list_rows, records, search, selectors
from glossary import cache as public_cache
from glossary.document import Actor
from glossary.jsonld import LiveLinks
from glossary.models import Entry, EntryRedirect, EntryVersion, SiteGeneration
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
    doc = doc or document.build(entry)
    # Lock the entry row so two saves cannot take the same version number.
    Entry.objects.select_for_update().filter(pk=entry.pk).first()
    number = (entry.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = EntryVersion.objects.create(
        entry=entry,
        number=number,
        created_by=_user(user),
        data=doc.dump(),
        term=doc.term,
        slug=doc.slug,
        summary=doc.summary,
        search_text=doc.search_text(),
        search_names=doc.search_names(),
        comment=comment,
    )
    refs = document.referenced(doc)
    version.episodes.set(refs.episodes)
    version.people.set(refs.people)
    version.organisations.set(refs.organisations)
    version.sources.set(refs.sources)
    version.tags.set(refs.tags)
    version.see_also_targets.set(refs.see_also)
    return version


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
    status = Entry.Status.DRAFT if entry.status == Entry.Status.PUBLISHED else entry.status
    now = timezone.now()
    Entry.objects.filter(pk=entry.pk).update(
        updated_at=now, updated_by=_user(user), has_unpublished_changes=True, status=status
    )
    entry.updated_at, entry.updated_by = now, _user(user)
    entry.has_unpublished_changes, entry.status = True, status
    version = save_version(entry, user=user, comment=comment, doc=doc)
    _record_rename_in_linking(entry, version, user=user)
    return version


def _record_rename_in_linking(entry: Entry, version: EntryVersion, *, user: Actor) -> None:
    """An entry never published is named in others' see-also by its working term
    (document.see_also_term). Renaming it changes those entries' documents: record that
    as versions of them, credited to whoever renamed it, so it reaches readers only when
    someone else publishes them (docs/workflow.md)."""
    if entry.versions.filter(published_at__isnull=False).exists():
        return  # others name it as it was published, which a draft does not change
    before = (
        entry.versions.filter(number__lt=version.number)
        .order_by("-number")
        .values_list("term", flat=True)
        .first()
    )
    if before is None or before == version.term:
        return
    what = f"The entry it links to, “{before}”, was renamed “{version.term}”."
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
    versions = []
    for entry in document.entries_showing(kind, object_ids):
        doc = document.build(entry)
        latest = entry.versions.order_by("-number").values_list("data", flat=True).first()
        if latest != doc.dump():
            versions.append(record_edit(entry, user=user, comment=what, doc=doc))
    return versions


def live_links(doc: document.EntryDocument) -> LiveLinks:
    """The see-also targets of `doc` that readers can open, named as their live versions are."""
    return selectors.live_links(s.entry for s in doc.see_also)


def render_live(version: EntryVersion, entry: Entry) -> None:
    """Render what readers get of `version`, the live version of `entry`: page, API answer
    and its rows in the public lists (glossary.list_rows).

    The page names people, episodes and sources as their public records do
    (glossary.records): the approved facts, which a later publish may correct.
    """
    doc = document.load(version.data)
    facts = records.approved_facts(doc)
    links = live_links(doc)
    corrections = [
        (published_at, note)
        for published_at, note in entry.versions.filter(published_at__isnull=False)
        .exclude(correction_note="")
        .order_by("-published_at")
        .values_list("published_at", "correction_note")
        if published_at is not None
    ]
    version.rendered_html = entry_page.render_page(
        doc,
        facts=facts,
        live_links=links,
        published=entry.first_published_at,
        modified=entry.significant_change_at,
        corrections=corrections,
    )
    version.api_json = api.entry_detail(
        doc,
        facts=facts,
        live_links=links,
        first_published=entry.first_published_at,
        updated=entry.significant_change_at,
        correction_note=version.correction_note,
    )
    version.save(update_fields=["rendered_html", "api_json"])
    list_rows.render_live(version, entry, doc, facts)


def bump_generation() -> None:
    """Mark, in this transaction, that what readers can see has changed (glossary.cache)."""
    now, token = timezone.now(), uuid.uuid4().hex
    if not SiteGeneration.objects.update(token=token, changed_at=now):
        SiteGeneration.objects.create(token=token, changed_at=now)


def _readers_see_a_change(entry_id: int | None) -> None:
    bump_generation()
    # This process forgets its cached pages now, so the rest of the transaction sees
    # fresh ones; every process is told again once the change is committed.
    public_cache.invalidate()
    transaction.on_commit(lambda: live_content_changed.send(sender=Entry, entry_id=entry_id))


@transaction.atomic
def publish(
    entry: Entry,
    *,
    user: Actor = None,
    version: EntryVersion | None = None,
    material: bool = True,
    correction_note: str = "",
    comment: str = "",
    now: datetime.datetime | None = None,
) -> EntryVersion:
    """Make `version` (by default a fresh snapshot of the working copy) what readers see.

    What the version says about the people, episodes, organisations, sources
    and tags it names becomes their public record; other live pages that show
    them are rendered again with it.
    """
    now = now or timezone.now()
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    previous = entry.live_version
    if version is None:
        version = save_version(entry, user=user, comment=comment)
    first = previous is None and entry.first_published_at is None
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
    version.save()
    entry.save(
        update_fields=[
            "live_version",
            "status",
            "has_unpublished_changes",
            "first_published_at",
            "last_published_at",
            "significant_change_at",
        ]
    )
    search.index_live(version)
    if previous is not None and previous.pk != version.pk:
        search.unindex(previous)
    keys = records.keys_of(document.load(version.data))
    if previous is not None:
        keys |= records.keys_of(document.load(previous.data))
    changed = records.refresh(keys)
    records.refresh_links(changed)
    render_live(version, entry)
    _rerender_showing(changed, besides=version)
    _update_redirects(entry, version, previous)
    if previous is None or (previous.term, previous.slug) != (version.term, version.slug):
        rerender_linking(entry)
    _readers_see_a_change(entry.pk)
    return version


def _update_redirects(entry: Entry, version: EntryVersion, previous: EntryVersion | None) -> None:
    if previous is not None and previous.slug != version.slug:
        EntryRedirect.objects.get_or_create(
            slug=previous.slug, entry=entry, kind=EntryRedirect.Kind.OLD_SLUG
        )
    # The live slug is the entry's own address, never a redirect to itself.
    EntryRedirect.objects.filter(entry=entry, slug=version.slug).delete()
    entry.redirects.filter(kind=EntryRedirect.Kind.ALIAS).delete()
    # An alias becomes an address only if it fits one (EntryRedirect holds 200
    # characters); the entry form refuses longer ones, older versions may hold them.
    limit = EntryRedirect._meta.get_field("slug").max_length or 200
    aliases = {
        slugify(a): a
        for a in document.load(version.data).aliases
        if slugify(a) and len(slugify(a)) <= limit and len(a) <= limit
    }
    EntryRedirect.objects.bulk_create(
        EntryRedirect(slug=slug, name=name, kind=EntryRedirect.Kind.ALIAS, entry=entry)
        for slug, name in aliases.items()
        if slug != version.slug
    )


def _rerender(versions: Iterable[EntryVersion]) -> int:
    count = 0
    for version in versions:
        render_live(version, version.live_for)
        count += 1
    return count


def _rerender_showing(changed: set[records.Key], *, besides: EntryVersion | None = None) -> None:
    """Render again the live pages that show an object whose public record just changed."""
    ids: set[int] = set()
    for kind, object_id in changed:
        ids |= set(selectors.live_versions_naming(kind, object_id).values_list("pk", flat=True))
    if besides is not None:
        ids.discard(besides.pk)
    _rerender(EntryVersion.objects.filter(pk__in=ids).select_related("live_for"))


def rerender_linking(entry: Entry) -> None:
    """Re-render live pages whose see-also points at `entry`, now that its state changed."""
    _rerender(EntryVersion.objects.live().filter(see_also_targets=entry).select_related("live_for"))


@transaction.atomic
def unpublish(entry: Entry, *, user: Actor = None, archive: bool = False) -> None:
    """Take `entry` off the public site; its versions stay for history and rollback."""
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    withdrawn = entry.live_version
    entry.live_version = None
    entry.status = Entry.Status.ARCHIVED if archive else Entry.Status.DRAFT
    entry.has_unpublished_changes = True
    entry.save(update_fields=["live_version", "status", "has_unpublished_changes"])
    if withdrawn is not None:
        search.unindex(withdrawn)
        changed = records.refresh(records.keys_of(document.load(withdrawn.data)))
        records.refresh_links(changed)
        _rerender_showing(changed)
    rerender_linking(entry)
    _readers_see_a_change(entry.pk)


@transaction.atomic
def rerender_all() -> int:
    """Bring every public record up to date and render every live page again.

    After a template change, or to apply corrections already published with
    another entry (`manage.py rerender`; every deploy runs it).
    """
    records.refresh(records.all_live_keys())
    records.refresh_links()
    search.reindex_all()
    count = _rerender(EntryVersion.objects.live().select_related("live_for").iterator())
    _readers_see_a_change(None)
    return count
