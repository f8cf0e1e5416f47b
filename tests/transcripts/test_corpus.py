"""Real-world-shaped transcripts (tests/transcripts/data/corpus, written by us in the shapes
tools write): each rule of the parser held against them, and the warnings every door shows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client, override_settings

from glossary.models import Episode, Transcript, TranscriptSegment
from glossary.transcript_imports import import_transcript
from glossary.transcripts.parse import TranscriptError, TranscriptFormat, parse_transcript
from tests.transcripts.test_episode_admin import form_data, url

CORPUS = Path(__file__).parent / "data" / "corpus"


def read(name: str) -> Any:
    return parse_transcript((CORPUS / name).read_bytes())


def said(name: str) -> list[tuple[float, str, str]]:
    return [(s.start, s.speaker, s.text) for s in read(name).segments]


def test_youtube_auto_captions_read_without_their_karaoke_timestamps_or_header() -> None:
    transcript = read("youtube-auto.vtt")

    assert transcript.format is TranscriptFormat.WEBVTT
    assert said("youtube-auto.vtt") == [
        (0.0, "", "welcome back to the show"),
        (2.35, "", "welcome back to the show"),
        (2.36, "", "welcome back to the show today we talk about networks"),
        # Written straight after the cue before, without a blank line, as YouTube does.
        (5.11, "", "that join data centers"),
        (7.0, "", "[Music]"),
    ]
    assert transcript.warnings == ()


def test_a_desktop_editor_export_keeps_what_players_show_and_names_each_skip() -> None:
    transcript = read("descript.vtt")

    assert said("descript.vtt") == [
        (0.0, "Conor", "Welcome back to the show."),
        (0.0, "Jeetu Patel", "Thanks, Conor."),
        (0.0, "", "(laughs)"),  # after </v>: outside every voice, as a browser puts it
        (4.2, "Conor", "We talk about scale across today."),  # a form feed is a space
        (12.0, "Jeetu Patel", "Latency is a budget, 1"),
        (15.5, "Conor", "Is bandwidth the hard part?"),
        (18.0, "Jeetu Patel", "Power is the hard part."),
    ]
    lines = [w.split(":", 1)[0] for w in transcript.warnings]
    assert lines == ["line 19", "line 23", "line 28", "line 29", "line 32", "line 38"]
    assert "(the start time has 60 seconds); the cue is skipped" in transcript.warnings[0]
    assert "ends at 00:00:10.000, before it starts" in transcript.warnings[1]
    assert "a '<' that opens no tag" in transcript.warnings[2]
    assert "'-->' is not a cue timing" in transcript.warnings[3]
    assert "'This line belongs to no cue.' belongs to no cue" in transcript.warnings[4]
    assert "a STYLE block after the first cue is ignored" in transcript.warnings[5]


def test_an_srt_without_cue_numbers_with_a_byte_order_mark_reads_its_speakers() -> None:
    transcript = read("otter-no-numbers.srt")

    assert transcript.format is TranscriptFormat.SRT
    assert said("otter-no-numbers.srt") == [
        (0.0, "Maria Lopez", "Good morning, everyone."),
        (3.5, "Maria Lopez", "Today we look at the budget."),
        (7.0, "Sam Okafor", "Thanks, Maria."),
        (10.25, "Maria Lopez", "Let us start with power."),
    ]
    assert transcript.warnings == ()


@pytest.mark.parametrize(
    ("name", "encoding", "note"),
    [
        ("old-export-cp1252.srt", "Windows-1252", "read as Windows-1252, since the file is not"),
        ("old-export-utf16.srt", "UTF-16", "read as UTF-16, as its byte order mark says"),
    ],
)
def test_old_srt_exports_are_decoded_and_say_how_with_their_tags_stripped(
    name: str, encoding: str, note: str
) -> None:
    transcript = read(name)

    assert transcript.encoding == encoding
    assert transcript.warnings[0].startswith(note)
    assert said(name) == [
        (1.0, "ANNOUNCER", "Welcome to Café Société."),  # {\an8} and <i> gone
        (4.0, "ANNOUNCER", "Our guest wrote “Naïve Networks”."),  # <font> gone
        (8.5, "ANNOUNCER", "Thank you – it’s a pleasure."),  # an unknown <span> gone
    ]


def test_utf16_without_a_byte_order_mark_is_recognised() -> None:
    text = (CORPUS / "old-export-cp1252.srt").read_bytes().decode("cp1252")

    transcript = parse_transcript(text.encode("utf-16-le"))

    assert transcript.encoding == "UTF-16"
    assert transcript.warnings == ("read as UTF-16 (LE): the file has no byte order mark",)
    assert transcript.segments[0].text == "Welcome to Café Société."


def test_an_srt_time_of_4300_digits_is_an_error_naming_the_line() -> None:
    content = (
        "1\n00:00:01,000 --> 00:00:02,000\nHi\n\n2\n"
        + "9" * 4300
        + ":00:00,000 --> 00:00:02,000\nx\n"
    )

    with pytest.raises(TranscriptError, match=r"^line 6: a time with 4,300 digits of hours"):
        parse_transcript(content)


def test_a_file_of_a_million_tags_is_refused_naming_the_line() -> None:
    content = "WEBVTT\n\n00:01.000 --> 00:02.000\nstart\n" + "<b>" * 600_000

    with pytest.raises(TranscriptError, match=r"^line 5: more than 500,000 tags"):
        parse_transcript(content)


@pytest.mark.parametrize(
    "content",
    [
        "WEBVTT\n\n" + "-->\n" * 200_000,
        "WEBVTT\n\n" + "00:01.000 --> 00:02.000\nx\n\n" * 200_000,
        "WEBVTT\n\n00:01.000 --> 00:02.000\n" + "<v a>x</v>" * 200_000,
        "".join(f"{n}\n00:00:01,000 --> 00:00:02,000\nx\n\n" for n in range(200_000)),
    ],
)
def test_a_file_of_a_million_tiny_cues_is_refused_while_it_is_read(content: str) -> None:
    # Each segment is a row stored and read on every quote check: past 100,000, the
    # file is no episode's transcript, and reading on would cost time for nothing.
    with pytest.raises(TranscriptError, match=r"^line \d+: more than 100,000 "):
        parse_transcript(content)


def test_bidi_overrides_and_zero_width_characters_are_not_stored(episode: Episode) -> None:
    import_transcript(episode, (CORPUS / "otter-no-numbers.srt").read_bytes(), origin="o.srt")

    texts = "".join(TranscriptSegment.objects.values_list("text", flat=True))
    assert "budget" in texts
    assert not re.search("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]", texts)


def test_the_import_keeps_the_warnings_on_the_transcript(episode: Episode) -> None:
    stored = import_transcript(episode, (CORPUS / "descript.vtt").read_bytes(), origin="d.vtt")

    assert len(Transcript.objects.get(pk=stored.pk).warnings) == 6
    assert stored.segment_count == 7


def test_cues_past_the_episodes_end_import_with_a_warning(episode: Episode) -> None:
    episode.duration = 8  # the file runs to 0:14
    episode.save()

    stored = import_transcript(episode, (CORPUS / "otter-no-numbers.srt").read_bytes(), origin="o")

    assert stored.segment_count == 4
    assert stored.warnings == [
        "line 7: the cue there ends at 0:10, past the episode's end (0:08) (and 1 more after "
        "it); is this the episode's transcript, and is its duration right?"
    ]


def test_an_episode_without_a_duration_has_no_end_to_pass(episode: Episode) -> None:
    episode.duration = None
    episode.save()

    stored = import_transcript(episode, (CORPUS / "otter-no-numbers.srt").read_bytes(), origin="o")

    assert stored.warnings == []


@override_settings(TRANSCRIPT_MAX_BYTES=100)
def test_a_file_over_the_size_limit_is_refused_at_every_door(
    episode: Episode, tmp_path: Path
) -> None:
    path = tmp_path / "big.vtt"
    path.write_bytes((CORPUS / "descript.vtt").read_bytes())

    with pytest.raises(CommandError, match=r"big.vtt: the file is 859 bytes; .* limited to 100"):
        call_command("import_transcript", "test-show/1/7", str(path))
    assert not Transcript.objects.exists()


def test_import_transcript_prints_each_warning_with_its_line(
    episode: Episode, tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "descript.vtt"
    path.write_bytes((CORPUS / "descript.vtt").read_bytes())

    call_command("import_transcript", "test-show/1/7", str(path))

    out, err = capsys.readouterr()
    assert "Imported 7 segments (WebVTT)" in out and "with the 6 warnings above" in out
    printed = [line for line in err.splitlines() if line.startswith(f"{path}: line ")]
    assert [line.split(":")[1].strip() for line in printed] == [
        "line 19",
        "line 23",
        "line 28",
        "line 29",
        "line 32",
        "line 38",
    ]


def test_import_transcript_refuses_an_srt_time_of_4300_digits_naming_the_line(
    episode: Episode, tmp_path: Path
) -> None:
    path = tmp_path / "huge.srt"
    path.write_text("1\n" + "9" * 4300 + ":00:00,000 --> 00:00:02,000\nHi\n")

    with pytest.raises(CommandError, match=r"huge.srt: line 2: a time with 4,300 digits"):
        call_command("import_transcript", "test-show/1/7", str(path))


def test_the_admin_shows_the_warnings_after_an_upload_and_on_the_episode_page(
    client: Client, editor: User, episode: Episode
) -> None:
    client.force_login(editor)
    upload = (CORPUS / "descript.vtt").read_bytes()

    response = client.post(url(episode), form_data(episode, upload, "descript.vtt"), follow=True)

    page = response.content.decode()
    assert "Imported 7 transcript segments" in page
    # (The admin's messages start with a capital.)
    assert "Descript.vtt: line 19: &#x27;00:00:60.000 --&gt; 00:01:02.000&#x27; is not" in page
    episode_page = client.get(url(episode)).content.decode()
    assert "The import warned 6 times." in episode_page
    assert "line 38: a STYLE block after the first cue is ignored" in episode_page


def test_the_admin_refuses_an_srt_time_of_4300_digits_on_the_form(
    client: Client, editor: User, episode: Episode
) -> None:
    client.force_login(editor)
    upload = b"1\n" + b"9" * 4300 + b":00:00,000 --> 00:00:02,000\nHi\n"

    response = client.post(url(episode), form_data(episode, upload, "huge.srt"))

    assert response.status_code == 200
    assert "huge.srt: line 2: a time with 4,300 digits of hours" in response.content.decode()
    assert not Transcript.objects.exists()


def test_the_admin_says_ten_warnings_and_points_to_the_page_for_the_rest(
    client: Client, editor: User, episode: Episode
) -> None:
    client.force_login(editor)
    upload = (
        "WEBVTT\n\n"
        + "".join(f"00:{n:02d}.000 --> 00:00.000\nx\n\n" for n in range(1, 13))
        + "00:20.000 --> 00:21.000\nKept.\n"
    ).encode()

    response = client.post(url(episode), form_data(episode, upload, "many.vtt"), follow=True)

    page = response.content.decode()
    assert page.count("before it starts") == 10
    assert "2 more warnings are listed on the episode&#x27;s page" in page
    assert "The import warned 12 times." in client.get(url(episode)).content.decode()
