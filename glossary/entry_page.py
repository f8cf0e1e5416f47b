"""The public entry page, rendered whole from a published document.

`render_page` runs when a version is published (and when something it shows
changes: a see-also target's live version, a template): the article, its
structured data with the page's dates, the correction notes and the "last
updated" line all go into `EntryVersion.rendered_html`, so the view is a lookup
and a template (glossary.views.entry). `render_article` is the article alone,
for the workflow's previews of versions nobody has published.

Everything a reader reads that is not typed by an editor is derived here from
the document's facts: timestamps as "25:38", deep links, the sponsorship
sentence ("Episode 28 is a Season 2 episode sponsored by Galileo (intro at
0:05).") and "Quotes lightly edited to remove filler words."
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.template.loader import render_to_string
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from glossary import jsonld
from glossary.document import (
    Disclosure,
    EntryDocument,
    Episode,
    Facts,
    Organisation,
    Person,
    TranscriptCheck,
)
from glossary.jsonld import LiveLinks
from glossary.markdown import render_markdown
from glossary.models import DeepLinkStyle, deep_link, source_title
from glossary.paths import path_for
from glossary.timestamps import format_timestamp, iso_duration

_MONTHS = (
    "January February March April May June July August September October November December"
).split()


@dataclass(frozen=True)
class Moment:
    """A second in an episode, ready to be a link that plays the episode from there.

    With the episode's audio file the link is that file with a W3C media fragment
    (`episode-44.mp3#t=1538`): any browser plays it from that second, no script needed,
    and `glossary/static/glossary/listen.js` adds a player beside it where scripts run
    (the `data-listen-*` attributes). Without an audio file it is the episode's page in
    the show's deep-link style.
    """

    number: int
    listen_url: str
    deep_link_style: str
    seconds: int
    audio_url: str = ""

    @property
    def label(self) -> str:
        return format_timestamp(self.seconds)

    @property
    def iso(self) -> str:
        return iso_duration(self.seconds)

    @property
    def href(self) -> str:
        if self.audio_url:
            return deep_link(self.audio_url, DeepLinkStyle.MEDIA_FRAGMENT, self.seconds)
        return deep_link(self.listen_url, self.deep_link_style, self.seconds)

    @property
    def listen_attrs(self) -> SafeString:
        """The attributes listen.js reads to offer an inline player (audio links only)."""
        if not self.audio_url:
            return mark_safe("")  # noqa: S308 - empty
        return format_html(
            ' class="listen" data-listen-audio="{}" data-listen-start="{}" '
            'data-listen-label="episode {} at {}"',
            self.audio_url.split("#", 1)[0],
            self.seconds,
            self.number,
            self.label,
        )

    def link(self, text: str = "", *, hidden_prefix: str = "") -> SafeString:
        """`<a><time>` for the offset; a bare "25:38" carries hidden context for screen readers."""
        time = format_html('<time datetime="{}">{}</time>', self.iso, self.label)
        inner = format_html("{}{}", text, time) if text else time
        hidden = (
            format_html('<span class="visually-hidden">{}</span>', hidden_prefix)
            if hidden_prefix
            else ""
        )
        if not self.href:
            return format_html("{}{}", hidden, inner)
        return format_html('<a href="{}"{}>{}{}</a>', self.href, self.listen_attrs, hidden, inner)


def moment(facts: Facts, episode_id: int, seconds: int) -> Moment:
    episode = facts.episodes[episode_id]
    style = facts.shows[episode.show].deep_link_style
    return Moment(episode.number, episode.listen_url, style, seconds, episode.audio_url)


def sponsorship_sentence(
    number: int, season: int, sponsors: Sequence[tuple[str, int | None]]
) -> str:
    """The seed's sentence from an episode's data: who sponsored it and where the read is.

    "Episode 28 is a Season 2 episode sponsored by Galileo (intro at 0:05)."
    """
    names = [
        f"{name} (intro at {format_timestamp(at)})" if at is not None else name
        for name, at in sponsors
    ]
    if not names:
        return ""
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"Episode {number} is a Season {season} episode sponsored by {joined}."


def _sponsors(facts: Facts, episode: Episode) -> list[tuple[str, int | None]]:
    return [
        (facts.organisations[s.organisation].name, s.read_at)
        for s in episode.sponsors
        if s.organisation in facts.organisations
    ]


def note_clause(note: str) -> str:
    """A citation note as the clause the source line continues ("; checked …" or "."):
    without its own closing full stop, so the line never reads "ports.; checked"."""
    note = note.strip()
    if note.endswith(".") and not note.endswith(".."):
        return note[:-1].rstrip()
    return note


# What may close a sentence, and what may follow its stop ("… calls it “scale across.”").
SENTENCE_STOPS = ".!?…"
SENTENCE_CLOSERS = "”’\"')]»"


def ends_sentence(text: str) -> bool:
    """Whether `text` ends as a sentence does: a stop, perhaps inside closing quotes."""
    core = text.rstrip().rstrip(SENTENCE_CLOSERS)
    return bool(core) and core[-1] in SENTENCE_STOPS


def as_sentence(text: str) -> str:
    """`text` with a full stop when it has no stop of its own, so the next sentence of the
    paragraph never runs on from it ("… every layer at once Episode 28 was sponsored …")."""
    text = text.strip()
    return text if not text or ends_sentence(text) else f"{text}."


@dataclass(frozen=True)
class SourceLine:
    title: str
    url: str
    note: str
    checked_on: datetime.date | None
    archive_url: str
    citation_status: str
    archive_date: datetime.date | None = None
    # What the source said when the citation was confirmed, shown only when the page is
    # dead or changed (see `shows_excerpt`); both come from the published version.
    excerpt: str = ""
    excerpt_on: datetime.date | None = None
    source_changed: bool = False

    @property
    def shows_excerpt(self) -> bool:
        """Readers see the dated excerpt once the source is dead or its page changed."""
        return bool(self.excerpt and self.excerpt_on) and (
            self.citation_status != "live" or self.source_changed
        )

    @property
    def excerpt_lines(self) -> list[str]:
        return self.excerpt.splitlines()

    @property
    def href(self) -> str:
        """The cited address; an unfit or usurped one links to its archived copy instead,
        never to what the address serves now (Wikipedia's `url-status`)."""
        if self.citation_status in ("unfit", "usurped") and self.archive_url:
            return self.archive_url
        return self.url

    @property
    def archive_link(self) -> bool:
        """The archived copy has its own link beside the cited one ("Archived copy,
        November 20, 2026"), dead or alive, once a published version carries it."""
        return bool(self.archive_url) and self.href != self.archive_url

    @property
    def status_note(self) -> str:
        if self.citation_status == "live":
            return ""
        if self.archive_url and self.href == self.archive_url:
            return (
                "The original page is no longer available as cited; "
                "the link opens an archived copy."
            )
        return "The original page is no longer available as cited."


@dataclass(frozen=True)
class QuoteView:
    text: str
    speaker: Person
    affiliation: Organisation | None
    moment: Moment
    lightly_edited: bool
    end: int | None = None
    verbatim: str = ""
    check: TranscriptCheck | None = None

    @property
    def verified(self) -> bool:
        """Checked against the episode's transcript when the version was saved, and found
        where the page says, said by whom it says."""
        return self.check is not None and self.check.verified

    @property
    def transcript_lines(self) -> list[str]:
        """The verbatim transcript around a verified quote, one segment a line."""
        return self.check.passage.splitlines() if self.check and self.verified else []

    @property
    def show_verbatim(self) -> bool:
        """The transcript text is shown beside an edited quote, so the edit can be audited."""
        return bool(self.verbatim.strip()) and self.verbatim.strip() != self.text.strip()

    @property
    def link(self) -> SafeString:
        return self.moment.link(f"episode {self.moment.number} at ")


@dataclass(frozen=True)
class Article:
    term: str
    slug: str
    summary: str
    body_html: SafeString
    show_paragraph: SafeString
    see_also: SafeString
    quotes: list[QuoteView] = field(default_factory=list)
    any_edited: bool = False
    sources: list[SourceLine] = field(default_factory=list)
    tags: list[tuple[str, str]] = field(default_factory=list)


def disclosure_parts(facts: Facts, d: Disclosure) -> tuple[str, int | None, str]:
    """A disclosure as shown beside its claim: text, the second it links to, and its label.

    The sponsorship sentence made from an episode with one timed read carries
    that read's time as its link ("… sponsored by Galileo (intro at 0:05).").
    """
    if not (d.derived and d.episode is not None):
        return d.text.strip(), d.at, ""
    episode = facts.episodes[d.episode]
    sponsors = _sponsors(facts, episode)
    if len(sponsors) == 1 and sponsors[0][1] is not None:
        text = sponsorship_sentence(episode.number, episode.season, [(sponsors[0][0], None)])
        return text, sponsors[0][1], "intro at "
    return sponsorship_sentence(episode.number, episode.season, sponsors), None, ""


def _disclosure_html(facts: Facts, d: Disclosure) -> SafeString:
    text, at, label = disclosure_parts(facts, d)
    if at is None or d.episode is None:
        return format_html('<span class="disclosure">{}</span>', as_sentence(text))
    stop = text[-1] if text and text[-1] in ".!?" else "."
    body = text[:-1] if text and text[-1] in ".!?" else text
    number = facts.episodes[d.episode].number
    hidden = f"Listen to episode {number}, " if label else f"Listen to episode {number} at "
    link = moment(facts, d.episode, at).link(label, hidden_prefix=hidden)
    return format_html('<span class="disclosure">{} ({}){}</span>', body, link, stop)


def disclosure_text(facts: Facts, d: Disclosure) -> str:
    """A disclosure as plain text, as readers read it (episode and organisation pages, API)."""
    if d.derived and d.episode is not None:
        episode = facts.episodes[d.episode]
        return sponsorship_sentence(episode.number, episode.season, _sponsors(facts, episode))
    return d.text.strip()


def _show_paragraph(doc: EntryDocument, facts: Facts) -> SafeString:
    sentences: list[SafeString] = []
    for ref in doc.references:
        link = moment(facts, ref.episode, ref.at).link(
            f"episode {facts.episodes[ref.episode].number} at "
        )
        sentences.append(format_html("In {}, {}", link, as_sentence(ref.text)))
        sentences += [_disclosure_html(facts, d) for d in ref.disclosures]
    sentences += [_disclosure_html(facts, d) for d in doc.disclosures]
    return mark_safe(" ".join(sentences))  # noqa: S308 - every part went through format_html


def _see_also(doc: EntryDocument, live_links: LiveLinks) -> SafeString:
    items = []
    for link in doc.see_also:
        live = live_links.get(link.entry)
        # A live target is named as its own live version names it; any other stays plain text.
        name = link.link_text or (live[0] if live else link.term)
        if live:
            text = format_html('<a href="{}">{}</a>', path_for("glossary:entry", live[1]), name)
        else:
            text = escape(name)
        if link.note:
            text = format_html("{}, {}", text, link.note)
        items.append(text)
    if not items:
        return mark_safe("")  # noqa: S308 - empty
    if len(items) == 1:
        joined = items[0]
    elif len(items) == 2:
        joined = format_html("{} and {}", items[0], items[1])
    else:
        head = format_html_join(", ", "{}", ((item,) for item in items[:-1]))
        joined = format_html("{}, and {}", head, items[-1])
    return format_html("See also {}.", joined)


def article(doc: EntryDocument, live_links: LiveLinks, facts: Facts | None = None) -> Article:
    """What _article.html shows of `doc`; `live_links` are the see-also targets with a page.

    `facts` are what the page says about the people, episodes and sources `doc`
    names: a live page's are the approved public records (glossary.records); a
    preview shows the version's own.
    """
    facts = facts or doc.facts
    quotes = [
        QuoteView(
            text=q.text,
            speaker=facts.people[q.speaker],
            affiliation=facts.affiliation(q.episode, q.speaker),
            moment=moment(facts, q.episode, q.start),
            lightly_edited=q.lightly_edited,
            end=q.end,
            verbatim=q.verbatim,
            check=q.check,
        )
        for q in doc.quotes
    ]
    sources = []
    for c in doc.citations:
        source = facts.sources[c.source]
        sources.append(
            SourceLine(
                title=source_title(source.publisher, source.title),
                url=source.url,
                note=note_clause(c.note),
                checked_on=c.checked_on,
                archive_url=source.archive_url,
                citation_status=source.citation_status,
                archive_date=source.archive_date,
                excerpt=c.excerpt,
                excerpt_on=c.excerpt_on,
                source_changed=c.source_changed,
            )
        )
    return Article(
        term=doc.term,
        slug=doc.slug,
        summary=doc.summary,
        body_html=mark_safe(render_markdown(doc.body)),  # noqa: S308 - sanitised by nh3
        show_paragraph=_show_paragraph(doc, facts),
        see_also=_see_also(doc, live_links),
        quotes=quotes,
        any_edited=any(q.lightly_edited for q in quotes),
        sources=sources,
        tags=[(t.name, t.slug) for t in doc.tags],
    )


def render_article(doc: EntryDocument, live_links: LiveLinks, facts: Facts | None = None) -> str:
    """The article alone, as a preview shows a version nobody has published."""
    return render_to_string("glossary/_article.html", {"article": article(doc, live_links, facts)})


def _time(value: datetime.datetime | datetime.date) -> str:
    return (
        f'<time datetime="{value:%Y-%m-%d}">'
        f"{_MONTHS[value.month - 1]} {value.day}, {value.year}</time>"
    )


def _after_article(
    updated: datetime.datetime | None, corrections: Sequence[tuple[datetime.datetime, str]]
) -> str:
    parts: list[str] = []
    if corrections:
        parts += [
            '<section class="corrections" aria-labelledby="corrections-heading">',
            f'<h2 id="corrections-heading">Correction{"s" if len(corrections) > 1 else ""}</h2>',
            *(f"<p>{_time(d)}: {escape(note)}</p>" for d, note in corrections),
            "</section>",
        ]
    if updated:
        parts.append(f'<p class="meta updated">Last updated {_time(updated)}.</p>')
    return "\n".join(parts)


def render_page(
    doc: EntryDocument,
    *,
    facts: Facts,
    live_links: LiveLinks,
    published: datetime.datetime | None,
    modified: datetime.datetime | None,
    corrections: Sequence[tuple[datetime.datetime, str]],
) -> str:
    """The whole content of the public entry page, as stored in EntryVersion.rendered_html.

    `published` and `modified` are the entry's first publication and last
    significant change; `corrections` the public notes of its published
    versions, newest first.
    """
    structured = jsonld.entry_jsonld(
        doc, facts=facts, live_links=live_links, date_published=published, date_modified=modified
    )
    return "\n".join(
        [
            render_article(doc, live_links, facts),
            jsonld.script_tag(structured),
            _after_article(modified, corrections),
        ]
    )
