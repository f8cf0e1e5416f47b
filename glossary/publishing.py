"""The publishing model: snapshots of the working copy, and what readers see.

Editors edit `Entry` and its parts freely. `save_version` freezes all of it
into an immutable `EntryVersion`; `publish` makes a version the live one and
renders its page once, so readers never see half-edited work and public
views never re-assemble an entry. See docs/architecture.md.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Max, Prefetch
from django.dispatch import Signal
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.text import slugify

from glossary.markdown import markdown_to_text
from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    EntryRedirect,
    EntryVersion,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    Quote,
    SeeAlso,
    Sponsorship,
)
from glossary.timestamps import format_timestamp

SNAPSHOT_SCHEMA = 1

# Sent after a publish, unpublish or re-render commits; receivers drop caches.
live_content_changed = Signal()

User = AbstractBaseUser | AnonymousUser | None


def _user(user: User) -> Any:
    return user if user is not None and user.is_authenticated else None


def _person(person: Person | None) -> dict[str, Any] | None:
    if person is None:
        return None
    return {"id": person.pk, "name": person.name, "slug": person.slug}


def _organisation(org: Organisation | None) -> dict[str, Any] | None:
    if org is None:
        return None
    return {"id": org.pk, "name": org.name, "slug": org.slug, "url": org.url}


def _episode(episode: Episode | None) -> dict[str, Any] | None:
    if episode is None:
        return None
    return {
        "id": episode.pk,
        "show": {
            "id": episode.show.pk,
            "name": episode.show.name,
            "slug": episode.show.slug,
            "deep_link_style": episode.show.deep_link_style,
        },
        "season": episode.season,
        "number": episode.number,
        "title": episode.title,
        "air_date": episode.air_date.isoformat() if episode.air_date else None,
        "duration": episode.duration,
        "url": episode.url or episode.audio_url,
        "sponsors": [
            {"organisation": _organisation(s.organisation), "read_at": s.read_at}
            for s in episode.sponsorships.all()
        ],
    }


def sponsorship_sentence(episode: Episode) -> str:
    """The seed's sentence, from the episode's data: who sponsored it and where the read is.

    "Episode 28 is a Season 2 episode sponsored by Galileo (intro at 0:05)."
    """
    sponsors = [
        f"{s.organisation.name} (intro at {format_timestamp(s.read_at)})"
        if s.read_at is not None
        else s.organisation.name
        for s in episode.sponsorships.all()
    ]
    if not sponsors:
        return ""
    names = sponsors[0] if len(sponsors) == 1 else ", ".join(sponsors[:-1]) + " and " + sponsors[-1]
    return f"Episode {episode.number} is a Season {episode.season} episode sponsored by {names}."


def _episodes_prefetch(prefix: str) -> Prefetch:
    return Prefetch(
        f"{prefix}episode__sponsorships",
        queryset=Sponsorship.objects.select_related("organisation"),
    )


def snapshot(entry: Entry) -> dict[str, Any]:
    """Everything a reader could see of `entry`, frozen as plain JSON."""
    references = list(
        EpisodeReference.objects.filter(entry=entry)
        .select_related("episode__show", "speaker")
        .prefetch_related(_episodes_prefetch(""))
    )
    disclosures = list(
        Disclosure.objects.filter(entry=entry)
        .select_related("episode__show", "organisation", "person")
        .prefetch_related(_episodes_prefetch(""))
    )
    quotes = list(
        Quote.objects.filter(entry=entry)
        .select_related("episode__show", "speaker")
        .prefetch_related(_episodes_prefetch(""))
    )
    citations = list(Citation.objects.filter(entry=entry).select_related("source", "checked_by"))
    see_also = list(SeeAlso.objects.filter(entry=entry).select_related("target"))
    affiliations = {
        (a.episode_id, a.person_id): a
        for a in Appearance.objects.filter(
            episode__in={q.episode_id for q in quotes} | {r.episode_id for r in references}
        ).select_related("affiliation")
    }

    def disclosure_data(d: Disclosure) -> dict[str, Any]:
        generated = not d.text.strip() and d.kind == Disclosure.Kind.SPONSORSHIP
        text = d.text.strip()
        at = d.at
        at_label = ""
        if generated and d.episode is not None:
            sponsors = list(d.episode.sponsorships.all())
            # The generated sentence carries the read's timestamp as a link.
            text = sponsorship_sentence(d.episode)
            if len(sponsors) == 1 and sponsors[0].read_at is not None:
                text = text.replace(f" (intro at {format_timestamp(sponsors[0].read_at)})", "")
                at, at_label = sponsors[0].read_at, "intro at "
        return {
            "kind": d.kind,
            "text": text,
            "generated": generated,
            "at": at,
            "at_label": at_label,
            "episode": _episode(d.episode),
            "organisation": _organisation(d.organisation),
            "person": _person(d.person),
        }

    attached: dict[int, list[dict[str, Any]]] = {}
    loose: list[dict[str, Any]] = []
    for d in disclosures:
        if d.reference_id:
            attached.setdefault(d.reference_id, []).append(disclosure_data(d))
        else:
            loose.append(disclosure_data(d))

    def affiliation(episode_id: int, person_id: int | None) -> dict[str, Any] | None:
        appearance = affiliations.get((episode_id, person_id)) if person_id else None
        if appearance is None:
            return None
        return _organisation(appearance.affiliation)

    return {
        "schema": SNAPSHOT_SCHEMA,
        "id": entry.pk,
        "term": entry.term,
        "slug": entry.slug,
        "aliases": entry.alias_list(),
        "summary": entry.summary,
        "body": entry.body,
        "tags": sorted(tag.name for tag in entry.tags.all()),
        "references": [
            {
                "episode": _episode(r.episode),
                "at": r.at,
                "speaker": _person(r.speaker),
                "affiliation": affiliation(r.episode_id, r.speaker_id),
                "text": r.text,
                "disclosures": attached.get(r.pk, []),
            }
            for r in references
        ],
        "disclosures": loose,
        "quotes": [
            {
                "episode": _episode(q.episode),
                "speaker": _person(q.speaker),
                "affiliation": affiliation(q.episode_id, q.speaker_id),
                "start": q.start,
                "end": q.end,
                "text": q.text,
                "verbatim": q.verbatim,
                "lightly_edited": q.lightly_edited,
            }
            for q in quotes
        ],
        "citations": [
            {
                "source": {
                    "id": c.source.pk,
                    "url": c.source.url,
                    "title": c.source.title,
                    "publisher": c.source.publisher,
                    "kind": c.source.kind,
                    "archive_url": c.source.archive_url,
                    "archive_date": c.source.archive_date.isoformat()
                    if c.source.archive_date
                    else None,
                    "citation_status": c.source.citation_status,
                },
                "note": c.note,
                "checked_on": c.checked_on.isoformat() if c.checked_on else None,
            }
            for c in citations
        ],
        "see_also": [
            {
                "entry_id": s.target_id,
                "term": s.target.term,
                "slug": s.target.slug,
                "link_text": s.link_text or s.target.term,
                "note": s.note,
            }
            for s in see_also
        ],
    }


def _search_text(data: dict[str, Any]) -> str:
    parts = [*data["aliases"], markdown_to_text(data["body"])]
    parts += [r["text"] for r in data["references"]]
    parts += [q["text"] for q in data["quotes"]]
    return "\n".join(p for p in parts if p)


def _ids(items: list[dict[str, Any] | None]) -> set[int]:
    return {item["id"] for item in items if item}


@transaction.atomic
def save_version(entry: Entry, *, user: User = None, comment: str = "") -> EntryVersion:
    """Freeze the working copy of `entry` as its next version."""
    data = snapshot(entry)
    # Lock the entry row so two saves cannot take the same version number.
    Entry.objects.select_for_update().filter(pk=entry.pk).first()
    number = (entry.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = EntryVersion.objects.create(
        entry=entry,
        number=number,
        created_by=_user(user),
        data=data,
        term=data["term"],
        slug=data["slug"],
        summary=data["summary"],
        search_text=_search_text(data),
        comment=comment,
    )
    episodes = [r["episode"] for r in data["references"]] + [q["episode"] for q in data["quotes"]]
    episodes += [d["episode"] for d in all_disclosures(data)]
    people = [r["speaker"] for r in data["references"]] + [q["speaker"] for q in data["quotes"]]
    people += [d["person"] for d in all_disclosures(data)]
    orgs = [d["organisation"] for d in all_disclosures(data)]
    orgs += [q["affiliation"] for q in data["quotes"]]
    orgs += [r["affiliation"] for r in data["references"]]
    version.episodes.set(_ids(episodes))
    version.people.set(_ids(people))
    version.organisations.set(_ids(orgs))
    version.sources.set({c["source"]["id"] for c in data["citations"]})
    version.tags.set([tag.pk for tag in entry.tags.all()])
    version.see_also_targets.set({s["entry_id"] for s in data["see_also"]})
    return version


@transaction.atomic
def record_edit(entry: Entry, *, user: User, comment: str = "") -> EntryVersion:
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
    return save_version(entry, user=user, comment=comment)


def all_disclosures(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every disclosure in a snapshot: those placed after a reference, then the loose ones."""
    return [d for r in data["references"] for d in r["disclosures"]] + data["disclosures"]


