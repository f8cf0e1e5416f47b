from pathlib import Path

import pytest

from glossary.transcripts.parse import Segment, TranscriptError, TranscriptFormat, parse_transcript

DATA = Path(__file__).parent / "data"


def vtt(body: str) -> str:
    return "WEBVTT\n\n" + body


def test_it_reads_cues_with_their_voices_and_times():
    transcript = parse_transcript((DATA / "interview.vtt").read_bytes())

    assert transcript.format is TranscriptFormat.WEBVTT
    assert transcript.segments[:4] == (
        Segment(0.0, 4.2, "Conor", "Welcome back to the show. I'm Conor."),
        Segment(
            4.2,
            9.75,
            "Conor",
            "My guest today builds the networks that join data centers together.",
        ),
        Segment(9.75, 12.0, "Jeetu Patel", "Thanks for having me. It's great to be here."),
        Segment(12.0, 15.5, "Conor", 'Let\'s start with "scale across" & what it means.'),
    )


def test_it_splits_a_cue_with_two_voices_into_two_segments():
    transcript = parse_transcript((DATA / "interview.vtt").read_bytes())

    assert transcript.segments[4:6] == (
        Segment(62.0, 66.0, "Conor", "Did you see that?"),
        Segment(62.0, 66.0, "Jeetu Patel", "I did."),
    )


def test_it_reads_hours_and_drops_karaoke_timestamps_inside_a_cue():
    transcript = parse_transcript((DATA / "interview.vtt").read_bytes())

    assert transcript.segments[-1] == Segment(3723.25, 3727.0, "Jeetu Patel", "Thank you.")


def test_a_cue_without_a_voice_has_no_speaker():
    transcript = parse_transcript(vtt("00:01.000 --> 00:02.000\nJust words.\n"))

    assert transcript.segments == (Segment(1.0, 2.0, "", "Just words."),)


def test_it_accepts_a_byte_order_mark_and_windows_line_endings():
    content = "\ufeffWEBVTT\r\n\r\n00:00:01.000 --> 00:00:02.000\r\n<v Conor>Hi.\r\n".encode()

    assert parse_transcript(content).segments == (Segment(1.0, 2.0, "Conor", "Hi."),)


def test_it_skips_cues_with_no_words():
    transcript = parse_transcript(vtt("00:01.000 --> 00:02.000\n<v Conor></v>\n\n"))

    assert transcript.segments == ()
    assert not transcript


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("WEBVTTX\n\n00:01.000 --> 00:02.000\nHi\n", "line 1: a WebVTT file starts with"),
        (vtt("00:01.000 --> 00:02.000\nHi\n\nhello there\n"), "line 6: expected a cue timing"),
        (vtt("00:01.000 --> 00:02.00\nHi\n"), "line 3: '00:01.000 --> 00:02.00' is not a cue"),
        (vtt("1:02.000 --> 1:03.000\nHi\n"), "line 3: '1:02.000 --> 1:03.000' is not a cue"),
        (vtt("00:00:61.000 --> 00:01:02.000\nHi\n"), "line 3: .* is not a cue timing"),
        (vtt("cue-7\n00:05.000 --> 00:04.000\nHi\n"), "line 4: ends at 00:00:04.000, before it"),
        (
            vtt("00:09.000 --> 00:10.000\nLater\n\n00:05.000 --> 00:06.000\nEarlier\n"),
            "line 6: starts at 00:00:05.000, before the cue before it .*time order",
        ),
        (
            vtt("00:01.000 --> 00:02.000\nHi\n00:02.000 --> 00:03.000\nThere\n"),
            "line 5: '-->' inside a cue's text; is a blank line missing",
        ),
        ("WEBVTT\n00:01.000 --> 00:02.000\nHi\n", "line 2: '-->' inside the WEBVTT header"),
        (vtt("NOTE a comment\n00:01.000 --> 00:02.000\nHi\n"), "line 4: '-->' inside a NOTE"),
        (vtt("00:01.000 --> 00:02.000\n<v Conor>1 < 2\n"), "line 4: a '<' that opens no tag"),
    ],
)
def test_it_names_the_line_of_a_broken_webvtt_file(content, problem):
    with pytest.raises(TranscriptError, match=problem):
        parse_transcript(content)
