from pathlib import Path

import pytest

from glossary.transcripts.parse import TranscriptError, TranscriptFormat, parse_transcript

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("interview.vtt", TranscriptFormat.WEBVTT),
        ("interview.srt", TranscriptFormat.SRT),
        ("interview.json", TranscriptFormat.JSON),
    ],
)
def test_it_detects_the_format_from_the_content_not_the_name(name, kind):
    content = (DATA / name).read_text()

    assert parse_transcript(content).format is kind
    assert parse_transcript(content.encode()).format is kind


def test_the_three_formats_of_one_interview_read_the_same_words():
    texts = {
        name: " ".join(s.text for s in parse_transcript((DATA / name).read_bytes()).segments)
        for name in ("interview.vtt", "interview.srt", "interview.json")
    }

    assert all(
        text.startswith("Welcome back to the show. I'm Conor. My guest") for text in texts.values()
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "the transcript is empty"),
        (b"\n\n  \n", "the transcript is empty"),
        (b"<cite>Kevin:</cite>\n<time>0:00</time>\n<p>Hi</p>", "line 1: this looks like HTML"),
        (b"Kevin: hello there\n", "line 1: not a transcript we can read"),
        (
            b"WEBVTT\n\n00:01.000 --> 00:02.000\nna\x81ve\n",
            "line 4: byte 0x81 is neither UTF-8 nor Windows-1252",
        ),
        (b"WEBVTT\n\n\x00\x01\x02\x03binary", r"line 3: the control character U\+0000"),
        # UTF-16 by its byte order mark, cut off mid-character: the offset, not the letter there.
        (
            b"\xff\xfe\x00\x00garbage",
            "line 1: the bytes from offset 8 are not UTF-16 \\(truncated data\\)",
        ),
    ],
)
def test_it_says_what_is_wrong_with_content_that_is_no_transcript(content, problem):
    with pytest.raises(TranscriptError, match=problem):
        parse_transcript(content)
