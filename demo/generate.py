"""A synthetic glossary of any size, published the way editors publish: `generate_glossary`.

Reference data and working copies are bulk-created (they are the desk's tables,
which editors fill freely); then every entry goes through the real workflow, a
batch of entries at a time: its writer's save is recorded as a version
(glossary.publishing.record_edits), the writer submits it
(editorial.workflow.submit_entries), and an editor who wrote none of it publishes
it (editorial.workflow.publish_entries: row locks, the publish checks, the
self-approval rule, public records, rendered pages; the same code that publishes a
single entry, which is a batch of one). Nothing readers see is written any other way.

The same seed gives the same glossary: every name, text, timestamp and link
comes from one `random.Random(seed)`; only database ids and clock times differ.

Proportions per entry, on average: 5 quotes, 4 citations, 3 see-also links,
1.5 episode references, 3 tags, and a sponsorship disclosure for every sponsored
episode it draws on (so every entry passes the blocking publish checks).
Sources are shared (about two citations per source); there is one episode per
five entries, one person per eight, one organisation per forty. See-also links
point at entries generated earlier, so every link is live when its entry is
published. Sources live under example.com, example.org and example.net, names
reserved for examples, so a link checker run on a generated glossary never
reaches anyone's server.
"""

from __future__ import annotations

import datetime
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.utils.text import slugify
from taggit.models import Tag, TaggedItem

from demo.members import member
from editorial import newsroom, workflow
from editorial.permissions import Role
from glossary import bulk, publishing
from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    EntryName,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    Quote,
    SeeAlso,
    Show,
    Source,
    Sponsorship,
)

# Who the generated work is credited to: a writer saves and submits, a fact-checker
# has confirmed the citations, an editor (not the writer) publishes.
WRITER, FACT_CHECKER, EDITOR = "generated-writer", "generated-factchecker", "generated-editor"

QUOTES = (3, 7)
CITATIONS = (3, 5)
SEE_ALSO = (2, 4)
REFERENCES = (1, 2)
TAGS = (2, 4)
ENTRIES_PER_EPISODE = 5
ENTRIES_PER_PERSON = 8
ENTRIES_PER_ORGANISATION = 40
ENTRIES_PER_SHOW = 2000
SOURCES_PER_ENTRY = 2
SPONSORED_SHARE = 0.25
INTEREST_DISCLOSURE_SHARE = 0.1
EPISODES_PER_SEASON = 40
# Entries saved, submitted and published together (editorial.workflow.publish_entries):
# each goes through every check a single publish makes, at a fraction of the queries.
PUBLISH_BATCH = 200

_QUALIFIERS = (
    "adaptive coherent distributed elastic federated hybrid low-latency optical packet "
    "persistent photonic quantised sparse speculative streaming tiered unified virtual "
    "asynchronous composable dense disaggregated heterogeneous liquid-cooled modular "
    "multi-tenant near-memory on-package programmable reconfigurable rack-scale "
    "serverless stateful vector wafer-scale zero-copy"
).split()
_SUBJECTS = (
    "attention batching bus cache checkpointing chiplet cluster compiler context-window "
    "crossbar dataflow decoder embedding encoder fabric fine-tuning gradient inference "
    "interposer kernel lattice mesh memory microservice network node optimizer "
    "partitioning pipeline prefetching quantisation queue router runtime scheduler "
    "sharding simulation switch tensor throughput tokenizer topology training "
    "transformer transceiver accelerator allocator backplane benchmark firmware "
    "interconnect sandbox telemetry"
).split()
_FORMS = ("", "layer", "protocol", "architecture", "engine", "model", "standard", "API")
_WORDS = (
    "the chip data model training cost power rack vendor cluster link bandwidth latency "
    "memory speed scale network customers engineers software hardware buyers design "
    "standard supply tokens energy cooling teams systems racks servers lanes packets "
    "copper optics switches weights budgets factories"
).split()
_VERBS = (
    "moves limits decides shapes doubles halves feeds ties joins splits serves drives "
    "cuts raises hides exposes"
).split()
_FIRST = (
    "Ada Alan Amara Ana Ben Carla Chen Dana Elif Emil Farah Grace Hana Ivan Jae Jonas "
    "Kofi Lena Luis Maya Mei Nadia Noor Omar Priya Rafael Rosa Sam Sofia Tariq Uma "
    "Viktor Wen Yara Zoe"
).split()
_LAST = (
    "Abe Bauer Costa Diaz Eriksen Fischer Garcia Haddad Ito Jensen Kim Laine Moreau "
    "Nakamura Okafor Patel Quinn Rossi Silva Tanaka Ueda Varga Wong Xu Yilmaz Zhou"
).split()
_ORG_PARTS = (
    "Arc Beacon Cobalt Delta Ember Flux Granite Helix Ion Juniper Keystone Lumen "
    "Meridian Nimbus Orbit Prism Quartz Radiant Summit Tensor Umbra Vertex Wavelength "
    "Xenon Yonder Zenith"
).split()
_ORG_KINDS = ("Systems", "Labs", "Semiconductor", "Networks", "Research", "Cloud", "Devices")
_SHOW_NAMES = ("Silicon Signals", "Rack Scale", "The Inference Hour", "Packet Radio", "Wafer")
_TITLE_STARTS = ("Inside", "Why", "How", "The state of", "Rethinking", "A year of", "Beyond")
_DOMAINS = ("example.com", "example.org", "example.net")
_KINDS = [k.value for k in Source.Kind]

