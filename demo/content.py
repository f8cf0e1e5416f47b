"""Demo content: the seed entry "Interconnect", reproduced faithfully, and its neighbours.

Everything the seed says is here as data. What the seed does not say (the
show's name, the season of episode 44) is marked PLACEHOLDER below; the episodes'
titles, durations, air dates and audio come from the demo feed
(demo_data/demo-feed.xml, marked as demo data there), read the way a real show's
feed is (glossary.episode_feed). All of it is documented in docs/demo.md.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from demo.demo_data import TRANSCRIPTS
from demo.members import member
from editorial import workflow
from editorial.permissions import Role
from glossary import document, publishing
from glossary.episode_feed import apply_feed
from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    Quote,
    SeeAlso,
    Show,
    Source,
    Sponsorship,
    Transcript,
)
from glossary.signals import demo_loaded
from glossary.timestamps import parse_timestamp as ts
from glossary.transcript_imports import import_transcript
from glossary.transcripts.podcast_feed import parse_feed

# The demo show's feed: demo data, never fetched (podcast.example is a reserved name).
DEMO_FEED = Path(__file__).resolve().parent / "demo_data" / "demo-feed.xml"

CHECKED_ON = datetime.date(2026, 10, 24)
# The demo source that shows an archived copy beside its link, as a capture saved when
# it was confirmed would (docs/archive.md). PLACEHOLDER: nothing is fetched or archived;
# the address has the Wayback Machine's form for the placeholder page on example.org.
ARCHIVED_DEMO_ENTRY = "ai-factory"
ARCHIVED_DEMO_AT = "20261024150000"

INTERCONNECT_BODY = """\
A frontier model is far too big to train on one chip. The work is split across thousands of GPUs, and after each step they must swap results before anyone can continue. If the links between them are slow, expensive chips sit idle waiting for data. So the network is not an accessory to the computers; it decides how many chips can usefully work together.

Engineers talk about two layers. The “scale-up” network joins a small group of accelerators, a server or a whole rack, so tightly that they behave almost like one giant chip; NVIDIA’s NVLink is the best-known example. The “scale-out” network joins those racks into a cluster across a building, traditionally with InfiniBand and increasingly with Ethernet tuned for AI, which the Ultra Ethernet Consortium is standardizing. Optical links are pushing some clusters across several buildings.

