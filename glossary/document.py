"""The published document: everything one version of an entry says, typed, in one module.

A version (`EntryVersion.data`) is an `EntryDocument`: the entry's own text and
parts, plus the facts about the episodes, shows, people, organisations and
sources those parts name, as they stood when the version was saved. It holds
facts, never generated text: the sponsorship sentence, "intro at" labels and
timestamps as "25:38" are derived when the page is rendered
(glossary.entry_page), so a version can be written back into the working copy
exactly (`write_back`, for rollback) and compared line by line.

The document is a pydantic model: `load` checks the schema version first and
then validates every field, so a stored version that does not match the code
fails loudly instead of rendering half a page. A migration upgrades stored
versions when the schema changes (glossary/migrations/0005_document_schema_2.py).

Why pydantic rather than dataclasses or TypedDicts: reading a stored version
needs validation with clear errors (a JSON blob could be from an older schema or
hand-edited), and the public API's schemas (django-ninja) are pydantic models
too, so one library describes both.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from django.contrib.auth.models import AnonymousUser, User
from django.contrib.contenttypes.models import ContentType
from django.db.models import OuterRef, Prefetch, Q, Subquery
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, ValidationError
from taggit.models import Tag as TagRow
from taggit.models import TaggedItem

from glossary import episode_transcripts
from glossary import models as m
from glossary.markdown import markdown_to_text
from glossary.transcripts.parse import Transcript as ParsedTranscript

SCHEMA_VERSION = 2


class DocumentError(ValueError):
    """A stored document this code cannot read; the message says why."""


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- Facts about what the entry's parts name --------------------------------------------


class Show(_Part):
    id: int
    name: str
    slug: str
    deep_link_style: str


class Sponsor(_Part):
    organisation: int
    read_at: int | None


class Appearance(_Part):
    person: int
    role: str
    affiliation: int | None
    title: str = ""


class Episode(_Part):
    id: int
    show: int
    season: int
    number: int
    title: str
    air_date: datetime.date | None
    duration: int | None
    url: str
    audio_url: str
    sponsors: list[Sponsor]
    appearances: list[Appearance]

    @property
    def listen_url(self) -> str:
        """The address a timestamp link opens: the episode page, else its audio."""
        return self.url or self.audio_url


class Person(_Part):
    id: int
    name: str
    slug: str


class Organisation(_Part):
    id: int
    name: str
    slug: str
    url: str


class Source(_Part):
    id: int
    url: str
    title: str
    publisher: str
    kind: str
    archive_url: str
    archive_date: datetime.date | None
    citation_status: str


class Tag(_Part):
    id: int
    name: str
    slug: str


# --- The entry's own parts ---------------------------------------------------------------


class Disclosure(_Part):
    kind: str
    # As the editor wrote it; empty on a sponsorship means "the sentence made from the
    # episode's sponsor records".
    text: str
    at: int | None
    episode: int | None
    organisation: int | None
    person: int | None

    @property
    def derived(self) -> bool:
        return not self.text.strip() and self.kind == m.Disclosure.Kind.SPONSORSHIP


class Reference(_Part):
    episode: int
    at: int
    speaker: int | None
    text: str
    disclosures: list[Disclosure]


class TranscriptCheck(_Part):
    """What checking a quote against its episode's transcript found when the version was
    saved (glossary.episode_transcripts): the verdict readers are told, and for a match
    the verbatim transcript around it. Frozen with the version, so readers see the check
    the reviewer saw, never the transcript tables."""

    verdict: str
    found_at: int | None
    score: float
    speaker_agrees: bool | None
    passage: str = ""

    @property
    def verified(self) -> bool:
        """Found at its timestamp, and the transcript names no other speaker."""
        return self.verdict == "match" and self.speaker_agrees is not False


class Quote(_Part):
    episode: int
    speaker: int
    start: int
    end: int | None
    text: str
    verbatim: str
    lightly_edited: bool
    # Added within schema 2 with a default: documents saved before it read as unchecked.
    check: TranscriptCheck | None = None


class Citation(_Part):
    source: int
    note: str
    checked_on: datetime.date | None
    # What the source said when the citation was confirmed (the desk writes it at
    # confirmation), and whether, when this version was saved, the page had changed
    # since then or its link was broken: readers see the excerpt only then (or when
    # the published source is dead). Defaults keep older schema-2 documents readable.
    excerpt: str = ""
    excerpt_on: datetime.date | None = None
    source_changed: bool = False


class SeeAlso(_Part):
    entry: int
    # The target's name when this version was saved: its live term if it had one, else
    # the term it was last published under, else (never published) its working term.
    # Readers see it only while the target has no live version (as plain text).
    term: str
    # As the editor typed it; empty means the target's name.
    link_text: str
    note: str


class EntryDocument(_Part):
    schema_version: Literal[2]
    id: int
    term: str
    slug: str
    aliases: list[str]
    summary: str
    body: str
    tags: list[Tag]
    references: list[Reference]
    # Disclosures not attached to an episode reference.
    disclosures: list[Disclosure]
    quotes: list[Quote]
    citations: list[Citation]
    see_also: list[SeeAlso]
    episodes: list[Episode]
    shows: list[Show]
    people: list[Person]
    organisations: list[Organisation]
    sources: list[Source]

    @cached_property
    def facts(self) -> Facts:
        return Facts.of(self)

    def all_disclosures(self) -> list[Disclosure]:
        """Every disclosure: those placed after a reference, then the loose ones."""
        return [d for r in self.references for d in r.disclosures] + list(self.disclosures)

    def search_text(self) -> str:
        """Aliases, body text, references and quotes as plain text, for search."""
        parts = [*self.aliases, markdown_to_text(self.body)]
        parts += [r.text for r in self.references]
        parts += [q.text for q in self.quotes]
        return "\n".join(p for p in parts if p)

    def search_names(self) -> str:
        """The term and its aliases, one a line: what a misspelt search is matched against."""
        return "\n".join([self.term, *self.aliases])

    def search_fields(self) -> dict[str, str]:
        """What search indexes, by weight: term, aliases, summary, body and references, quotes."""
        body = [markdown_to_text(self.body), *(r.text for r in self.references)]
        return {
            "term": self.term,
            "aliases": "\n".join(self.aliases),
            "summary": self.summary,
            "body": "\n".join(p for p in body if p),
            "quotes": "\n".join(q.text for q in self.quotes),
        }

    def dump(self) -> dict[str, Any]:
        """The JSON stored in EntryVersion.data."""
        return self.model_dump(mode="json")


@dataclass(frozen=True)
class Facts:
    """The facts a document names, by id, for rendering and lookups."""

    episodes: dict[int, Episode]
    shows: dict[int, Show]
    people: dict[int, Person]
    organisations: dict[int, Organisation]
    sources: dict[int, Source]

    @classmethod
    def of(cls, doc: EntryDocument) -> Facts:
        return cls(
            episodes={e.id: e for e in doc.episodes},
            shows={s.id: s for s in doc.shows},
            people={p.id: p for p in doc.people},
            organisations={o.id: o for o in doc.organisations},
            sources={s.id: s for s in doc.sources},
        )

    def affiliation(self, episode: int, person: int | None) -> Organisation | None:
        """Whom `person` spoke for on `episode`, as its appearances record it."""
        if person is None:
            return None
        for appearance in self.episodes[episode].appearances:
            if appearance.person == person and appearance.affiliation is not None:
                return self.organisations.get(appearance.affiliation)
        return None


@dataclass(frozen=True)
class Refs:
    """The ids of every row a document names: the version's public cross-reference indexes."""

    shows: set[int]
    episodes: set[int]
    people: set[int]
    organisations: set[int]
    sources: set[int]
    tags: set[int]
    see_also: set[int]


