"""The public page says which quotes were checked against the transcript, from published
content only: the check and the passage are frozen into the version when it is saved."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client

from editorial.versions import _lines
from glossary import document, publishing
from glossary.models import Entry, Episode, Quote
from glossary.transcript_imports import import_transcript
from tests.live import make_live_unchecked

CHECKED = "Checked against the episode transcript."


def page(client: Client) -> str:
    response = client.get("/glossary/interconnect/")
    assert response.status_code == 200
    return response.content.decode()


def test_both_seed_quotes_say_they_were_checked_and_open_the_transcript_around_them(
    client: Client, demo: Any
) -> None:
    html = page(client)

    assert html.count(CHECKED) == 2
    passages = re.findall(
        r'<details class="transcript-passage">\s*<summary>(.*?)</summary>(.*?)</details>',
        html,
        re.S,
    )
    assert [summary for summary, _ in passages] == [
        "The transcript around 25:38",
        "The transcript around 3:07",
    ]
    # Verbatim, fillers and all: "lightly edited" is something a reader can see.
    assert "operate as, um, one giant cluster, you know, one coherent cluster" in passages[0][1]
    assert "Even in the, uh, in the hardware" in passages[1][1]


def test_a_quote_placed_at_the_wrong_time_claims_no_check(client: Client, demo: Any) -> None:
    entry = Entry.objects.get(slug="interconnect")
    Quote.objects.filter(entry=entry, start=1538).update(start=600)
    make_live_unchecked(entry)

    html = page(client)

    assert html.count(CHECKED) == 1
    assert "The transcript around 10:00" not in html


def test_a_transcript_changed_after_publishing_changes_nothing_readers_see(
    client: Client, demo: Any
) -> None:
    before = page(client)
    episode = Episode.objects.get(number=44)
    import_transcript(
        episode,
        "WEBVTT\n\n00:25:38.000 --> 00:25:44.000\n<v Jeetu Patel>Something unreviewed.\n",
        origin="new.vtt",
    )
    publishing.rerender_all()

    assert page(client) == before
    assert "Something unreviewed" not in before


def test_a_version_saved_before_checks_existed_still_reads_as_unchecked(demo: Any) -> None:
    version = Entry.objects.get(slug="interconnect").live_version
    assert version is not None
    data = dict(version.data)
    data["quotes"] = [{k: v for k, v in q.items() if k != "check"} for q in data["quotes"]]

    doc = document.load(data)

    assert [q.check for q in doc.quotes] == [None, None]


def test_a_new_transcript_is_recorded_as_a_version_for_the_next_publish(demo: Any) -> None:
    entry = Entry.objects.get(slug="interconnect")
    live = entry.live_version
    episode = Episode.objects.get(number=44)

    import_transcript(
        episode,
        "WEBVTT\n\n00:25:38.000 --> 00:25:44.000\n<v Jeetu Patel>Something unreviewed.\n",
        origin="new.vtt",
    )

    latest = entry.versions.order_by("-number").first()
    assert latest is not None and latest != live
    assert latest.comment == "Transcript of episode 44 imported from new.vtt."
    assert document.load(latest.data).quotes[0].check.verdict == "not_found"
    entry.refresh_from_db()
    assert entry.live_version == live and entry.has_unpublished_changes


def test_the_version_comparison_shows_what_readers_are_told_about_each_quote(demo: Any) -> None:
    doc = document.load(Entry.objects.get(slug="interconnect").live_version.data)
    checked = dict(_lines(doc))["Quotes checked against the transcript"]

    assert checked[0].startswith("“Operate as one giant cluster, one coherent cluster. And when")
    assert checked[0].endswith(": match at 25:38, shown to readers")
    assert checked[1].startswith("    Jeetu Patel: hundreds of kilometers apart operate as, um,")


def test_the_api_says_the_same_as_the_page(client: Client, demo: Any) -> None:
    quotes = client.get("/api/v1/entries/interconnect/").json()["quotes"]

    assert [q["transcript_checked"] for q in quotes] == [True, True]
    assert quotes[0]["transcript_passage"].startswith(
        "Jeetu Patel: hundreds of kilometers apart operate as, um, one giant cluster"
    )
