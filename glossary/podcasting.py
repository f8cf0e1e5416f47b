"""Podcasting 2.0 back out: per episode, chapters naming the glossary terms and soundbites.

- `/episodes/<show>/<season>/<number>/chapters.json`: the JSON Chapters format
  (`application/json+chapters`), one chapter per glossary entry at each second an
  episode reference or quote of its live version places in the episode, titled with
  the term and linking the entry's page. A show's host can name it in the feed's
  `<podcast:chapters url="..." type="application/json+chapters"/>`.
- `/episodes/<show>/<season>/<number>/soundbites.json`: `podcast:soundbite`
  suggestions for the published quotes from the episode (start, duration, title), each
  with the entry it is quoted in, and the same as XML elements to paste into the feed.

Only published content: the episode must have a public record, and the terms, quotes
and times come from live versions (glossary.selectors), the episode's title and the
show's name from public records. Served like every public page (glossary.cache:
ETag, Last-Modified, Cache-Control, the page cache).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from glossary import document, selectors
from glossary.cache import public_page
from glossary.document import EntryDocument
from glossary.models import EntryVersion, PublicRecord
from glossary.paths import absolute, path_for
from glossary.transcripts.chapters import Chapter, chapters_json, soundbites

Kind = PublicRecord.Kind
CHAPTERS_CONTENT_TYPE = "application/json+chapters"


@dataclass(frozen=True)
class _Quote:
    start: int | None
    end: int | None
    text: str


def _episode(show: str, season: int, number: int) -> tuple[PublicRecord, document.Episode]:
    record = selectors.public_record(Kind.EPISODE, f"{show}/{season}/{number}")
    if record is None:
        raise Http404("No public episode at this address.")
    return record, document.Episode.model_validate(record.data)


def _live(record: PublicRecord) -> list[tuple[EntryVersion, EntryDocument]]:
    versions = selectors.live_versions_naming(Kind.EPISODE, record.object_id).only(
        "term", "slug", "data"
    )
    return [(v, document.load(v.data)) for v in versions.order_by("term", "pk")]


def _json(data: object, content_type: str) -> HttpResponse:
    body = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return HttpResponse(body.encode(), content_type=f"{content_type}; charset=utf-8")


@require_safe
@public_page
def chapters(request: HttpRequest, show: str, season: int, number: int) -> HttpResponse:
    record, episode = _episode(show, season, number)
    show_record = selectors.records_by_id(Kind.SHOW, [episode.show]).get(episode.show)
    marks: dict[tuple[int, str], Chapter] = {}
    for version, doc in _live(record):
        url = absolute(path_for("glossary:entry", version.slug))
        seconds = {r.at for r in doc.references if r.episode == record.object_id}
        seconds |= {q.start for q in doc.quotes if q.episode == record.object_id}
        for at in seconds:
            marks.setdefault(
                (at, version.term), Chapter(start_time=at, title=version.term, url=url)
            )
    data = chapters_json(
        [marks[key] for key in sorted(marks)],
        title=episode.title,
        podcast_name=show_record.name if show_record else None,
    )
    return _json(data, CHAPTERS_CONTENT_TYPE)


@require_safe
@public_page
def soundbite_list(request: HttpRequest, show: str, season: int, number: int) -> HttpResponse:
    record, _episode_facts = _episode(show, season, number)
    bites: list[dict[str, object]] = []
    for version, doc in _live(record):
        url = absolute(path_for("glossary:entry", version.slug))
        quotes = [
            _Quote(q.start, q.end, q.text) for q in doc.quotes if q.episode == record.object_id
        ]
        bites += [bite | {"entry": url} for bite in soundbites(quotes)]
    bites.sort(key=lambda b: (float(str(b["startTime"])), str(b["title"])))
    xml = "\n".join(
        f"<podcast:soundbite startTime={quoteattr(str(b['startTime']))} "
        f"duration={quoteattr(str(b['duration']))}>{escape(str(b['title']))}</podcast:soundbite>"
        for b in bites
    )
    return _json({"episode": record.slug, "soundbites": bites, "xml": xml}, "application/json")