def referenced(doc: EntryDocument) -> Refs:
    return Refs(
        shows={s.id for s in doc.shows},
        episodes={e.id for e in doc.episodes},
        people={p.id for p in doc.people},
        organisations={o.id for o in doc.organisations},
        sources={s.id for s in doc.sources},
        tags={t.id for t in doc.tags},
        see_also={s.entry for s in doc.see_also},
    )


def load(data: Any) -> EntryDocument:
    """A stored document, checked: the schema version first, then every field."""
    if not isinstance(data, dict):
        raise DocumentError(f"A version's document must be a JSON object, not {type(data)}.")
    found = data.get("schema_version", data.get("schema"))
    if found != SCHEMA_VERSION:
        raise DocumentError(
            f"This version's document has schema {found!r}; this code reads schema "
            f"{SCHEMA_VERSION}. Run `manage.py migrate` to upgrade stored versions."
        )
    try:
        return EntryDocument.model_validate(data)
    except ValidationError as exc:
        raise DocumentError(f"This version's document does not match schema 2: {exc}") from exc


# --- Building a document from the working copy ------------------------------------------


def build(entry: m.Entry) -> EntryDocument:
    """Everything a reader could see of `entry`'s working copy, as a document.

    A fixed number of queries, whatever the size of the entry.
    """
    return build_many([entry])[entry.pk]


