"""Deterministic vendor and standards pages, in versions, for the source-text bench.

Prose comes from a word-level Markov chain (order 2) over the repository's own
English: the seed entry and docs/*.md, prose lines only. That gives sentences
with the entropy of real technical writing (zlib compresses a generated text
about as much as a real documentation page), not templated text that compresses
unrealistically well. About a third of sentences are spec claims with figures
("The sixth generation of NVLink delivers 3.6 TB/s of bandwidth per GPU.").
Each publisher's pages share navigation, footer and two boilerplate paragraphs
inside the main text (an "About" blurb and a legal notice).
"""

from __future__ import annotations

import datetime
import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START = datetime.datetime(2026, 1, 5, 6, 0, tzinfo=datetime.UTC)

PUBLISHERS = [
    "NVIDIA",
    "AMD",
    "Intel",
    "Broadcom",
    "Cisco",
    "Arista",
    "Marvell",
    "Ultra Ethernet Consortium",
    "InfiniBand Trade Association",
    "IEEE 802.3",
    "PCI-SIG",
    "CXL Consortium",
    "JEDEC",
    "Open Compute Project",
    "Google Cloud",
    "Microsoft Azure",
    "AWS",
    "Meta Engineering",
    "Cerebras",
    "Groq",
]
PRODUCTS = [
    "NVLink",
    "NVSwitch",
    "Infinity Fabric",
    "UALink",
    "Spectrum-X",
    "Quantum-X",
    "Tomahawk",
    "Jericho",
    "Silicon One",
    "CXL",
    "PCIe",
    "HBM",
    "InfiniBand XDR",
    "Ultra Ethernet",
    "EFA",
]
ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"]
UNITS = ["TB/s", "GB/s", "Gb/s", "Tb/s", "GT/s", "W", "ns", "GPUs", "ports", "lanes", "racks", "%"]
SPEC_TEMPLATES = [
    "The {ordinal} generation of {product} delivers {n} {unit} of bandwidth per GPU.",
    "{product} connects up to {count} GPUs in a single domain at {n} {unit}.",
    "Each switch provides {count} ports running at {n} {unit}.",
    "Compared with the previous generation, {product} offers {x}x more bandwidth.",
    "Power per port drops to {n} W, and latency stays under {small} ns.",
    "The specification was released in {year} and revised in {year2}.",
    "{product} systems reached {n} exaFLOPS of AI performance in {year}.",
    "Adoption grew {pct}% year over year, with more than {thousands} engineers trained.",
    "The platform supports {count} racks and a total of {n} {unit} of aggregate throughput.",
]


@dataclass
class Corpus:
    """Word-bigram successors of the repository's prose, for the Markov chain."""

    chain: dict[tuple[str, str], list[str]]
    starts: list[tuple[str, str]]
    words: int

    @classmethod
    def load(cls) -> Corpus:
        paths = [ROOT / "tests" / "data" / "seed_interconnect.txt", *sorted(ROOT.glob("docs/*.md"))]
        chain: dict[tuple[str, str], list[str]] = defaultdict(list)
        starts: list[tuple[str, str]] = []
        words = 0
        for path in paths:
            for line in path.read_text(encoding="utf-8").splitlines():
                line = line.strip()
                if not line or line[0] in "#|`>" or line.startswith("    "):
                    continue
                tokens = re.sub(r"[\[\]()*_`]", "", line.lstrip("-* ")).split()
                words += len(tokens)
                for index in range(len(tokens) - 2):
                    key = (tokens[index], tokens[index + 1])
                    if index == 0 or tokens[index - 1].endswith("."):
                        if key[0][:1].isupper():
                            starts.append(key)
                    chain[key].append(tokens[index + 2])
        return cls(dict(chain), starts, words)

    def describe(self) -> str:
        return f"{self.words:,} words of repository prose, {len(self.chain):,} bigrams"

    def sentence(self, rng: random.Random) -> str:
        """A sentence of 6 to 40 words that ends where a corpus sentence ends, if one does."""
        for _ in range(5):
            first, second = rng.choice(self.starts)
            out = [first, second]
            while len(out) < 40:
                following = self.chain.get((out[-2], out[-1]))
                if not following:
                    break
                out.append(rng.choice(following))
                if out[-1].endswith((".", "?", "!")) and len(out) >= 6:
                    return " ".join(out)
        return " ".join(out).rstrip(",;:") + "."


def spec_sentence(rng: random.Random, products: list[str]) -> str:
    return rng.choice(SPEC_TEMPLATES).format(
        ordinal=rng.choice(ORDINALS),
        product=rng.choice(products),
        n=rng.choice(["1.8", "3", "3.6", "800", "400", "1.6", "7.2", "14.4", "900", "130", "260"]),
        unit=rng.choice(UNITS),
        count=rng.choice([8, 16, 32, 64, 72, 144, 256, 576]),
        x=rng.choice([2, 3, 4, 5, 10]),
        small=rng.choice([100, 150, 200, 300, 500]),
        year=rng.choice(range(2018, 2027)),
        year2=rng.choice(range(2018, 2027)),
        pct=rng.choice(range(5, 95)),
        thousands=f"{rng.choice(range(1, 60))},000",
    )


