"""Turns a version's snapshot into what the article template shows."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

from glossary import jsonld
from glossary.markdown import render_markdown
from glossary.models import deep_link, source_title
from glossary.timestamps import format_timestamp, iso_duration


@dataclass
class Moment:
    """A second in an episode, ready to be a link that opens the episode there."""

    episode: dict[str, Any]
    seconds: int

    @property
    def label(self) -> str:
        return format_timestamp(self.seconds)

    @property
    def iso(self) -> str:
        return iso_duration(self.seconds)

    @property
    def href(self) -> str:
        ep = self.episode
        return deep_link(ep["url"], ep["show"]["deep_link_style"], self.seconds)

    @property
    def spoken(self) -> str:
        return f"episode {self.episode['number']} at {self.label}"

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
        return format_html('<a href="{}">{}{}</a>', self.href, hidden, inner)


@dataclass
class SourceLine:
    title: str
    url: str
    note: str
    checked_on: datetime.date | None
    archive_url: str
    citation_status: str
    archive_date: datetime.date | None = None

    @property
    def href(self) -> str:
        """Dead, unfit or usurped sources link to the archived copy when there is one."""
        if self.citation_status != "live" and self.archive_url:
            return self.archive_url
        return self.url

    @property
    def status_note(self) -> str:
        if self.citation_status == "live":
            return ""
        if self.archive_url:
            return (
                "The original page is no longer available as cited; "
                "the link opens an archived copy."
            )
        return "The original page is no longer available as cited."


@dataclass
class QuoteView:
    text: str
    speaker: dict[str, Any]
    affiliation: dict[str, Any] | None
    moment: Moment
    lightly_edited: bool
    end: int | None = None
    verbatim: str = ""

    @property
    def show_verbatim(self) -> bool:
        """The transcript text is shown beside an edited quote, so the edit can be audited."""
        return bool(self.verbatim.strip()) and self.verbatim.strip() != self.text.strip()

    @property
    def link(self) -> SafeString:
        return self.moment.link(f"episode {self.moment.episode['number']} at ")


@dataclass
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
    # schema.org JSON-LD without the page's dates; glossary.views.entry adds them.
    jsonld: SafeString = field(default_factory=lambda: mark_safe(""))  # noqa: S308 - empty


def _disclosure_html(d: dict[str, Any]) -> SafeString:
    text = d["text"].strip()
    if d["at"] is None or d["episode"] is None:
        return format_html('<span class="disclosure">{}</span>', text)
    stop = text[-1] if text and text[-1] in ".!?" else "."
    body = text[:-1] if text and text[-1] in ".!?" else text
    moment = Moment(d["episode"], d["at"])
    number = d["episode"]["number"]
    hidden = f"Listen to episode {number}, " if d["at_label"] else f"Listen to episode {number} at "
    link = moment.link(d["at_label"], hidden_prefix=hidden)
    return format_html('<span class="disclosure">{} ({}){}</span>', body, link, stop)


def _show_paragraph(data: dict[str, Any]) -> SafeString:
    sentences: list[SafeString] = []
    for ref in data["references"]:
        moment = Moment(ref["episode"], ref["at"])
        link = moment.link(f"episode {ref['episode']['number']} at ")
        sentences.append(format_html("In {}, {}", link, ref["text"].strip()))
        sentences += [_disclosure_html(d) for d in ref["disclosures"]]
    sentences += [_disclosure_html(d) for d in data["disclosures"]]
    return mark_safe(" ".join(sentences))  # noqa: S308 - every part went through format_html


def _see_also(data: dict[str, Any], live_ids: set[int]) -> SafeString:
    items = []
    for link in data["see_also"]:
        if link["entry_id"] in live_ids:
            text = format_html(
                '<a href="{}">{}</a>',
                reverse("glossary:entry", args=[link["slug"]]),
                link["link_text"],
            )
        else:
            text = escape(link["link_text"])
        if link["note"]:
            text = format_html("{}, {}", text, link["note"])
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


def article_context(data: dict[str, Any], live_ids: set[int]) -> dict[str, Any]:
    """What _article.html needs to show `data`; `live_ids` are the entries see-also may link."""
    quotes = [
        QuoteView(
            text=q["text"],
            speaker=q["speaker"],
            affiliation=q["affiliation"],
            moment=Moment(q["episode"], q["start"]),
            lightly_edited=q["lightly_edited"],
            end=q["end"],
            verbatim=q.get("verbatim", ""),
        )
        for q in data["quotes"]
    ]
    sources = [
        SourceLine(
            title=source_title(c["source"]["publisher"], c["source"]["title"]),
            url=c["source"]["url"],
            note=c["note"],
            checked_on=datetime.date.fromisoformat(c["checked_on"]) if c["checked_on"] else None,
            archive_url=c["source"]["archive_url"],
            citation_status=c["source"]["citation_status"],
            archive_date=(
                datetime.date.fromisoformat(c["source"]["archive_date"])
                if c["source"].get("archive_date")
                else None
            ),
        )
        for c in data["citations"]
    ]
    article = Article(
        term=data["term"],
        slug=data["slug"],
        summary=data["summary"],
        body_html=mark_safe(render_markdown(data["body"])),  # noqa: S308 - sanitised by nh3
        show_paragraph=_show_paragraph(data),
        see_also=_see_also(data, live_ids),
        quotes=quotes,
        any_edited=any(q.lightly_edited for q in quotes),
        sources=sources,
        tags=[(name, slugify(name)) for name in data["tags"]],
        jsonld=jsonld.script_tag(
            jsonld.entry_jsonld(
                data, date_published=None, date_modified=None, live_see_also=live_ids
            )
        ),
    )
    return {"article": article}