def _grouped(rows: Iterable[Any]) -> dict[int, list[Any]]:
    out: dict[int, list[Any]] = {}
    for row in rows:
        out.setdefault(row.entry_id, []).append(row)
    return out


def build_many(entries: Iterable[m.Entry]) -> dict[int, EntryDocument]:
    """`build` for several entries, by entry id, at the same fixed number of queries.

    The entries' own fields (term, summary, body...) come from the objects given;
    their parts and what those name come from the database.
    """
    entries = list(entries)
    ids = [e.pk for e in entries]
    refs = _grouped(m.EpisodeReference.objects.filter(entry__in=ids).order_by("order", "pk"))
    disclosures = _grouped(m.Disclosure.objects.filter(entry__in=ids).order_by("order", "pk"))
    quotes = _grouped(
        m.Quote.objects.filter(entry__in=ids).select_related("speaker").order_by("order", "pk")
    )
    transcripts = episode_transcripts.load_transcripts(
        {q.episode_id for parts in quotes.values() for q in parts}
    )
    citations = _grouped(
        m.Citation.objects.filter(entry__in=ids).select_related("source").order_by("order", "pk")
    )
    see_also = _see_also_of(ids)
    tags = _tags_of(ids)
    facts = _facts_of(refs, quotes, disclosures)
    return {
        entry.pk: _document(
            entry,
            refs=refs.get(entry.pk, []),
            disclosures=disclosures.get(entry.pk, []),
            quotes=quotes.get(entry.pk, []),
            citations=citations.get(entry.pk, []),
            see_also=see_also.get(entry.pk, []),
            tags=tags.get(entry.pk, []),
            transcripts=transcripts,
            facts=facts,
        )
        for entry in entries
    }


def _see_also_of(ids: list[int]) -> dict[int, list[Any]]:
    """The entries' see-also rows, by entry id, each with the term its target was last
    published under (`published_term`)."""
    last_published = (
        m.EntryVersion.objects.filter(entry=OuterRef("target"), published_at__isnull=False)
        .order_by("-published_at", "-number")
        .values("term")[:1]
    )
    return _grouped(
        m.SeeAlso.objects.filter(entry__in=ids)
        .select_related("target__live_version")
        .annotate(published_term=Subquery(last_published))
        .order_by("order", "pk")
    )


def _tags_of(ids: list[int]) -> dict[int, list[Tag]]:
    """The entries' tags, by entry id, in name order."""
    tags: dict[int, list[Tag]] = {}
    for item in (
        TaggedItem.objects.filter(
            content_type=ContentType.objects.get_for_model(m.Entry), object_id__in=ids
        )
        .select_related("tag")
        .order_by("tag__name", "tag__pk")
    ):
        tag = Tag(id=item.tag.pk, name=item.tag.name, slug=item.tag.slug)
        tags.setdefault(item.object_id, []).append(tag)
    return tags


