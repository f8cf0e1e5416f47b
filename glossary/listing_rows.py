"""What each public list shows of a live version, rendered with its page.

`render_many` is called where glossary.publishing renders live pages
(`render_live` and its batches), so every path that renders a live page again
(its publish, a correction to a person or episode it shows, a see-also target
that changed, `manage.py rerender`) renders these too,
from the same published document and approved facts (glossary.records), never
from the working copy. They are written to the version's `Listing` row
(glossary.listing_index), which exists while the version is live; list pages join them
instead of validating documents and running the template engine per row:

- `row_html`: its row in the A–Z index, on a tag's page and in search results;
- for each person, episode, organisation and tag naming it, its link as their pages list
  it (`ListingName.link`);
- for each person, episode and organisation whose page shows part of it, that part
  with the key the page orders it by (into `ListingName.part`): a person's quotes, an
  episode's moments (quotes, references and timed disclosures), an organisation's
  disclosures;
- `feed_entry`: its Atom `<entry>`, written by Django's own Atom1Feed;
- `sitemap_url`: its sitemap `<url>` with `lastmod`;
- `api_row`: its item in the API's entry list.

The markup is the markup the list templates wrote for each row (tests compare them).
"""

from __future__ import annotations

import datetime
import io
import json
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape
from django.utils.xmlutils import SimplerXMLGenerator

from glossary import api, listing_index, search
from glossary.document import EntryDocument, Facts
from glossary.entry_page import Moment, disclosure_text
from glossary.models import Entry, EntryVersion, Listing
from glossary.paths import absolute, path_for


def render_live(version: EntryVersion, entry: Entry, doc: EntryDocument, facts: Facts) -> None:
    """Render the list rows of `version`, the live version of `entry`, into its listing."""
    render_many([(version, entry, doc, facts)])


def render_many(items: Sequence[tuple[EntryVersion, Entry, EntryDocument, Facts]]) -> None:
    """`render_live` for the pages of a batch, rendered together: a few statements whatever
    the number of versions."""
    if not items:
        return
    rendered = [(version, *render(doc, facts, entry)) for version, entry, doc, facts in items]
    rows = [Listing(pk=version.pk, **row) for version, row, _ in rendered]
    if Listing.objects.bulk_update(rows, list(_ROWS)) < len(rows):
        # Live since before the listing existed (a database migrated but not yet
        # re-rendered): list them now, in this transaction, like any version going live.
        listed = set(
            Listing.objects.filter(pk__in=[row.pk for row in rows]).values_list("pk", flat=True)
        )
        missing = [version for version, *_ in rendered if version.pk not in listed]
        for version in missing:
            search.index_live(version)
        Listing.objects.bulk_update([row for row in rows if row.pk not in listed], list(_ROWS))
    listing_index.write_names(
        [
            (
                version.pk,
                doc,
                f"<li>{entry_link(doc)}</li>",
                {k: json.dumps(v, ensure_ascii=False) for k, v in parts.items()},
            )
            for (version, _, parts), (_, _, doc, _) in zip(rendered, items, strict=True)
        ]
    )


_ROWS = ("row_html", "feed_entry", "sitemap_url", "api_row")


def render(
    doc: EntryDocument, facts: Facts, entry: Entry
) -> tuple[dict[str, str], dict[tuple[str, int], list[Any]]]:
    """The listing's rows, and what each object's page shows of the version."""
    url = path_for("glossary:entry", doc.slug)
    link = entry_link(doc)
    summary = f'<span class="summary">{escape(doc.summary)}</span>' if doc.summary else ""
    rows = {
        "row_html": f"<li>{link}{summary}</li>",
        "feed_entry": feed_entry(doc, entry),
        "sitemap_url": sitemap_url(url, entry.significant_change_at),
        "api_row": api.entry_summary_json(doc.term, doc.slug, doc.summary),
    }
    return rows, named_parts(doc, facts, link)


def entry_link(doc: EntryDocument) -> str:
    """The version as a link to its page, as every list names it."""
    return f'<a href="{escape(path_for("glossary:entry", doc.slug))}">{escape(doc.term)}</a>'


def _moment(facts: Facts, episode_id: int, seconds: int) -> Moment:
    episode = facts.episodes[episode_id]
    show = facts.shows.get(episode.show)
    style = show.deep_link_style if show else ""
    return Moment(episode.number, episode.listen_url, style, seconds, episode.audio_url)


