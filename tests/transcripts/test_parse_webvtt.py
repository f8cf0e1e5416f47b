import re
from pathlib import Path

import pytest

from glossary.transcripts.parse import (
    MAX_WARNINGS,
    Segment,
    TranscriptError,
    TranscriptFormat,
    parse_transcript,
)

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
        ("WEBVT\n\n00:01.000 --> 00:02.000\nHi\n", "line 1: not a transcript we can read"),
        ("\n\nWEBVTT\n\n00:01.000 --> 00:02.000\nHi\n", "line 3: not a transcript we can"),
    ],
)
def test_it_refuses_only_what_a_browser_refuses_naming_the_line(content, problem):
    with pytest.raises(TranscriptError, match=problem):
        parse_transcript(content)


def read(body: str) -> tuple[list[tuple[float, str, str]], tuple[str, ...]]:
    transcript = parse_transcript(vtt(body))
    return [(s.start, s.speaker, s.text) for s in transcript.segments], transcript.warnings


@pytest.mark.parametrize(
    ("body", "segments", "warning"),
    [
        (
            "00:01.000 --> 00:02.00\nLost\n\n00:03.000 --> 00:04.000\nKept\n",
            [(3.0, "", "Kept")],
            r"^line 3: '00:01.000 --> 00:02.00' is not a cue timing \(the end time needs "
            r"exactly three digits of milliseconds\); the cue is skipped",
        ),
        (
            "1:02.000 --> 1:03.000\nLost\n",
            [],
            r"^line 3: '1:02.000 --> 1:03.000' is not a cue timing \(the start time has hours",
        ),
        (
            "00:00:60.000 --> 00:01:02.000\nLost\n\n00:01:03.000 --> 00:01:04.000\nKept\n",
            [(63.0, "", "Kept")],
            r"^line 3: .* is not a cue timing \(the start time has 60 seconds\)",
        ),
        (
            "cue-7\n00:05.000 --> 00:04.000\nLost\n\n00:06.000 --> 00:07.000\nKept\n",
            [(6.0, "", "Kept")],
            r"^line 4: the cue ends at 00:00:04.000, before it starts \(00:00:05.000\); skipped",
        ),
        (
            "00:01.000 --> 00:02.000\nKept\n-->\nLost\n\n00:03.000 --> 00:04.000\nAlso kept\n",
            [(1.0, "", "Kept"), (3.0, "", "Also kept")],
            r"^line 5: '-->' is not a cue timing \(the start time is missing\)",
        ),
        (
            "00:01.000 --> 00:02.000\nKept\n\nhello there\n",
            [(1.0, "", "Kept")],
            r"^line 6: 'hello there' belongs to no cue \(no timing line before it\); skipped",
        ),
        (
            "00:01.000 --> 00:02.000\n<v Conor>1 < 2\n",
            [(1.0, "Conor", "1")],
            r"^line 4: a '<' that opens no tag; .* so '< 2' \(to the end of the cue\) is dropped",
        ),
        (
            "00:01.000 --> 00:02.000\nline one\nI <3 u> here\n",
            [(1.0, "", "line one I here")],
            r"^line 5: a '<' that opens no tag; .* so '<3 u' is dropped. Write &lt;",
        ),
        (
            "00:01.000 --> 00:02.000\nKept\n\nSTYLE\n::cue { color: red }\n",
            [(1.0, "", "Kept")],
            r"^line 6: a STYLE block after the first cue is ignored",
        ),
        (
            "00:09.000 --> 00:10.000\nLater\n\n00:05.000 --> 00:06.000\nEarlier\n",
            [(5.0, "", "Earlier"), (9.0, "", "Later")],
            r"^line 6: the cue starts at 00:00:05.000, before the cue at line 3 .*time order",
        ),
        (
            "1" * 4300 + ":00:00.000 --> 1:00:00:01.000\nLost\n\n00:03.000 --> 00:04.000\nKept\n",
            [(3.0, "", "Kept")],
            r"^line 3: '1111.*… \(4,329 characters\) is not a cue timing \(the start time has "
            r"4,300 digits before its first ':'\)",
        ),
    ],
)
def test_it_recovers_where_the_webvtt_algorithm_recovers_and_names_the_line(
    body, segments, warning
):
    got, warnings = read(body)

    assert got == segments
    assert len(warnings) == 1
    assert re.search(warning, warnings[0]), warnings


@pytest.mark.parametrize(
    ("content", "segments"),
    [
        # YouTube writes the next timing straight after a cue's text.
        (
            vtt("00:01.000 --> 00:02.000\nHi\n00:02.000 --> 00:03.000\nThere\n"),
            [(1.0, "", "Hi"), (2.0, "", "There")],
        ),
        # A timing right after the header line ends the header.
        ("WEBVTT\n00:01.000 --> 00:02.000\nHi\n", [(1.0, "", "Hi")]),
        # A first line that names the cue is its identifier, whatever it says.
        (vtt("NOTE a comment\n00:01.000 --> 00:02.000\nHi\n"), [(1.0, "", "Hi")]),
        # Form feed is whitespace, in a timing line and in the words.
        (vtt("00:01.000\x0c-->\x0c00:02.000\nform\x0cfeed\n"), [(1.0, "", "form feed")]),
        # A STYLE block before the first cue holds rules, not words.
        (
            vtt("STYLE\n::cue(v) { color: red }\n\n00:01.000 --> 00:02.000\nHi\n"),
            [(1.0, "", "Hi")],
        ),
        # A line of spaces does not end a cue.
        (vtt("00:01.000 --> 00:02.000\nHi\n \nthere\n"), [(1.0, "", "Hi there")]),
        # An unknown tag is ignored and its words kept.
        (
            vtt("00:01.000 --> 00:02.000\n<font color=red>Red</font> words\n"),
            [(1.0, "", "Red words")],
        ),
    ],
)
def test_what_the_algorithm_reads_without_complaint_is_read_without_a_warning(content, segments):
    transcript = parse_transcript(content)

    assert [(s.start, s.speaker, s.text) for s in transcript.segments] == segments
    assert transcript.warnings == ()


def test_a_closing_voice_tag_ends_the_voice():
    # A browser puts "c" outside the voice span, as it does "a".
    got, _ = read("00:01.000 --> 00:02.000\na<v.d e>b</v>c\n")

    assert got == [(1.0, "", "a"), (1.0, "e", "b"), (1.0, "", "c")]


def test_a_voice_inside_a_voice_speaks_until_it_closes():
    got, _ = read("00:01.000 --> 00:02.000\n<v Ann>one <v Bob>two</v> three\n")

    assert got == [(1.0, "Ann", "one"), (1.0, "Bob", "two"), (1.0, "Ann", "three")]


def test_entities_are_read_after_the_tags_so_an_escaped_tag_is_words():
    got, warnings = read("00:01.000 --> 00:02.000\n1 &lt; 2 and &lt;v Bob&gt;\n")

    assert got == [(1.0, "", "1 < 2 and <v Bob>")]
    assert warnings == ()


def test_warnings_past_the_cap_are_counted_not_kept():
    body = "".join(f"00:{n % 60:02d}.000 --> 00:00.00\nx\n\n" for n in range(MAX_WARNINGS + 7))

    _, warnings = read(body)

    assert len(warnings) == MAX_WARNINGS + 1
    assert warnings[-1] == "… and 7 more warnings like these"


def test_segments_remember_the_line_of_their_timing():
    transcript = parse_transcript(
        vtt("a\n00:01.000 --> 00:02.000\nHi\n\n00:03.000 --> 00:04.000\nB\n")
    )

    assert [s.line for s in transcript.segments] == [4, 7]
