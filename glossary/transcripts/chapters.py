"""Podcasting 2.0 output: JSON chapters and `podcast:soundbite` suggestions.

Field names follow the podcast namespace: the JSON Chapters format 1.2
(`version`, `chapters[].startTime/title/img/url/toc/endTime`) and `podcast:soundbite`
(`startTime`, `duration`, and the element's text as its title). Times are seconds; whole
seconds are written as integers, as the specification's examples do.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

CHAPTERS_VERSION = "1.2.0"
# The namespace recommends soundbites of 15 to 120 seconds and titles of at most 128
# characters.
SOUNDBITE_MIN_SECONDS = 15.0
SOUNDBITE_MAX_SECONDS = 120.0
SOUNDBITE_TITLE_CHARS = 128
# For a quote with no end time: about 150 words a minute, as people talk on a podcast.
WORDS_PER_SECOND = 2.5


@dataclass(frozen=True)
class Chapter:
    """One chapter marker. `toc=False` makes a silent marker (metadata only, not listed)."""

    start_time: float
    title: str | None = None
    url: str | None = None
    img: str | None = None
    end_time: float | None = None
    toc: bool | None = None


class QuoteLike(Protocol):
    """What `soundbites` reads from a quote; `glossary.models.Quote` has these attributes."""

    @property
    def start(self) -> int | None: ...

    @property
    def end(self) -> int | None: ...

    @property
    def text(self) -> str: ...


def chapters_json(
    chapters: Iterable[Chapter],
    *,
    title: str | None = None,
    podcast_name: str | None = None,
    author: str | None = None,
) -> dict[str, object]:
    """The JSON Chapters document for `chapters`, in ascending `startTime` as the format
    assumes. Raises ValueError for a negative start or an end before its start."""
    ordered = sorted(chapters, key=lambda chapter: chapter.start_time)
    items = []
    for chapter in ordered:
        if chapter.start_time < 0 or not math.isfinite(chapter.start_time):
            raise ValueError(f"chapter {chapter.title!r} starts at {chapter.start_time}")
        if chapter.end_time is not None and chapter.end_time < chapter.start_time:
            raise ValueError(
                f"chapter {chapter.title!r} ends at {chapter.end_time}, "
                f"before it starts at {chapter.start_time}"
            )
        item: dict[str, object] = {"startTime": _seconds(chapter.start_time)}
        fields = {
            "title": chapter.title,
            "img": chapter.img,
            "url": chapter.url,
            "toc": chapter.toc,
            "endTime": None if chapter.end_time is None else _seconds(chapter.end_time),
        }
        item.update({key: value for key, value in fields.items() if value is not None})
        items.append(item)
    document: dict[str, object] = {"version": CHAPTERS_VERSION}
    optional = {"author": author, "title": title, "podcastName": podcast_name}
    document.update({key: value for key, value in optional.items() if value})
    document["chapters"] = items
    return document


def soundbites(quotes: Iterable[QuoteLike]) -> list[dict[str, object]]:
    """`podcast:soundbite` suggestions for quotes, in time order: `startTime` and `duration`
    in seconds and the quote as `title`. A quote without an end lasts as long as its words
    take to say; durations are held to the recommended 15-120 seconds, so a short quote
    brings the moments after it. Quotes with no start are skipped."""
    bites: list[dict[str, object]] = []
    for quote in sorted((q for q in quotes if q.start is not None), key=lambda q: q.start or 0):
        start = quote.start or 0
        if quote.end is not None and quote.end > start:
            spoken = float(quote.end - start)
        else:
            spoken = math.ceil(len(quote.text.split()) / WORDS_PER_SECOND)
        duration = min(max(spoken, SOUNDBITE_MIN_SECONDS), SOUNDBITE_MAX_SECONDS)
        bites.append(
            {
                "startTime": _seconds(start),
                "duration": _seconds(duration),
                "title": _title(quote.text),
            }
        )
    return bites


def _seconds(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 3)


def _title(text: str) -> str:
    words = " ".join(text.split())
    if len(words) <= SOUNDBITE_TITLE_CHARS:
        return words
    cut = words[: SOUNDBITE_TITLE_CHARS - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"