def render_version(version: EntryVersion) -> str:
    """The article HTML of a version, as the public page shows it."""
    from glossary.presentation import article_context

    live = set(
        Entry.objects.published()
        .filter(pk__in=[s["entry_id"] for s in version.data["see_also"]])
        .values_list("pk", flat=True)
    )
    return render_to_string("glossary/_article.html", article_context(version.data, live))


@transaction.atomic
def publish(
    entry: Entry,
    *,
    user: User = None,
    version: EntryVersion | None = None,
    material: bool = True,
    correction_note: str = "",
    comment: str = "",
    now: datetime.datetime | None = None,
) -> EntryVersion:
    """Make `version` (by default a fresh snapshot of the working copy) what readers see."""
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
    version.rendered_html = render_version(version)
    version.save()

    entry.live_version = version
    entry.status = Entry.Status.PUBLISHED
    entry.has_unpublished_changes = False
    entry.first_published_at = entry.first_published_at or now
    entry.last_published_at = now
    if version.is_material or entry.significant_change_at is None:
        entry.significant_change_at = now
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
    _update_redirects(entry, version, previous)
    if previous is None or (previous.term, previous.slug) != (version.term, version.slug):
        rerender_linking(entry)
    transaction.on_commit(lambda: live_content_changed.send(sender=Entry, entry_id=entry.pk))
    return version