For buyers, the interconnect shows up as hidden cost and lock-in. Two clusters with the same chips can train at very different speeds depending on networking, and proprietary links tie a customer to one vendor’s systems. Inference benefits too: serving a large mixture-of-experts model across many chips depends on fast links between them.
"""  # noqa: E501


@dataclass
class DemoEntry:
    term: str
    slug: str
    summary: str
    body: str
    tags: list[str]
    aliases: list[str] = field(default_factory=list)
    see_also: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def source_url(self) -> str:
        # PLACEHOLDER: example.org is reserved for documentation and never serves these.
        return f"https://example.org/glossary-demo/{self.slug}"


# Entries other than the seed. Short, plain and accurate; see-also slugs refer to this list.
NEIGHBOURS = [
    DemoEntry(
        "AI factory",
        "ai-factory",
        "A data center built and run to turn electricity and data into trained models and "
        "AI answers at industrial scale.",
        "An AI factory is a data center designed around one job: producing AI, either by "
        "training models or by serving them to users. The phrase, popularised by NVIDIA, "
        "treats tokens as the product and the building as the plant that makes them.\n\n"
        "What sets it apart from an ordinary data center is density. Racks of accelerators "
        "draw far more power and need liquid cooling, and the network that joins them "
        "matters as much as the chips.",
        ["ai-infrastructure", "data-centers"],
        see_also=[("interconnect", "", ""), ("gpu", "", "")],
    ),
    DemoEntry(
        "High-bandwidth memory",
        "high-bandwidth-memory",
        "Stacked DRAM placed beside an AI chip so it can be fed data fast enough to stay busy.",
        "High-bandwidth memory (HBM) stacks DRAM dies on top of each other and places them "
        "next to the processor on the same package, joined by thousands of short wires. The "
        "result is far more bandwidth than ordinary memory modules can give.\n\n"
        "Large models spend much of their time moving weights and activations in and out of "
        "memory, so HBM capacity and bandwidth often limit AI chips as much as raw compute "
        "does. Supply of HBM has been one of the tightest parts of the AI hardware chain.",
        ["hardware", "memory"],
        aliases=["HBM"],
        see_also=[("interconnect", "", "the other main limit on moving data to AI chips")],
    ),
    DemoEntry(
        "GPU",
        "gpu",
        "A graphics processor, now the workhorse chip for training and running AI models.",
        "A graphics processing unit runs thousands of simple calculations at once. That "
        "parallelism, first built for drawing pixels, suits the matrix arithmetic at the heart "
        "of neural networks, which is why GPUs became the default chip for AI.",
        ["hardware"],
        aliases=["Graphics processing unit"],
        see_also=[("accelerator", "", "")],
    ),
    DemoEntry(
        "Accelerator",
        "accelerator",
        "Any chip built to speed up a particular kind of computation, such as AI workloads.",
        "An accelerator is a processor designed for one family of tasks rather than general "
        "computing. In AI the word covers GPUs as well as purpose-built chips such as Google's "
        "TPUs and the many designs from start-ups.",
        ["hardware"],
        see_also=[("gpu", "", "")],
    ),
    DemoEntry(
        "InfiniBand",
        "infiniband",
        "An industry-standard, low-latency network used to join servers in supercomputers and "
        "AI clusters.",
        "InfiniBand is a switched-fabric network standard maintained by the InfiniBand Trade "
        "Association. Its low latency and support for remote direct memory access made it the "
        "traditional choice for the scale-out network of large training clusters.",
        ["networking"],
        see_also=[("scale-out-network", "", ""), ("ultra-ethernet", "", "")],
    ),
    DemoEntry(
        "Ultra Ethernet",
        "ultra-ethernet",
        "An Ethernet-based networking specification for AI and high-performance computing, "
        "developed by the Ultra Ethernet Consortium.",
        "Ultra Ethernet is the Ultra Ethernet Consortium's effort to adapt Ethernet to the "
        "traffic patterns of AI training and high-performance computing, as an open "
        "alternative to InfiniBand for scale-out networks.",
        ["networking", "standards"],
        aliases=["UEC"],
        see_also=[("infiniband", "", "")],
    ),
    DemoEntry(
        "Scale-up network",
        "scale-up-network",
        "The very fast links that make a small group of accelerators act almost like one chip.",
        "A scale-up network joins the accelerators in one server or rack with links fast "
        "enough that software can treat them as a single large device. NVIDIA's NVLink is the "
        "best-known example.",
        ["networking"],
        see_also=[("scale-out-network", "", ""), ("interconnect", "", "")],
    ),
    DemoEntry(
        "Scale-out network",
        "scale-out-network",
        "The network that joins many servers or racks into one cluster across a building.",
        "A scale-out network connects racks of accelerators into a cluster. It is slower per "
        "link than a scale-up network but reaches thousands of machines; InfiniBand and "
        "AI-tuned Ethernet are the usual choices.",
        ["networking"],
        see_also=[("scale-up-network", "", ""), ("interconnect", "", "")],
    ),
    DemoEntry(
        "Mixture of experts",
        "mixture-of-experts",
        "A model design that routes each input to a few specialised sub-networks instead of "
        "running the whole model.",
        "A mixture-of-experts model holds many expert sub-networks and a router that picks a "
        "few of them for each token. Only part of the model runs at a time, so it can be very "
        "large without costing as much to run, but the experts are often spread across chips, "
        "which puts pressure on the links between them.",
        ["models"],
        aliases=["MoE"],
        see_also=[("inference", "", ""), ("interconnect", "", "")],
    ),
    DemoEntry(
        "Inference",
        "inference",
        "Running a trained model to get answers, as opposed to training it.",
        "Inference is the work a model does after training: answering a prompt, classifying "
        "an image, generating text. It runs every time someone uses the model, so over a "
        "model's life it can cost more than training did.",
        ["models", "ai-infrastructure"],
        see_also=[("training", "", "")],
    ),
    DemoEntry(
        "Training",
        "training",
        "Adjusting a model's parameters on data until it performs well; the most "
        "compute-hungry phase of building AI.",
        "Training feeds a model examples and nudges its parameters to reduce its errors, "
        "billions of times over. Frontier models are trained on thousands of accelerators for "
        "weeks, which is why the network joining those chips matters so much.",
        ["models", "ai-infrastructure"],
        see_also=[("inference", "", ""), ("interconnect", "", "")],
    ),
    DemoEntry(
        "Co-packaged optics",
        "co-packaged-optics",
        "Optical connections built into the same package as a switch or processor chip, to "
        "cut the power spent moving data.",
        "Co-packaged optics moves the conversion between electrical and optical signals from "
        "pluggable modules at the edge of a switch to the chip package itself. Shorter "
        "electrical paths save power, which matters as clusters grow to hundreds of thousands "
        "of links.",
        ["networking", "hardware"],
        aliases=["CPO"],
        see_also=[("interconnect", "", "")],
    ),
]


def _org(name: str, slug: str, url: str = "") -> Organisation:
    org, _ = Organisation.objects.update_or_create(slug=slug, defaults={"name": name, "url": url})
    return org


def _person(name: str, slug: str) -> Person:
    person, _ = Person.objects.update_or_create(slug=slug, defaults={"name": name})
    return person


def _source(url: str, title: str, publisher: str, kind: str) -> Source:
    source, _ = Source.objects.update_or_create(
        url=url, defaults={"title": title, "publisher": publisher, "kind": kind}
    )
    return source


def _entry(term: str, slug: str, **fields: object) -> Entry:
    entry, _ = Entry.objects.update_or_create(slug=slug, defaults={"term": term, **fields})
    return entry


def _reset_parts(entry: Entry) -> None:
    for model in (Disclosure, EpisodeReference, Quote, Citation, SeeAlso):
        model.objects.filter(entry=entry).delete()


# Who the demo's text is by and who approves it: two staff accounts nobody signs in as,
# so the demo publishes the way editors do (editorial.workflow's one door), with a
# second person's approval on record.
DEMO_WRITER, DEMO_EDITOR = "demo-writer", "demo-editor"
# A demo citation's check date is fixed (CHECKED_ON): once it is older than the freshness
# window, the demo's editor publishes it anyway, with this reason in each entry's history.
DEMO_OVERRIDE = "Demo content: its sources were confirmed on the demo's fixed check date."


def _needs_publishing(entry: Entry) -> bool:
    """Whether readers should get a new version of a demo entry: it has never been
    published, or its working copy (or show) changed since. One withdrawn or archived on
    the desk stays so: nothing withdrawn comes back by reloading the demo."""
    live = entry.live_version
    if live is None:
        return entry.first_published_at is None and entry.status != Entry.Status.ARCHIVED
    return live.show_id != entry.show_id or live.data != document.build(entry).dump()


def _publish(entries: list[Entry]) -> None:
    """Saved as the demo writer's, submitted by them, and published by the demo editor."""
    if not entries:
        return
    writer = member(DEMO_WRITER, Role.WRITER)
    editor = member(DEMO_EDITOR, Role.EDITOR)
    publishing.record_edits(entries, user=writer, comment="Demo content")
    workflow.submit_entries([e for e in entries if e.status != Entry.Status.IN_REVIEW], user=writer)
    workflow.publish_entries(
        entries, user=editor, override_reason=DEMO_OVERRIDE, comment="Demo content"
    )