def _facts_of(
    refs: dict[int, list[Any]], quotes: dict[int, list[Any]], disclosures: dict[int, list[Any]]
) -> _Facts:
    """The facts of every episode, show, person and organisation the parts name (with the
    episodes' sponsors and guests), one query per kind."""
    episode_ids = {r.episode_id for parts in refs.values() for r in parts}
    episode_ids |= {q.episode_id for parts in quotes.values() for q in parts}
    episode_ids |= {d.episode_id for parts in disclosures.values() for d in parts if d.episode_id}
    episodes = {
        e.pk: e
        for e in m.Episode.objects.filter(pk__in=episode_ids)
        .select_related("show")
        .prefetch_related(
            Prefetch("sponsorships", queryset=m.Sponsorship.objects.order_by("read_at", "pk")),
            Prefetch("appearances", queryset=m.Appearance.objects.order_by("role", "pk")),
        )
    }
    people_ids = {r.speaker_id for parts in refs.values() for r in parts if r.speaker_id}
    people_ids |= {q.speaker_id for parts in quotes.values() for q in parts}
    people_ids |= {d.person_id for parts in disclosures.values() for d in parts if d.person_id}
    org_ids = {d.organisation_id for parts in disclosures.values() for d in parts}
    for episode in episodes.values():
        org_ids |= {s.organisation_id for s in episode.sponsorships.all()}
        for a in episode.appearances.all():
            people_ids.add(a.person_id)
            org_ids.add(a.affiliation_id)
    people = {p.pk: p for p in m.Person.objects.filter(pk__in=people_ids - {None})}
    organisations = {o.pk: o for o in m.Organisation.objects.filter(pk__in=org_ids - {None})}
    return _Facts(
        episodes={pk: _episode(e) for pk, e in episodes.items()},
        shows={e.show_id: _show(e.show) for e in episodes.values()},
        people={pk: Person(id=p.pk, name=p.name, slug=p.slug) for pk, p in people.items()},
        organisations={
            pk: Organisation(id=o.pk, name=o.name, slug=o.slug, url=o.url)
            for pk, o in organisations.items()
        },
    )


@dataclass(frozen=True)
class _Facts:
    """Facts about every object the entries being built name, by id (`build_many`)."""

    episodes: dict[int, Episode]
    shows: dict[int, Show]
    people: dict[int, Person]
    organisations: dict[int, Organisation]


def _episode(e: m.Episode) -> Episode:
    return Episode(
        id=e.pk,
        show=e.show_id,
        season=e.season,
        number=e.number,
        title=e.title,
        air_date=e.air_date,
        duration=e.duration,
        url=e.url,
        audio_url=e.audio_url,
        sponsors=[
            Sponsor(organisation=s.organisation_id, read_at=s.read_at) for s in e.sponsorships.all()
        ],
        appearances=[
            Appearance(
                person=a.person_id,
                role=a.role,
                affiliation=a.affiliation_id,
                title=a.title,
            )
            for a in e.appearances.all()
        ],
    )


def _show(s: m.Show) -> Show:
    return Show(id=s.pk, name=s.name, slug=s.slug, deep_link_style=s.deep_link_style)


def _document(
    entry: m.Entry,
    *,
    refs: list[m.EpisodeReference],
    disclosures: list[m.Disclosure],
    quotes: list[m.Quote],
    citations: list[m.Citation],
    see_also: list[Any],
    tags: list[Tag],
    transcripts: dict[int, ParsedTranscript],
    facts: _Facts,
) -> EntryDocument:
    """One entry's document from its parts, read by `build_many`."""
    attached, loose = _placed_disclosures(disclosures)
    episodes, people_ids, org_ids = _named(refs, disclosures, quotes, facts)
    return EntryDocument(
        schema_version=SCHEMA_VERSION,
        id=entry.pk,
        term=entry.term,
        slug=entry.slug,
        aliases=entry.alias_list(),
        summary=entry.summary,
        body=entry.body,
        tags=tags,
        references=[
            Reference(
                episode=r.episode_id,
                at=r.at,
                speaker=r.speaker_id,
                text=r.text,
                disclosures=attached.get(r.pk, []),
            )
            for r in refs
        ],
        disclosures=loose,
        quotes=[
            Quote(
                episode=q.episode_id,
                speaker=q.speaker_id,
                start=q.start,
                end=q.end,
                text=q.text,
                verbatim=q.verbatim,
                lightly_edited=q.lightly_edited,
                check=_transcript_check(q, transcripts.get(q.episode_id)),
            )
            for q in quotes
        ],
        citations=[_citation(c) for c in citations],
        see_also=[
            SeeAlso(
                entry=s.target_id,
                term=see_also_term(s),
                link_text=s.link_text,
                note=s.note,
            )
            for s in see_also
        ],
        episodes=episodes,
        shows=[facts.shows[pk] for pk in sorted({e.show for e in episodes})],
        people=[facts.people[pk] for pk in sorted(people_ids) if pk in facts.people],
        organisations=[
            facts.organisations[pk] for pk in sorted(org_ids) if pk in facts.organisations
        ],
        sources=[_source(s) for s in sorted({c.source for c in citations}, key=lambda s: s.pk)],
    )


