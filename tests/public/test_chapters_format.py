"""Every public episode's chapters.json follows the Podcasting 2.0 JSON Chapters format.

The format (podcast namespace, "JSON Chapters Format", version 1.2) as a JSON Schema
written from its text: a `version` string and a `chapters` array are required; the
document's optional `author`, `title`, `podcastName`, `description`, `fileName` are
strings and `waypoints` a boolean; each chapter requires `startTime` (seconds, a number)
and may have `title`, `img`, `url` (strings), `toc` (a boolean), `endTime` (seconds) and
a `location` (`name` and `geo`, a geo URI). Beyond the schema: chapters in ascending
`startTime`, as the format assumes; an `endTime` not before its start; the links absolute;
served as `application/json+chapters`, as the format asks.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft202012Validator

from glossary.models import Entry, EpisodeReference, PublicRecord
from tests.live import make_live_unchecked

SECONDS = {"type": "number", "minimum": 0}
TEXT = {"type": "string"}
CHAPTERS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["version", "chapters"],
    "properties": {
        "version": {"type": "string", "pattern": r"^\d+\.\d+(\.\d+)?$"},
        "chapters": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["startTime"],
                "properties": {
                    "startTime": SECONDS,
                    "endTime": SECONDS,
                    "title": TEXT,
                    "img": TEXT,
                    "url": TEXT,
                    "toc": {"type": "boolean"},
                    "location": {
                        "type": "object",
                        "required": ["name", "geo"],
                        "properties": {
                            "name": TEXT,
                            "geo": {"type": "string", "pattern": "^geo:"},
                            "osm": TEXT,
                        },
                    },
                },
            },
        },
        "author": TEXT,
        "title": TEXT,
        "podcastName": TEXT,
        "description": TEXT,
        "fileName": TEXT,
        "waypoints": {"type": "boolean"},
    },
}


def chapters_violations(data: Any) -> list[str]:
    """Every way the document leaves the JSON Chapters format, each saying where."""
    found = [
        f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in Draft202012Validator(CHAPTERS_SCHEMA).iter_errors(data)
    ]
    if found:
        return found
    starts = [chapter["startTime"] for chapter in data["chapters"]]
    if starts != sorted(starts):
        found.append(f"chapters are not in ascending startTime: {starts}")
    for n, chapter in enumerate(data["chapters"]):
        if chapter.get("endTime", chapter["startTime"]) < chapter["startTime"]:
            found.append(f"/chapters/{n}: ends before it starts")
        for key in ("url", "img"):
            if key in chapter and not (
                urlsplit(chapter[key]).scheme in {"http", "https"} and urlsplit(chapter[key]).netloc
            ):
                found.append(f"/chapters/{n}/{key}: {chapter[key]!r} is not a full URL")
    return found


def every_episodes_chapters(client) -> dict[str, list[str]]:
    found = {}
    # An episode's record is found by its address, show/season/number.
    for key in PublicRecord.objects.filter(kind=PublicRecord.Kind.EPISODE).values_list(
        "slug", flat=True
    ):
        response = client.get(f"/episodes/{key}/chapters.json")
        assert response.status_code == 200, key
        assert response["Content-Type"].startswith("application/json+chapters"), key
        found[key] = chapters_violations(json.loads(response.content))
    return found


def test_every_public_episodes_chapters_follow_the_format(client, demo):
    found = every_episodes_chapters(client)
    assert len(found) >= 2
    assert {key: v for key, v in found.items() if v} == {}


def test_many_terms_at_one_second_and_out_of_order_stay_in_the_format(client, demo):
    # References written out of order, two entries at the same second.
    interconnect = Entry.objects.get(slug="interconnect")
    gpu = Entry.objects.get(slug="gpu")
    episode = interconnect.references.first().episode
    for entry, at in ((gpu, 3000), (gpu, 12), (interconnect, 12)):
        EpisodeReference.objects.create(entry=entry, episode=episode, at=at, text="Said.")
    for entry in (gpu, interconnect):
        make_live_unchecked(entry)
    found = every_episodes_chapters(client)
    assert {key: v for key, v in found.items() if v} == {}


@pytest.mark.parametrize(
    ("mutation", "expected"),
    [
        (lambda d: d.pop("version"), "'version' is a required property"),
        (lambda d: d["chapters"][0].pop("startTime"), "'startTime' is a required property"),
        (lambda d: d["chapters"][0].update(startTime="25:38"), "is not of type 'number'"),
        (lambda d: d["chapters"][0].update(toc="no"), "is not of type 'boolean'"),
        (lambda d: d["chapters"].append({"startTime": 0}), "ascending"),
        (lambda d: d["chapters"][0].update(endTime=1), "ends before it starts"),
        (lambda d: d["chapters"][0].update(url="/glossary/x/"), "full URL"),
    ],
)
def test_the_check_reports_each_departure_from_the_format(client, demo, mutation, expected):
    data = json.loads(client.get("/episodes/demo-show/3/44/chapters.json").content)
    mutation(data)
    problems = chapters_violations(data)
    assert any(expected in problem for problem in problems), (expected, problems)