def _import_demo_transcript(episode: Episode, number: int) -> None:
    path = TRANSCRIPTS[number]
    stored = Transcript.objects.filter(episode=episode).first()
    if stored is not None and stored.origin == f"demo_data/{path.name}":
        return
    import_transcript(episode, path.read_bytes(), origin=f"demo_data/{path.name}")


@transaction.atomic
@dataclass(frozen=True)
class _Cast:
    """The organisations and people the seed entry names."""

    cisco: Organisation
    amd: Organisation
    galileo: Organisation
    conor: Person
    patel: Person
    elangovan: Person


def _demo_show() -> Show:
    """The demo show, created or refreshed."""
    show, _ = Show.objects.update_or_create(
        slug="demo-show",
        defaults={
            "name": "The Show",  # PLACEHOLDER: the seed does not name the show.
            "website": "https://podcast.example/",
            "deep_link_style": "fragment",
        },
    )
    return show


def _cast() -> _Cast:
    """The seed's organisations (and NVIDIA, which only its text names) and people."""
    cisco = _org("Cisco", "cisco", "https://www.cisco.com/")
    amd = _org("AMD", "amd", "https://www.amd.com/")
    galileo = _org("Galileo", "galileo", "https://galileo.ai/")
    _org("NVIDIA", "nvidia", "https://www.nvidia.com/")
    conor = _person("Conor", "conor")
    patel = _person("Jeetu Patel", "jeetu-patel")
    elangovan = _person("Anush Elangovan", "anush-elangovan")
    return _Cast(cisco, amd, galileo, conor, patel, elangovan)


