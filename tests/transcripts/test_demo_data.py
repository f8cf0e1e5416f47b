"""The demo's feed and transcripts: marked as demo text, and consistent with each other."""

import json
import re
from pathlib import Path

from demo.demo_data import FEED, TRANSCRIPTS
from glossary.transcripts.parse import TranscriptFormat, parse_transcript
from glossary.transcripts.podcast_feed import Person, parse_feed


def test_every_demo_file_says_in_itself_that_it_is_demo_data():
    feed = FEED.read_text()
    assert re.search(r"<!--\s*DEMO DATA", feed)
    assert "<description>Demo data" in feed
    vtt = TRANSCRIPTS[44].read_text()
    assert re.search(r"^NOTE\nDEMO TEXT", vtt, re.MULTILINE)
    assert json.loads(TRANSCRIPTS[28].read_text())["demo"].startswith("DEMO TEXT")


def test_the_transcripts_are_webvtt_for_44_and_json_for_28():
    assert parse_transcript(TRANSCRIPTS[44].read_bytes()).format is TranscriptFormat.WEBVTT
    assert parse_transcript(TRANSCRIPTS[28].read_bytes()).format is TranscriptFormat.JSON


def test_the_feed_describes_the_show_and_its_two_episodes():
    feed = parse_feed(FEED.read_bytes())

    assert (feed.title, feed.link) == ("The Show", "https://podcast.example/")
    assert feed.persons == (Person("Conor", href="https://podcast.example/people/conor"),)
    episodes = {item.episode: item for item in feed.items}
    assert sorted(n for n in episodes if n is not None) == [28, 44]
    assert None not in episodes
    assert (episodes[44].season, episodes[44].duration) == (3, 58 * 60 + 30)
    assert (episodes[28].season, episodes[28].duration) == (2, 47 * 60 + 10)
    for item in episodes.values():
        assert not item.title.startswith("Episode")
        assert item.published is not None
        assert item.enclosure is not None
        assert item.enclosure.url.startswith("https://podcast.example/")
        assert item.enclosure.type == "audio/mpeg"


def test_the_feeds_transcript_links_name_the_demo_files():
    feed = parse_feed(FEED.read_bytes())

    for item in feed.items:
        assert item.episode is not None
        (link,) = item.transcripts
        assert Path(link.url).name == TRANSCRIPTS[item.episode].name
        assert TRANSCRIPTS[item.episode].exists()
    types = {item.episode: item.transcripts[0].type for item in feed.items}
    assert types == {44: "text/vtt", 28: "application/json"}


def test_the_feed_names_the_host_and_each_episodes_guest():
    episodes = {item.episode: item for item in parse_feed(FEED.read_bytes()).items}

    assert [(p.name, p.role) for p in episodes[44].persons] == [
        ("Conor", "host"),
        ("Jeetu Patel", "guest"),
    ]
    assert [(p.name, p.role) for p in episodes[28].persons] == [
        ("Conor", "host"),
        ("Anush Elangovan", "guest"),
    ]
    assert episodes[44].persons[1].href == "https://www.cisco.com/"
    assert episodes[28].persons[1].href == "https://www.amd.com/"


def test_the_transcripts_speakers_are_the_feeds_people():
    episodes = {item.episode: item for item in parse_feed(FEED.read_bytes()).items}

    for number, path in TRANSCRIPTS.items():
        speakers = {s.speaker for s in parse_transcript(path.read_bytes()).segments}
        assert speakers == {p.name for p in episodes[number].persons}