ProgressFn = Callable[[int, int], None]


class GlossaryNotEmpty(Exception):
    """The glossary already has entries and appending was not asked for."""


@dataclass
class Result:
    entries: int = 0
    shows: int = 0
    episodes: int = 0
    people: int = 0
    organisations: int = 0
    sources: int = 0
    tags: int = 0
    quotes: int = 0
    citations: int = 0
    see_also: int = 0
    timings: dict[str, float] = field(default_factory=dict)


def _sentence(rng: random.Random, words: int = 12) -> str:
    chosen = [rng.choice(_WORDS) for _ in range(words)]
    chosen[min(3, words - 1)] = rng.choice(_VERBS)
    return " ".join(chosen).capitalize() + "."


def _paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(_sentence(rng, rng.randint(8, 18)) for _ in range(sentences))


def _unique(base: str, taken: set[str], limit: int) -> str:
    candidate, n = base[:limit], 2
    while candidate in taken:
        suffix = f"-{n}"
        candidate, n = base[: limit - len(suffix)] + suffix, n + 1
    taken.add(candidate)
    return candidate


def _terms(rng: random.Random, count: int) -> list[str]:
    """`count` distinct plausible terms ("Coherent fabric", "Sparse attention protocol")."""
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        words = [rng.choice(_QUALIFIERS), rng.choice(_SUBJECTS), rng.choice(_FORMS)]
        if rng.random() < 0.3:
            words.insert(0, rng.choice(_QUALIFIERS))
        term = " ".join(w for w in words if w).capitalize()
        if len(seen) > len(_QUALIFIERS) * len(_SUBJECTS) * len(_FORMS) // 2:
            term = f"{term} {len(out)}"  # past half the space, numbers keep it finite
        if term not in seen:
            seen.add(term)
            out.append(term)
    return out


def generate(
    entries: int,
    *,
    seed: int = 0,
    append: bool = False,
    progress: ProgressFn | None = None,
) -> Result:
    """Generate and publish `entries` entries with their reference data; see the module doc."""
    if entries < 0:
        raise ValueError("The number of entries cannot be negative.")
    existing = Entry.objects.count()
    if existing and not append:
        raise GlossaryNotEmpty(
            f"The glossary already has {existing} entr{'y' if existing == 1 else 'ies'}; "
            "generate_glossary fills an empty one. Pass --force-append to add the generated "
            "entries beside them."
        )
    # Every table it fills: vacuumed and analysed once it is done, with the first pages its
    # publishes touched stored once at the end (glossary.bulk).
    with bulk.bulk_write(bulk.tables_of("glossary", "editorial", "taggit", User)):
        result = _generate(entries, seed, progress)
        started = time.perf_counter()
    result.timings["first pages and statistics"] = time.perf_counter() - started
    return result