def _episodes(show: Show, cast: _Cast) -> tuple[Episode, Episode]:
    """Episodes 44 and 28 from the demo feed, with their sponsor, host and guests."""
    # Episodes 44 (season 3 is a PLACEHOLDER: the seed does not give it) and 28, their
    # titles, durations, air dates, audio and hosts and guests, from the demo feed.
    apply_feed(show, parse_feed(DEMO_FEED.read_bytes()), user=None, prefer_feed=True)
    ep44 = Episode.objects.get(show=show, number=44)
    ep28 = Episode.objects.get(show=show, number=28)
    Sponsorship.objects.update_or_create(
        episode=ep28, organisation=cast.galileo, defaults={"read_at": ts("0:05")}
    )
    # "the show's sponsor at the time, Galileo": the seed gives no read timestamp for 44.
    Sponsorship.objects.update_or_create(
        episode=ep44, organisation=cast.galileo, defaults={"read_at": None}
    )
    for episode in (ep44, ep28):
        Appearance.objects.update_or_create(
            episode=episode, person=cast.conor, defaults={"role": "host"}
        )
    Appearance.objects.update_or_create(
        episode=ep44, person=cast.patel, defaults={"role": "guest", "affiliation": cast.cisco}
    )
    Appearance.objects.update_or_create(
        episode=ep28, person=cast.elangovan, defaults={"role": "guest", "affiliation": cast.amd}
    )
    return ep44, ep28


def _seed_sources() -> list[tuple[Source, str]]:
    """The seed entry's three sources, each with the note its citation carries."""
    nvlink = _source(
        "https://www.nvidia.com/en-us/data-center/nvlink/",
        "NVLink and NVLink Switch",
        "NVIDIA",
        Source.Kind.VENDOR,
    )
    ibta = _source(
        "https://www.infinibandta.org/about-infiniband/",
        "About InfiniBand",
        "InfiniBand Trade Association",
        Source.Kind.STANDARD,
    )
    uec = _source(
        "https://ultraethernet.org/",
        "Ultra Ethernet Consortium",
        "Ultra Ethernet Consortium",
        Source.Kind.STANDARD,
    )
    return [
        (
            nvlink,
            "Vendor page describing NVLink as the GPU-to-GPU interconnect for rack-scale "
            "systems; the sixth generation is listed at 3 TB/s of bandwidth per GPU on the "
            "Vera Rubin platform",
        ),
        (
            ibta,
            "Describes InfiniBand as an industry-standard, channel-based, switched-fabric "
            "interconnect architecture for server and storage connectivity",
        ),
        (
            uec,
            "Industry consortium developing an Ethernet-based networking specification for "
            "AI and high-performance computing workloads",
        ),
    ]