def _citation(c: m.Citation) -> Citation:
    return Citation(
        source=c.source_id,
        note=c.note,
        checked_on=c.checked_on,
        excerpt=c.excerpt,
        excerpt_on=c.excerpt_on,
        # The reader is shown what the page said when checked once it says
        # something else, nothing, or cannot be reached.
        source_changed=c.source.changed_since_confirmed
        or c.source.health in (m.Source.Health.BROKEN, m.Source.Health.EMPTY),
    )


def _source(s: m.Source) -> Source:
    """A cited source's facts as the version keeps them."""
    return Source(
        id=s.pk,
        url=s.url,
        title=s.title,
        publisher=s.publisher,
        kind=s.kind,
        archive_url=s.archive_url,
        archive_date=s.archive_date,
        citation_status=s.citation_status,
    )


def _placed_disclosures(
    disclosures: list[m.Disclosure],
) -> tuple[dict[int, list[Disclosure]], list[Disclosure]]:
    """The disclosures placed after an episode reference (by its id), and the loose ones."""
    attached: dict[int, list[Disclosure]] = {}
    loose: list[Disclosure] = []
    for d in disclosures:
        part = Disclosure(
            kind=d.kind,
            text=d.text,
            at=d.at,
            episode=d.episode_id,
            organisation=d.organisation_id,
            person=d.person_id,
        )
        if d.reference_id:
            attached.setdefault(d.reference_id, []).append(part)
        else:
            loose.append(part)
    return attached, loose


def _named(
    refs: list[m.EpisodeReference],
    disclosures: list[m.Disclosure],
    quotes: list[m.Quote],
    facts: _Facts,
) -> tuple[list[Episode], set[int], set[int]]:
    """The episodes the parts draw on (their facts, in id order), and the ids of the people
    and organisations the parts and those episodes name (sponsors, guests, affiliations)."""
    episode_ids = {r.episode_id for r in refs} | {q.episode_id for q in quotes}
    episode_ids |= {d.episode_id for d in disclosures if d.episode_id}
    episodes = [facts.episodes[pk] for pk in sorted(episode_ids)]
    people_ids = {r.speaker_id for r in refs if r.speaker_id} | {q.speaker_id for q in quotes}
    people_ids |= {d.person_id for d in disclosures if d.person_id}
    org_ids = {d.organisation_id for d in disclosures if d.organisation_id}
    for episode in episodes:
        org_ids |= {s.organisation for s in episode.sponsors}
        for a in episode.appearances:
            people_ids.add(a.person)
            if a.affiliation:
                org_ids.add(a.affiliation)
    return episodes, people_ids, org_ids


def _transcript_check(
    quote: m.Quote, transcript: ParsedTranscript | None
) -> TranscriptCheck | None:
    """The quote checked against the episode's stored transcript; None without one."""
    if not transcript:
        return None
    verdict = episode_transcripts.check_quote(
        quote.text, quote.start, quote.speaker.name, transcript
    )
    return TranscriptCheck(
        verdict=str(verdict.verdict),
        found_at=verdict.found_at,
        score=round(verdict.score, 1),
        speaker_agrees=verdict.speaker_agrees,
        passage=episode_transcripts.reader_passage(transcript, verdict)
        if verdict.verdict == "match"
        else "",
    )


def see_also_term(link: Any) -> str:
    """How a see-also names its target (`link` annotated with `published_term`): as readers
    last saw it (live, else last published), and only a target never published by its
    working term, which `publishing.record_edit` versions in the linking entries when it
    is renamed."""
    if link.target.live_version is not None:
        return str(link.target.live_version.term)
    return str(link.published_term or link.target.term)


