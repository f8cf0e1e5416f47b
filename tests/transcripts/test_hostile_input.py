"""Hostile transcripts: JSON nested past the parser's recursion, numbers past int()'s digit
limit, and control characters (NUL cannot be stored in PostgreSQL text) are refused with
the parser's own error naming the line, through every door: the parser, the episode
admin's upload and `manage.py import_transcript`; nothing is saved."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from glossary.models import Episode, Transcript, TranscriptSegment
from glossary.transcript_imports import import_transcript
from glossary.transcripts.parse import TranscriptError, parse_transcript
from glossary.transcripts.podcast_feed import FeedError, parse_feed
from tests.transcripts.test_episode_admin import VTT as GOOD
from tests.transcripts.test_episode_admin import form_data, url

NESTED = b"[" * 100_000 + b"]" * 100_000
NUL_VTT = b"WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ada Guest>hi\x00there\n"
NUL_SRT = (
    b"1\n00:00:01,000 --> 00:00:04,000\nfine\n\n2\n00:00:05,000 --> 00:00:06,000\nhi\x00there\n"
)


@pytest.mark.parametrize(
    "content",
    [
        NESTED,
        b'{"segments": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b"[" * 100_000,  # never closed
    ],
)
def test_json_nested_past_the_recursion_limit_is_a_transcript_error(content: bytes) -> None:
    with pytest.raises(TranscriptError, match=r"^line 1: the JSON is nested too deeply"):
        parse_transcript(content)


def test_json_nested_within_the_recursion_limit_but_deep_is_refused_too() -> None:
    # Reads with json.loads, but anything that walked it later (an error message's
    # repr, in a deep request stack) could still hit the recursion limit.
    deep = "[" * 500 + "]" * 500
    body = '{"version": "1.0.0",\n "segments": [\n' + deep + "]}"
    with pytest.raises(TranscriptError, match=r"^line 3: the JSON is nested too deeply"):
        parse_transcript(body)


def test_a_number_past_the_digit_limit_is_a_transcript_error() -> None:
    content = '{"segments": [{"startTime": ' + "1" * 5000 + ', "body": "x"}]}'
    with pytest.raises(TranscriptError, match="the JSON cannot be read: Exceeds the limit"):
        parse_transcript(content)


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (NUL_VTT, 4),
        (NUL_SRT, 7),
        (b'{"segments": [\n{"startTime": 1, "body": "hi\x00there"}]}', 2),
        (b"WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nescape \x1b[31m red\n", 4),
        (b"WEBVTT\x00\n", 1),
    ],
)
def test_a_control_character_is_refused_naming_its_line(content: bytes, line: int) -> None:
    with pytest.raises(TranscriptError, match=rf"^line {line}: the control character U\+00"):
        parse_transcript(content)


def test_nul_written_as_a_json_escape_is_refused_naming_the_segment() -> None:
    content = (
        '{"segments": [{"startTime": 1, "body": "ok"}, {"startTime": 2, "body": "hi\\u0000"}]}'
    )
    with pytest.raises(
        TranscriptError, match=r"^segment 1: 'body' holds the control character U\+0000 \(NUL\)"
    ):
        parse_transcript(content)
    speaker = '{"segments": [{"startTime": 1, "body": "ok", "speaker": "A\\u0007"}]}'
    with pytest.raises(TranscriptError, match=r"^segment 0: 'speaker' holds .* U\+0007"):
        parse_transcript(speaker)


def test_tab_and_line_endings_are_still_read() -> None:
    content = b"WEBVTT\r\n\r\n00:00:01.000 --> 00:00:04.000\r\n<v Ada>hi\tthere\r\n"
    assert parse_transcript(content).segments[0].text == "hi there"


@pytest.mark.parametrize(
    ("upload", "shown"),
    [
        (NESTED, "nested.json: line 1: the JSON is nested too deeply"),
        (NUL_VTT, "nul.vtt: line 4: the control character U+0000 (NUL)"),
    ],
)
def test_the_admin_upload_shows_a_form_error_and_saves_nothing(
    client: Client, editor: User, episode: Episode, upload: bytes, shown: str
) -> None:
    import_transcript(episode, GOOD, origin="good.vtt")
    client.force_login(editor)
    name = shown.split(":", 1)[0]

    response = client.post(url(episode), form_data(episode, upload, name))

    assert response.status_code == 200
    html = response.content.decode()
    assert shown in html and "Nothing was imported." in html
    episode.refresh_from_db()
    assert episode.title == "Seven"
    assert Transcript.objects.get().origin == "good.vtt"
    assert list(TranscriptSegment.objects.values_list("text", flat=True)) == [
        "Hello there, listeners."
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (NESTED, r"nested.json: line 1: the JSON is nested too deeply"),
        (NUL_VTT, r"nul.vtt: line 4: the control character U\+0000 \(NUL\)"),
    ],
)
def test_import_transcript_refuses_with_a_command_error_and_saves_nothing(
    episode: Episode, tmp_path: Path, content: bytes, message: str
) -> None:
    import_transcript(episode, GOOD, origin="good.vtt")
    path = tmp_path / message.split(":", 1)[0]
    path.write_bytes(content)

    with pytest.raises(CommandError, match=rf"{message}.*keeps the transcript it had"):
        call_command("import_transcript", "test-show/1/7", str(path))
    assert Transcript.objects.get().origin == "good.vtt"
    assert list(TranscriptSegment.objects.values_list("text", flat=True)) == [
        "Hello there, listeners."
    ]


FEED = (
    '<?xml version="1.0"?><rss version="2.0"><channel><title>Show</title>'
    "<item><title>One{}</title><guid>g1</guid></item></channel></rss>"
)


@pytest.mark.parametrize("bad", ["\x00", "\x1b", "&#0;", "&#x1b;"])
def test_the_feed_parser_refuses_control_characters_naming_the_line(bad: str) -> None:
    # XML 1.0 forbids them, raw or as references; expat refuses both.
    with pytest.raises(FeedError, match=r"^line 1: not well-formed XML"):
        parse_feed(FEED.format(bad).encode())