def _entries(show: Show) -> dict[str, Entry]:
    """Every demo entry by slug (the neighbours, then the seed), with its tags."""
    entries = {
        d.slug: _entry(
            d.term,
            d.slug,
            show=show,
            summary=d.summary,
            body=d.body,
            aliases="\n".join(d.aliases),
        )
        for d in NEIGHBOURS
    }
    interconnect = _entry(
        "Interconnect",
        "interconnect",
        show=show,
        summary="The links between AI chips. They decide how many chips can usefully work "
        "together on one model, and they show up as hidden cost and lock-in.",
        body=INTERCONNECT_BODY,
        aliases="NVLink\nScale across",
    )
    entries["interconnect"] = interconnect
    interconnect.tags.set(["networking", "hardware", "ai-infrastructure"])
    for d in NEIGHBOURS:
        entries[d.slug].tags.set(d.tags)
    return entries


def _seed_references(
    interconnect: Entry, ep44: Episode, ep28: Episode, cast: _Cast
) -> tuple[EpisodeReference, EpisodeReference]:
    """The seed's two episode references, to episodes 44 and 28."""
    ref44 = EpisodeReference.objects.create(
        entry=interconnect,
        order=1,
        episode=ep44,
        at=ts("25:38"),
        speaker=cast.patel,
        text="Cisco’s Jeetu Patel describes networking that lets two data centers “hundreds of "
        "kilometers apart operate as one giant cluster,” which he calls “scale across.”",
    )
    ref28 = EpisodeReference.objects.create(
        entry=interconnect,
        order=2,
        episode=ep28,
        at=ts("3:07"),
        speaker=cast.elangovan,
        text="AMD’s Anush Elangovan lists the interconnects among the hardware layers where "
        "chips have improved.",
    )
    return ref44, ref28


def _seed_disclosures(
    interconnect: Entry,
    ep44: Episode,
    ep28: Episode,
    refs: tuple[EpisodeReference, EpisodeReference],
    cast: _Cast,
) -> None:
    """The seed's commercial-interest disclosure and its two sponsorship disclosures."""
    ref44, ref28 = refs
    Disclosure.objects.create(
        entry=interconnect,
        order=1,
        reference=ref44,
        kind=Disclosure.Kind.COMMERCIAL_INTEREST,
        organisation=cast.cisco,
        person=cast.patel,
        text="Cisco sells that networking, so read it as his company’s strategy.",
    )
    Disclosure.objects.create(
        entry=interconnect,
        order=2,
        reference=ref44,
        kind=Disclosure.Kind.SPONSORSHIP,
        episode=ep44,
        organisation=cast.galileo,
        person=cast.conor,
        at=ts("31:57"),
        text="During the episode, Conor notes that the show’s sponsor at the time, Galileo, is "
        "an NVIDIA AI factory partner.",
    )
    Disclosure.objects.create(
        entry=interconnect,
        order=3,
        reference=ref28,
        kind=Disclosure.Kind.SPONSORSHIP,
        episode=ep28,
        organisation=cast.galileo,
        text="",  # generated from the episode's data
    )


def _seed_quotes(interconnect: Entry, ep44: Episode, ep28: Episode, cast: _Cast) -> None:
    """The seed's two quotes, from episodes 44 and 28."""
    Quote.objects.create(
        entry=interconnect,
        order=1,
        episode=ep44,
        speaker=cast.patel,
        start=ts("25:38"),
        text="Operate as one giant cluster, one coherent cluster. And when you do that, that's "
        "what's called scale across.",
        lightly_edited=True,
    )
    Quote.objects.create(
        entry=interconnect,
        order=2,
        episode=ep28,
        speaker=cast.elangovan,
        start=ts("3:07"),
        text="Even in the hardware, at the microarchitecture level, at how they're brought "
        "together in the interconnects",
        lightly_edited=True,
    )