def _generate(entries: int, seed: int, progress: ProgressFn | None) -> Result:
    rng = random.Random(seed)  # noqa: S311 - synthetic content, not secrets
    result = Result(entries=entries)
    started = time.perf_counter()
    writer = member(WRITER, Role.WRITER)
    checker = member(FACT_CHECKER, Role.FACT_CHECKER)
    editor = member(EDITOR, Role.EDITOR)
    # The same random draws in the same order, whatever the steps: a seed is a glossary.
    reference = _reference_data(rng, entries, result)
    made = _working_copies(rng, entries, result, reference, writer=writer, checker=checker)
    result.timings["reference data and working copies"] = time.perf_counter() - started
    _publish_generated(made, entries, result, writer=writer, editor=editor, progress=progress)
    return result


@dataclass(frozen=True)
class _Reference:
    """The reference data a generated glossary's entries draw on."""

    shows: list[Show]
    organisations: list[Organisation]
    episodes: list[Episode]
    speakers: dict[int, list[Person]]
    sponsored: set[int]
    sources: list[Source]
    tags: list[Any]


def _reference_data(rng: random.Random, entries: int, result: Result) -> _Reference:
    """Shows, organisations, people, episodes with their cast and sponsors, sources and
    tags, in proportion to `entries`."""
    shows = _shows(entries)
    organisations = _organisations(rng, entries)
    people = _people(rng, entries)
    hosts = {show.pk: rng.sample(people, k=min(2, len(people))) for show in shows}
    episodes = _episodes(rng, entries, shows)
    speakers = _appearances(rng, episodes, hosts, people, organisations)
    sponsored = _sponsorships(rng, episodes, organisations)
    sources = _sources(rng, entries, organisations)
    tags = _tags(entries)
    result.shows, result.episodes, result.people = len(shows), len(episodes), len(people)
    result.organisations, result.sources, result.tags = len(organisations), len(sources), len(tags)
    return _Reference(shows, organisations, episodes, speakers, sponsored, sources, tags)