def _update_redirects(entry: Entry, version: EntryVersion, previous: EntryVersion | None) -> None:
    if previous is not None and previous.slug != version.slug:
        EntryRedirect.objects.get_or_create(
            slug=previous.slug, entry=entry, kind=EntryRedirect.Kind.OLD_SLUG
        )
    # The live slug is the entry's own address, never a redirect to itself.
    EntryRedirect.objects.filter(entry=entry, slug=version.slug).delete()
    entry.redirects.filter(kind=EntryRedirect.Kind.ALIAS).delete()
    aliases = {slugify(a): a for a in version.data["aliases"] if slugify(a)}
    EntryRedirect.objects.bulk_create(
        EntryRedirect(slug=slug, name=name, kind=EntryRedirect.Kind.ALIAS, entry=entry)
        for slug, name in aliases.items()
        if slug != version.slug
    )


def rerender_linking(entry: Entry) -> None:
    """Re-render live pages whose see-also points at `entry`, now that its state changed."""
    versions = EntryVersion.objects.filter(live_for__isnull=False, see_also_targets=entry)
    for version in versions:
        version.rendered_html = render_version(version)
        version.save(update_fields=["rendered_html"])


@transaction.atomic
def unpublish(entry: Entry, *, user: User = None, archive: bool = False) -> None:
    """Take `entry` off the public site; its versions stay for history and rollback."""
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    entry.live_version = None
    entry.status = Entry.Status.ARCHIVED if archive else Entry.Status.DRAFT
    entry.has_unpublished_changes = True
    entry.save(update_fields=["live_version", "status", "has_unpublished_changes"])
    rerender_linking(entry)
    transaction.on_commit(lambda: live_content_changed.send(sender=Entry, entry_id=entry.pk))


def rerender_all() -> int:
    """Render every live version again (after a template or reference-data change)."""
    count = 0
    for version in EntryVersion.objects.filter(live_for__isnull=False):
        version.rendered_html = render_version(version)
        version.save(update_fields=["rendered_html"])
        count += 1
    transaction.on_commit(lambda: live_content_changed.send(sender=Entry, entry_id=None))
    return count