def _moment_link(moment: Moment, *, named: bool = False) -> str:
    """The time as a link that plays the episode; `named`: the text before it names the episode."""
    time = f'<time datetime="{moment.iso}">{moment.label}</time>'
    if not moment.href:
        return time
    hidden = (
        ""
        if named
        else f'<span class="visually-hidden">Listen to episode {moment.number} at </span>'
    )
    return f'<a href="{escape(moment.href)}"{moment.listen_attrs}>{hidden}{time}</a>'


def named_parts(doc: EntryDocument, facts: Facts, link: str) -> dict[tuple[str, int], list[Any]]:
    """(kind, id) -> what that object's page shows of this entry, each with its sort key.

    person: [key, figure] for each of their quotes, newest episode first by key
    ("air date|number|second", compared as text); episode: [second, item] for each
    moment from it; organisation: item for each disclosure naming it, in entry order.
    """
    parts: dict[tuple[str, int], list[Any]] = {}

    def add(kind: str, object_id: int, part: Any) -> None:
        parts.setdefault((kind, object_id), []).append(part)

    def name(pk: int | None) -> str:
        person = facts.people.get(pk) if pk is not None else None
        return escape(person.name) if person else ""

    def affiliated(episode_id: int, speaker: int) -> str:
        org = facts.affiliation(episode_id, speaker)
        return f", {escape(org.name)}" if org else ""

    def moment_item(at: int, episode_id: int, text: str) -> list[Any]:
        return [at, f"<li>{_moment_link(_moment(facts, episode_id, at))} {text}</li>"]

    for ref in doc.references:
        add(
            "episode",
            ref.episode,
            moment_item(ref.at, ref.episode, f"— {escape(ref.text)} ({link})"),
        )
    for d in doc.all_disclosures():
        text = escape(disclosure_text(facts, d))
        if d.episode is not None and d.at is not None:
            disclosed = f'— <span class="disclosure">{text}</span> (disclosed in {link})'
            add("episode", d.episode, moment_item(d.at, d.episode, disclosed))
        if d.organisation is not None:
            item = f'<li><span class="disclosure">{text}</span> ({link})</li>'
            add("organisation", d.organisation, item)
    for q in doc.quotes:
        quoted = f"<blockquote><p>“{escape(q.text)}”</p></blockquote>"
        speaker = f"{name(q.speaker)}{affiliated(q.episode, q.speaker)}"
        figure = f'<figure class="quote">{quoted}<figcaption>{speaker}, quoted in {link}'
        add(
            "episode", q.episode, moment_item(q.start, q.episode, f"{figure}</figcaption></figure>")
        )
        episode = facts.episodes[q.episode]
        show = facts.shows.get(episode.show)
        episode_path = path_for(
            "glossary:episode", show.slug if show else "", episode.season, episode.number
        )
        # The time plays the episode from there, as the entry page's does.
        when = (
            f'<a href="{escape(episode_path)}">episode {episode.number}</a> at '
            f"{_moment_link(_moment(facts, q.episode, q.start), named=True)}"
        )
        aired = (episode.air_date or datetime.date.min).isoformat()
        add(
            "person",
            q.speaker,
            [
                f"{aired}|{episode.number:010}|{q.start:010}",
                f'<figure class="quote">{quoted}<figcaption>{speaker}, {when}; quoted in '
                f"{link}</figcaption></figure>",
            ],
        )
    return parts


def feed_entry(doc: EntryDocument, entry: Entry) -> str:
    """The Atom `<entry>` of the feed (glossary.atom_feed), as Django's Atom1Feed writes it."""
    feed = Atom1Feed(title="", link="", description="")
    feed.add_item(
        title=doc.term,
        link=absolute(path_for("glossary:entry", doc.slug)),
        description=doc.summary,
        # Stable across slug changes: the entry's id, not its address.
        unique_id=f"{settings.SITE_URL}/entries/{entry.pk}",
        unique_id_is_permalink=False,
        pubdate=entry.first_published_at,
        updateddate=entry.significant_change_at,
        categories=[tag.name for tag in doc.tags],
    )
    out = io.StringIO()
    feed.write_items(SimplerXMLGenerator(out, "utf-8", short_empty_elements=True))
    return out.getvalue()


def sitemap_url(path: str, changed: datetime.datetime | None) -> str:
    """The `<url>` of the entries' sitemap (glossary.sitemaps), `lastmod` its last change."""
    # The day in settings.TIME_ZONE, as every reader's page writes it, whatever zone the
    # request that publishes is in (the desk's pages are in the newsroom's).
    day = timezone.localtime(changed, timezone.get_default_timezone()).date() if changed else None
    lastmod = f"<lastmod>{day.isoformat()}</lastmod>" if day else ""
    return f"  <url><loc>{escape(absolute(path))}</loc>{lastmod}</url>\n"