@dataclass
class Source:
    pages: list[str]
    sightings: list[int]  # the version served at each check, in order
    confirmed: int  # the version a fact-checker confirmed
    note: str
    first_seen: datetime.datetime = field(default=START)

    def seen_at(self, check: int) -> datetime.datetime:
        return self.first_seen + datetime.timedelta(days=21 * check)


def generate_source(corpus: Corpus, seed: int, source_id: int) -> Source:
    rng = random.Random(f"{seed}:{source_id}")
    publisher = PUBLISHERS[source_id % len(PUBLISHERS)]
    shared = random.Random(f"{seed}:publisher:{publisher}")
    boilerplate = [" ".join(corpus.sentence(shared) for _ in range(3)) for _ in range(2)]
    products = rng.sample(PRODUCTS, 2)  # a page is about one or two products
    paragraphs: list[list[str]] = []
    size = 0
    target = rng.randint(2_500, 6_000)
    while size < target:
        paragraph = [
            spec_sentence(rng, products) if rng.random() < 0.33 else corpus.sentence(rng)
            for _ in range(rng.randint(2, 5))
        ]
        paragraphs.append(paragraph)
        size += sum(len(sentence) + 1 for sentence in paragraph)
    title = f"{products[0]} {rng.choice(['Overview', 'Specification', 'Technical Brief'])}"

    versions = [paragraphs]
    furniture = [0]
    for _ in range(rng.randint(1, 5)):
        current = [list(paragraph) for paragraph in versions[-1]]
        edit = rng.random()
        if edit < 0.15:
            furniture.append(furniture[-1] + 1)  # only the ads and clock changed
            versions.append(current)
            continue
        paragraph = rng.choice(current)
        index = rng.randrange(len(paragraph))
        if edit < 0.55:  # a figure changed
            paragraph[index] = re.sub(
                r"\d+(?:\.\d+)?", lambda m: _bump(rng, m.group()), paragraph[index], count=1
            )
            if not re.search(r"\d", paragraph[index]):
                paragraph[index] = spec_sentence(rng, products)
        elif edit < 0.75:
            paragraph[index] = corpus.sentence(rng)
        elif edit < 0.9:
            paragraph.insert(index, spec_sentence(rng, products))
        elif len(paragraph) > 1:
            del paragraph[index]
        versions.append(current)
        furniture.append(furniture[-1] + 1)

    pages = [
        render(
            publisher, title, version, boilerplate, ad=f"Offer {n}", clock=f"{n % 24}:{n % 60:02d}"
        )
        for version, n in zip(versions, furniture, strict=True)
    ]
    sightings = [v for v in range(len(pages)) for _ in range(rng.randint(1, 3))]
    confirmed = 0 if rng.random() < 0.6 else rng.randrange(len(pages))
    spec = [s for p in versions[confirmed] for s in p if re.search(r"\d", s)] or [
        "the interconnect"
    ]
    note = f"{publisher} page; {rng.choice(spec)[:-1].lower()}"
    return Source(pages, sightings, confirmed, note)


def _bump(rng: random.Random, number: str) -> str:
    value = float(number) * rng.choice([1.2, 1.5, 2.0, 0.5])
    return f"{value:.1f}" if "." in number else str(max(1, round(value)))


def render(
    publisher: str,
    title: str,
    paragraphs: list[list[str]],
    boilerplate: list[str],
    *,
    ad: str,
    clock: str,
) -> str:
    body = "\n".join(f"<p>{' '.join(paragraph)}</p>" for paragraph in paragraphs)
    about, legal = boilerplate
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>{title} | {publisher}</title><link rel="stylesheet" href="/static/site.css">
<script>window.dataLayer=window.dataLayer||[];function gtag(){{dataLayer.push(arguments)}}</script>
</head><body>
<header class="site-header"><a href="/">{publisher}</a>
<nav><ul><li><a href="/products/">Products</a></li>
<li><a href="/solutions/">Solutions</a></li><li><a href="/developers/">Developers</a></li>
<li><a href="/support/">Support</a></li></ul></nav></header>
<div class="promo-banner">{ad}: save 20% on training</div>
<main><article>
<h1>{title}</h1><p class="byline">Last updated {clock}</p>
{body}
<div class="ad-slot" data-ad-slot="7">{ad}</div>
<h2>Specifications</h2>
<table><tr><th>Item</th><th>Value</th></tr><tr><td>Interface</td><td>{title}</td></tr></table>
<h2>About {publisher}</h2><p>{about}</p><p class="legal">{legal}</p>
</article></main>
<footer><ul><li>Privacy</li><li>Terms</li><li>Cookie settings</li></ul>© {publisher}</footer>
</body></html>"""
