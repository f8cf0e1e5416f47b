from pathlib import Path

import pytest

from glossary.transcripts.parse import Segment, TranscriptError, TranscriptFormat, parse_transcript

DATA = Path(__file__).parent / "data"


def test_it_reads_cues_and_takes_name_prefixes_as_speakers():
    transcript = parse_transcript((DATA / "interview.srt").read_bytes())

    assert transcript.format is TranscriptFormat.SRT
    assert transcript.segments[0] == Segment(
        0.0, 4.2, "CONOR", "Welcome back to the show. I'm Conor."
    )
    assert transcript.segments[2] == Segment(
        9.75, 12.0, "Jeetu Patel", "Thanks for having me. It's great to be here."
    )
    assert transcript.segments[-1] == Segment(3723.25, 3727.0, "Jeetu Patel", "Thank you.")


def test_a_cue_without_a_name_keeps_the_speaker_before_it():
    transcript = parse_transcript((DATA / "interview.srt").read_bytes())

    assert transcript.segments[1].speaker == "CONOR"
    assert transcript.segments[1].text == (
        "My guest today builds the networks that join data centers together."
    )


def test_a_single_word_before_a_colon_said_once_is_not_a_speaker():
    transcript = parse_transcript((DATA / "interview.srt").read_bytes())

    assert transcript.segments[3] == Segment(
        12.0, 15.5, "Jeetu Patel", "Look: the distances are real."
    )


def test_a_single_name_that_recurs_is_a_speaker():
    content = (
        "1\n00:00:01,000 --> 00:00:02,000\nConor: Hi.\n\n"
        "2\n00:00:02,000 --> 00:00:03,000\nAnush: Hello.\n\n"
        "3\n00:00:03,000 --> 00:00:04,000\nConor: Welcome.\n\n"
        "4\n00:00:04,000 --> 00:00:05,000\nAnush: Thanks.\n"
    )

    speakers = [segment.speaker for segment in parse_transcript(content).segments]

    assert speakers == ["Conor", "Anush", "Conor", "Anush"]


def test_it_accepts_a_full_stop_before_the_milliseconds():
    content = "1\n00:00:01.500 --> 00:00:02.000\nHi.\n"

    assert parse_transcript(content).segments == (Segment(1.5, 2.0, "", "Hi."),)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("1\n00:00:01,000 --> 00:00:0x,000\nHi\n", "line 2: '00:00:01,000 --> 00:00:0x,000' is"),
        ("1\n00:00:01,000 -> 00:00:02,000\nHi\n", "line 2: .* is not a cue timing"),
        ("1\n00:00:01,000 --> 00:00:02,000\nHi\n\nHello\n", "line 5: expected a cue number"),
        ("1\n", "line 2: cue 1 has no timing line"),
        ("1\n00:00:05,000 --> 00:00:04,000\nHi\n", "line 2: ends at 00:00:04.000, before"),
        (
            "1\n00:00:09,000 --> 00:00:10,000\nA\n\n2\n00:00:05,000 --> 00:00:06,000\nB\n",
            "line 6: starts at 00:00:05.000, before the cue before it",
        ),
        (
            "1\n00:00:01,000 --> 00:00:02,000\nHi\n00:00:02,000 --> 00:00:03,000\nThere\n",
            "line 4: '-->' inside a cue's text",
        ),
    ],
)
def test_it_names_the_line_of_a_broken_srt_file(content, problem):
    with pytest.raises(TranscriptError, match=problem):
        parse_transcript(content)