def entries_showing(kind: str, object_ids: Iterable[int]) -> list[m.Entry]:
    """The entries whose working copy names one of these objects (a `PublicRecord.Kind`).

    What `build` would copy into their documents: a person quoted, cited or
    disclosed, or on an episode the entry draws on; an organisation disclosed,
    sponsoring, or employing someone on such an episode; the episode itself, its
    show, a cited source, a tag.
    """
    ids = list(set(object_ids))
    if not ids:
        return []
    kinds = m.PublicRecord.Kind

    def drawing_on(episodes: Q) -> Q:
        return (
            Q(references__episode__in=m.Episode.objects.filter(episodes))
            | Q(quotes__episode__in=m.Episode.objects.filter(episodes))
            | Q(disclosures__episode__in=m.Episode.objects.filter(episodes))
        )

    if kind == kinds.PERSON:
        names = Q(quotes__speaker__in=ids) | Q(references__speaker__in=ids)
        names |= Q(disclosures__person__in=ids) | drawing_on(Q(appearances__person__in=ids))
    elif kind == kinds.ORGANISATION:
        names = Q(disclosures__organisation__in=ids)
        names |= drawing_on(Q(sponsorships__organisation__in=ids))
        names |= drawing_on(Q(appearances__affiliation__in=ids))
    elif kind == kinds.EPISODE:
        names = drawing_on(Q(pk__in=ids))
    elif kind == kinds.SHOW:
        names = drawing_on(Q(show__in=ids))
    elif kind == kinds.SOURCE:
        names = Q(citations__source__in=ids)
    elif kind == kinds.TAG:
        names = Q(tags__in=ids)
    else:
        raise ValueError(f"{kind!r} is not a kind of reference data.")
    return list(m.Entry.objects.filter(names).distinct().order_by("pk"))


# --- Writing a document back into the working copy (rollback) -----------------------------

# Who made a change: a signed-in person, or nobody (the demo loader, a script).
Actor = User | AnonymousUser | None


def write_back(entry: m.Entry, doc: EntryDocument, *, user: Actor) -> list[str]:
    """Rewrite the entry's working-copy rows to say what `doc` says.

    Returns warnings for parts that could not be restored because what they
    point to no longer exists (a deleted episode, person, tag or see-also entry).
    Reference data is not changed: parts point at the rows by id. The caller
    records the result as a new version; old versions are never touched.
    """
    warnings = _write_back_text(entry, doc, user=user)
    warnings += _write_back_tags(entry, doc)
    episodes = _existing(m.Episode, doc.facts.episodes)
    people = _existing(m.Person, doc.facts.people)
    orgs = _existing(m.Organisation, doc.facts.organisations)
    # Old citations first: who checked them is not in the document, so keep it
    # where the same source was confirmed on the same day.
    checked_by = {
        (c.source_id, c.checked_on): c.checked_by_id for c in m.Citation.objects.filter(entry=entry)
    }
    for model in (m.Disclosure, m.EpisodeReference, m.Quote, m.Citation, m.SeeAlso):
        model.objects.filter(entry=entry).delete()
    warnings += _write_back_references(entry, doc, episodes, people, orgs)
    warnings += _write_back_quotes(entry, doc, episodes, people)
    _write_back_citations(entry, doc, checked_by)
    warnings += _write_back_see_also(entry, doc)
    return warnings


def _existing(model: Any, ids: Iterable[int]) -> set[int]:
    """Which of `ids` still name a row of `model`."""
    return set(model.objects.filter(pk__in=set(ids)).values_list("pk", flat=True))


def _kept(pk: int | None, known: set[int]) -> int | None:
    return pk if pk in known else None


def _write_back_text(entry: m.Entry, doc: EntryDocument, *, user: Actor) -> list[str]:
    """The entry's own fields; its address only while no other entry holds it."""
    warnings = []
    entry.term = doc.term
    if m.Entry.objects.exclude(pk=entry.pk).filter(slug=doc.slug).exists():
        warnings.append(
            f"The address /{doc.slug}/ now belongs to another entry; kept /{entry.slug}/."
        )
    else:
        entry.slug = doc.slug
    entry.aliases = "\n".join(doc.aliases)
    entry.summary = doc.summary
    entry.body = doc.body
    entry.updated_by = user if isinstance(user, User) and user.is_authenticated else None
    entry.updated_at = timezone.now()
    entry.save(
        update_fields=["term", "slug", "aliases", "summary", "body", "updated_by", "updated_at"]
    )
    return warnings