def _seed_parts(
    entries: dict[str, Entry],
    ep44: Episode,
    ep28: Episode,
    cast: _Cast,
    sources: list[tuple[Source, str]],
) -> None:
    """The seed entry's references, disclosures, quotes, citations and see-also links,
    written afresh."""
    interconnect = entries["interconnect"]
    _reset_parts(interconnect)
    refs = _seed_references(interconnect, ep44, ep28, cast)
    _seed_disclosures(interconnect, ep44, ep28, refs, cast)
    _seed_quotes(interconnect, ep44, ep28, cast)
    for order, (source, note) in enumerate(sources, start=1):
        Citation.objects.create(
            entry=interconnect, source=source, order=order, note=note, checked_on=CHECKED_ON
        )
    SeeAlso.objects.create(entry=interconnect, target=entries["ai-factory"], order=1)
    SeeAlso.objects.create(
        entry=interconnect,
        target=entries["high-bandwidth-memory"],
        order=2,
        link_text="high-bandwidth memory",
        note="the other main limit on moving data to AI chips",
    )


def _neighbour_parts(entries: dict[str, Entry]) -> None:
    """Each neighbour's placeholder source and citation and its see-also links, written
    afresh."""
    for d in NEIGHBOURS:
        entry = entries[d.slug]
        # Every demo entry cites a checked source, so it passes its own publish checks.
        source = _source(d.source_url, f"{d.term} (demo source)", "example.org", Source.Kind.OTHER)
        if d.slug == ARCHIVED_DEMO_ENTRY:
            Source.objects.filter(pk=source.pk).update(
                archive_url=f"https://web.archive.org/web/{ARCHIVED_DEMO_AT}/{source.url}",
                archive_date=CHECKED_ON,
            )
        Citation.objects.filter(entry=entry).delete()
        Citation.objects.create(
            entry=entry,
            source=source,
            order=1,
            note=f"Placeholder standing in for a real reference on {d.term.lower()}",
            checked_on=CHECKED_ON,
        )
        SeeAlso.objects.filter(entry=entry).delete()
        for order, (slug, link_text, note) in enumerate(d.see_also, start=1):
            SeeAlso.objects.create(
                entry=entry, target=entries[slug], order=order, link_text=link_text, note=note
            )


def _publish_changed(show: Show, entries: dict[str, Entry]) -> int:
    """Put every demo entry on the demo show and publish those readers should get anew;
    returns how many were published."""
    # Every demo entry belongs to the demo show, so its own site (/shows/demo-show/,
    # docs/show-sites.md) lists them once they are published.
    Entry.objects.filter(pk__in=[e.pk for e in entries.values()]).update(show=show)
    # Refresh so snapshots compare against the rows just written.
    changed = [
        entry
        for entry in Entry.objects.filter(pk__in=[e.pk for e in entries.values()])
        .select_related("live_version")
        .order_by("pk")
        if _needs_publishing(entry)
    ]
    _publish(changed)
    return len(changed)


@transaction.atomic
def load_demo() -> dict[str, int]:
    """Create or refresh the demo; running it twice changes nothing the second time."""
    show = _demo_show()
    cast = _cast()
    ep44, ep28 = _episodes(show, cast)
    sources = _seed_sources()
    entries = _entries(show)
    _seed_parts(entries, ep44, ep28, cast, sources)
    _neighbour_parts(entries)
    # The demo transcripts (demo text, marked so in each file), imported only when they
    # differ from what is stored, so running the demo twice changes nothing.
    for episode, number in ((ep44, 44), (ep28, 28)):
        _import_demo_transcript(episode, number)
    published = _publish_changed(show, entries)
    demo_loaded.send(sender=Entry)
    return {"entries": len(entries), "published": published}