def _shows(entries: int) -> list[Show]:
    """One show per `ENTRIES_PER_SHOW` entries, as many as there are show names at most."""
    show_slugs = set(Show.objects.values_list("slug", flat=True))
    n_shows = max(1, min(len(_SHOW_NAMES), -(-entries // ENTRIES_PER_SHOW)))
    return Show.objects.bulk_create(
        Show(
            name=_SHOW_NAMES[i],
            slug=_unique(slugify(_SHOW_NAMES[i]), show_slugs, 100),
            website=f"https://{slugify(_SHOW_NAMES[i])}.example.com/",
        )
        for i in range(n_shows)
    )


def _organisations(rng: random.Random, entries: int) -> list[Organisation]:
    """One organisation per `ENTRIES_PER_ORGANISATION` entries, three at least."""
    org_slugs = set(Organisation.objects.values_list("slug", flat=True))
    organisations: list[Organisation] = []
    for _ in range(max(3, entries // ENTRIES_PER_ORGANISATION)):
        name = f"{rng.choice(_ORG_PARTS)} {rng.choice(_ORG_PARTS)} {rng.choice(_ORG_KINDS)}"
        slug = _unique(slugify(name), org_slugs, 100)
        organisations.append(Organisation(name=name, slug=slug, url=f"https://{slug}.example.com/"))
    return Organisation.objects.bulk_create(organisations)


def _people(rng: random.Random, entries: int) -> list[Person]:
    """One person per `ENTRIES_PER_PERSON` entries, four at least."""
    person_slugs = set(Person.objects.values_list("slug", flat=True))
    people: list[Person] = []
    for _ in range(max(4, entries // ENTRIES_PER_PERSON)):
        name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
        people.append(Person(name=name, slug=_unique(slugify(name), person_slugs, 100)))
    return Person.objects.bulk_create(people)


def _episodes(rng: random.Random, entries: int, shows: list[Show]) -> list[Episode]:
    """One episode per `ENTRIES_PER_EPISODE` entries, two at least, shared out among the
    shows in turn and aired a week apart on each."""
    episodes: list[Episode] = []
    n_episodes = max(2, entries // ENTRIES_PER_EPISODE)
    taken_numbers = set(Episode.objects.values_list("show_id", "season", "number"))
    air = datetime.date(2020, 1, 6)
    for i in range(n_episodes):
        show = shows[i % len(shows)]
        number = i // len(shows) + 1
        season = 1 + (number - 1) // EPISODES_PER_SEASON
        while (show.pk, season, number) in taken_numbers:
            number += 1_000_000  # appended beside an existing run: stay clear of its numbers
        taken_numbers.add((show.pk, season, number))
        topic = f"{rng.choice(_QUALIFIERS)} {rng.choice(_SUBJECTS)}"
        episodes.append(
            Episode(
                show=show,
                season=season,
                number=number,
                title=f"{rng.choice(_TITLE_STARTS)} {topic}",
                air_date=air + datetime.timedelta(days=(i // len(shows)) * 7),
                duration=rng.randint(25 * 60, 110 * 60),
                url=f"{show.website}episodes/{season}/{number}",
                audio_url=f"https://media.{slugify(show.name)}.example.com/{season}-{number}.mp3",
            )
        )
    return Episode.objects.bulk_create(episodes)


def _appearances(
    rng: random.Random,
    episodes: list[Episode],
    hosts: dict[int, list[Person]],
    people: list[Person],
    organisations: list[Organisation],
) -> dict[int, list[Person]]:
    """Each episode's hosts and up to two guests, written as appearances; returns who
    speaks in each episode, by episode pk."""
    appearances: list[Appearance] = []
    speakers: dict[int, list[Person]] = {}
    for episode in episodes:
        cast = list(hosts[episode.show_id])
        for person in cast:
            appearances.append(Appearance(episode=episode, person=person, role="host"))
        guests = [p for p in rng.sample(people, k=min(len(people), 4)) if p not in cast][:2]
        for person in guests:
            org = rng.choice(organisations)
            appearances.append(
                Appearance(
                    episode=episode,
                    person=person,
                    role="guest",
                    affiliation=org,
                    title=rng.choice(["CTO", "Engineer", "Analyst", "Researcher", "Founder"]),
                )
            )
        speakers[episode.pk] = cast + guests
    Appearance.objects.bulk_create(appearances, batch_size=2000)
    return speakers


def _sponsorships(
    rng: random.Random, episodes: list[Episode], organisations: list[Organisation]
) -> set[int]:
    """A sponsor for about `SPONSORED_SHARE` of the episodes; returns the sponsored
    episodes' pks."""
    sponsorships = [
        Sponsorship(
            episode=episode, organisation=rng.choice(organisations), read_at=rng.randint(30, 300)
        )
        for episode in episodes
        if rng.random() < SPONSORED_SHARE
    ]
    Sponsorship.objects.bulk_create(sponsorships, batch_size=2000)
    return {s.episode_id for s in sponsorships}


def _sources(rng: random.Random, entries: int, organisations: list[Organisation]) -> list[Source]:
    """`SOURCES_PER_ENTRY` sources per entry, published by the organisations in turn."""
    urls = set(Source.objects.values_list("url", flat=True))
    sources: list[Source] = []
    for i in range(max(CITATIONS[1], entries * SOURCES_PER_ENTRY)):
        org = organisations[i % len(organisations)]
        topic = f"{rng.choice(_QUALIFIERS)} {rng.choice(_SUBJECTS)}"
        url = _unique(
            f"https://{org.slug[:40]}.{rng.choice(_DOMAINS)}/docs/{slugify(topic)}-{i}", urls, 2000
        )
        sources.append(
            Source(url=url, title=topic.capitalize(), publisher=org.name, kind=rng.choice(_KINDS))
        )
    return Source.objects.bulk_create(sources, batch_size=2000)


def _tags(entries: int) -> list[Tag]:
    """Between 10 and 150 tags, one per 20 entries, skipping names already taken."""
    tag_slugs = set(Tag.objects.values_list("slug", flat=True))
    tag_names = set(Tag.objects.values_list("name", flat=True))
    tags: list[Tag] = []
    for word in sorted(set(_SUBJECTS) | {f"{q} {s}" for q in _QUALIFIERS[:6] for s in _SUBJECTS}):
        if len(tags) >= max(10, min(150, entries // 20)):
            break
        if word not in tag_names:
            tags.append(Tag(name=word, slug=_unique(slugify(word), tag_slugs, 100)))
    created: list[Tag] = Tag.objects.bulk_create(tags)
    return created


@dataclass
class _Parts:
    """The parts of the generated entries, gathered to be written in bulk."""

    quotes: list[Quote] = field(default_factory=list)
    references: list[EpisodeReference] = field(default_factory=list)
    disclosures: list[Disclosure] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    see_also: list[SeeAlso] = field(default_factory=list)
    tagged: list[TaggedItem] = field(default_factory=list)

    def write(self) -> None:
        """Bulk-create every part, one model after another."""
        for model, objs in [
            (Quote, self.quotes),
            (EpisodeReference, self.references),
            (Disclosure, self.disclosures),
            (Citation, self.citations),
            (SeeAlso, self.see_also),
            (TaggedItem, self.tagged),
        ]:
            model.objects.bulk_create(objs, batch_size=2000)


def _working_copies(
    rng: random.Random,
    entries: int,
    result: Result,
    reference: _Reference,
    *,
    writer: User,
    checker: User,
) -> list[Entry]:
    """The entries' working copies and every part, written in bulk."""
    episodes, speakers = reference.episodes, reference.speakers
    made = _entry_rows(rng, entries, reference.shows, writer)
    today = newsroom.today()
    parts = _Parts()
    entry_type = ContentType.objects.get_for_model(Entry)
    for index, entry in enumerate(made):
        drawn = rng.sample(episodes, k=min(len(episodes), rng.randint(1, 3)))
        parts.quotes += _quotes(rng, entry, drawn, speakers)
        parts.references += _references(rng, entry, drawn, speakers)
        parts.disclosures += _disclosures(
            rng, entry, drawn, reference.sponsored, reference.organisations
        )
        parts.citations += _citations(rng, entry, reference.sources, today, checker)
        parts.see_also += _see_also(rng, entry, index, made)
        parts.tagged += _tagged(rng, entry, reference.tags, entry_type)
    parts.write()
    result.quotes, result.citations = len(parts.quotes), len(parts.citations)
    result.see_also = len(parts.see_also)
    return made


def _entry_rows(rng: random.Random, entries: int, shows: list[Show], writer: User) -> list[Entry]:
    """`entries` working copies with distinct terms, written with their names."""
    entry_slugs = set(Entry.objects.values_list("slug", flat=True))
    rows = []
    for index, term in enumerate(_terms(rng, entries)):
        aliases = ""
        if rng.random() < 0.2:
            aliases = "".join(w[0] for w in term.split()).upper() + rng.choice(["", "X", "2"])
        rows.append(
            Entry(
                term=term,
                slug=_unique(slugify(term), entry_slugs, 200),
                # Shared out in turn (no draw: a seed makes the glossary it always made).
                show=shows[index % len(shows)],
                aliases=aliases,
                summary=_sentence(rng, rng.randint(10, 22))[:200],
                body="\n\n".join(_paragraph(rng, rng.randint(2, 5)) for _ in range(3)),
                created_by=writer,
                updated_by=writer,
            )
        )
    made = Entry.objects.bulk_create(rows, batch_size=1000)
    EntryName.write(made, fresh=True)  # bulk_create skips Entry.save, which writes them
    return made


def _quotes(
    rng: random.Random, entry: Entry, drawn: list[Episode], speakers: dict[int, list[Person]]
) -> list[Quote]:
    """Between `QUOTES` quotes for `entry`, from the episodes it draws on."""
    quotes: list[Quote] = []
    for order in range(rng.randint(*QUOTES)):
        episode = rng.choice(drawn)
        start = rng.randint(60, (episode.duration or 3600) - 120)
        quotes.append(
            Quote(
                entry=entry,
                order=order,
                episode=episode,
                speaker=rng.choice(speakers[episode.pk]),
                start=start,
                end=start + rng.randint(5, 90) if rng.random() < 0.6 else None,
                text=_sentence(rng, rng.randint(10, 30)),
                lightly_edited=rng.random() < 0.3,
            )
        )
    return quotes


def _references(
    rng: random.Random, entry: Entry, drawn: list[Episode], speakers: dict[int, list[Person]]
) -> list[EpisodeReference]:
    """Between `REFERENCES` episode references for `entry`, to the episodes it draws on."""
    references: list[EpisodeReference] = []
    for order in range(rng.randint(*REFERENCES)):
        episode = rng.choice(drawn)
        references.append(
            EpisodeReference(
                entry=entry,
                order=order,
                episode=episode,
                at=rng.randint(60, (episode.duration or 3600) - 60),
                speaker=rng.choice(speakers[episode.pk]),
                text=_sentence(rng, rng.randint(8, 16)),
            )
        )
    return references


def _disclosures(
    rng: random.Random,
    entry: Entry,
    drawn: list[Episode],
    sponsored: set[int],
    organisations: list[Organisation],
) -> list[Disclosure]:
    """A sponsorship disclosure for each sponsored episode `entry` draws on, and now and
    then a commercial-interest one."""
    disclosures: list[Disclosure] = []
    order = 0
    for episode in drawn:
        if episode.pk in sponsored:
            disclosures.append(
                Disclosure(entry=entry, order=order, kind="sponsorship", episode=episode, at=None)
            )
            order += 1
    if rng.random() < INTEREST_DISCLOSURE_SHARE:
        org = rng.choice(organisations)
        disclosures.append(
            Disclosure(
                entry=entry,
                order=order,
                kind="commercial_interest",
                organisation=org,
                text=f"The show has a commercial relationship with {org.name}.",
            )
        )
    return disclosures


def _citations(
    rng: random.Random,
    entry: Entry,
    sources: list[Source],
    today: datetime.date,
    checker: User,
) -> list[Citation]:
    """Between `CITATIONS` citations for `entry`, checked within the last 30 days."""
    return [
        Citation(
            entry=entry,
            order=order,
            source=source,
            note=_sentence(rng, rng.randint(6, 14)),
            checked_on=today - datetime.timedelta(days=rng.randint(0, 30)),
            checked_by=checker,
        )
        for order, source in enumerate(
            rng.sample(sources, k=min(len(sources), rng.randint(*CITATIONS)))
        )
    ]


def _see_also(rng: random.Random, entry: Entry, index: int, made: list[Entry]) -> list[SeeAlso]:
    """Between `SEE_ALSO` links from `entry` (the `index`th made) to entries made before it."""
    if not index:
        return []
    earlier = rng.sample(range(index), k=min(index, rng.randint(*SEE_ALSO)))
    return [
        SeeAlso(
            entry=entry,
            order=order,
            target=made[target],
            note=_sentence(rng, 6) if rng.random() < 0.3 else "",
        )
        for order, target in enumerate(earlier)
    ]


def _tagged(
    rng: random.Random, entry: Entry, tags: list[Tag], entry_type: ContentType
) -> list[TaggedItem]:
    """Between `TAGS` of the tags, on `entry`."""
    return [
        TaggedItem(tag=tag, content_type=entry_type, object_id=entry.pk)
        for tag in rng.sample(tags, k=min(len(tags), rng.randint(*TAGS)))
    ]


def _publish_generated(
    made: list[Entry],
    entries: int,
    result: Result,
    *,
    writer: User,
    editor: User,
    progress: ProgressFn | None,
) -> None:
    """The real publishing path, a batch at a time: the writer saves and submits, an
    editor who wrote none of it publishes (editorial.workflow.publish_entries)."""
    started = time.perf_counter()
    if connection.vendor == "postgresql":
        # Each entry is its own transaction, as when editors publish; waiting for
        # each commit to reach the disk would be most of the time. A crash loses
        # the last moment's commits of a synthetic glossary, never its consistency.
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit TO OFF")
    for start in range(0, len(made), PUBLISH_BATCH):
        batch = made[start : start + PUBLISH_BATCH]
        publishing.record_edits(batch, user=writer, comment="Generated.")
        workflow.submit_entries(batch, user=writer)
        workflow.publish_entries(batch, user=editor)
        if progress is not None:
            progress(start + len(batch), entries)
    result.timings["publishing"] = time.perf_counter() - started
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("RESET synchronous_commit")