def _write_back_tags(entry: m.Entry, doc: EntryDocument) -> list[str]:
    """By id, as every other part: a tag renamed since is the renamed tag, and one deleted
    since is skipped with a warning (set by name, it would come back as a new tag,
    unannounced)."""
    tags = _existing(TagRow, [t.id for t in doc.tags])
    entry.tags.set(list(TagRow.objects.filter(pk__in=tags)), clear=True)
    return [f"Tag “{tag.name}”: it no longer exists." for tag in doc.tags if tag.id not in tags]


def _write_back_references(
    entry: m.Entry, doc: EntryDocument, episodes: set[int], people: set[int], orgs: set[int]
) -> list[str]:
    """Episode references with the disclosures placed after them, then loose disclosures,
    in one running order; `episodes`, `people`, `orgs`: the ids that still exist."""
    warnings = []
    order = 0

    def disclosure(d: Disclosure, reference: m.EpisodeReference | None) -> None:
        nonlocal order
        m.Disclosure.objects.create(
            entry=entry,
            order=order,
            kind=d.kind,
            reference=reference,
            episode_id=_kept(d.episode, episodes),
            organisation_id=_kept(d.organisation, orgs),
            person_id=_kept(d.person, people),
            at=d.at,
            text=d.text,
        )
        order += 1

    for i, r in enumerate(doc.references):
        if r.episode not in episodes:
            warnings.append(f"Episode reference {i + 1}: its episode no longer exists.")
            continue
        reference = m.EpisodeReference.objects.create(
            entry=entry,
            order=i,
            episode_id=r.episode,
            at=r.at,
            speaker_id=_kept(r.speaker, people),
            text=r.text,
        )
        for d in r.disclosures:
            disclosure(d, reference)
    for d in doc.disclosures:
        disclosure(d, None)
    return warnings


def _write_back_quotes(
    entry: m.Entry, doc: EntryDocument, episodes: set[int], people: set[int]
) -> list[str]:
    warnings = []
    for i, q in enumerate(doc.quotes):
        if q.episode not in episodes or q.speaker not in people:
            warnings.append(f"Quote {i + 1}: its episode or speaker no longer exists.")
            continue
        m.Quote.objects.create(
            entry=entry,
            order=i,
            episode_id=q.episode,
            speaker_id=q.speaker,
            start=q.start,
            end=q.end,
            text=q.text,
            verbatim=q.verbatim,
            lightly_edited=q.lightly_edited,
        )
    return warnings


def _write_back_citations(
    entry: m.Entry, doc: EntryDocument, checked_by: dict[tuple[int, Any], int | None]
) -> None:
    """Every citation comes back: a source deleted since is made again at the address it
    was cited at. `checked_by`: who confirmed a source on a day, kept from the old rows."""
    sources = _existing(m.Source, doc.facts.sources)
    for i, c in enumerate(doc.citations):
        fact = doc.facts.sources[c.source]
        source_id = c.source
        if source_id not in sources:
            # Deleted since: the same address again, as it was cited.
            source_id = m.Source.objects.get_or_create(
                url=fact.url, defaults={"title": fact.title, "publisher": fact.publisher}
            )[0].pk
        m.Citation.objects.create(
            entry=entry,
            order=i,
            source_id=source_id,
            note=c.note,
            checked_on=c.checked_on,
            checked_by_id=checked_by.get((source_id, c.checked_on)),
            excerpt=c.excerpt,
            excerpt_on=c.excerpt_on,
        )


def _write_back_see_also(entry: m.Entry, doc: EntryDocument) -> list[str]:
    warnings = []
    targets = _existing(m.Entry, (s.entry for s in doc.see_also)) - {entry.pk}
    for i, s in enumerate(doc.see_also):
        if s.entry not in targets:
            warnings.append(f"See also “{s.term}”: that entry no longer exists.")
            continue
        m.SeeAlso.objects.create(
            entry=entry, order=i, target_id=s.entry, link_text=s.link_text, note=s.note
        )
    return warnings
