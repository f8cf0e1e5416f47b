import json
from pathlib import Path

import pytest

from glossary.transcripts.parse import Segment, TranscriptError, TranscriptFormat, parse_transcript

DATA = Path(__file__).parent / "data"


def document(*segments: dict) -> str:
    return json.dumps({"version": "1.0.0", "segments": list(segments)})


def test_it_reads_segments_with_speakers_and_times():
    transcript = parse_transcript((DATA / "interview.json").read_bytes())

    assert transcript.format is TranscriptFormat.JSON
    assert transcript.segments[:2] == (
        Segment(0.0, 4.2, "Conor", "Welcome back to the show. I'm Conor."),
        Segment(
            4.2,
            9.75,
            "Conor",
            "My guest today builds the networks that join data centers together.",
        ),
    )


def test_a_segment_without_an_end_lasts_until_the_next_one_starts():
    transcript = parse_transcript((DATA / "interview.json").read_bytes())

    assert transcript.segments[2] == Segment(9.75, 10.1, "Jeetu Patel", "Thanks")
    assert transcript.segments[-1] == Segment(3723.25, 3723.25, "Conor", "Thank you.")


def test_it_skips_segments_with_no_words_and_allows_no_speaker():
    transcript = parse_transcript(document({"startTime": 1, "endTime": 2, "body": "Hi."}))

    assert transcript.segments == (Segment(1.0, 2.0, "", "Hi."),)
    assert len(parse_transcript((DATA / "interview.json").read_bytes()).segments) == 6


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"version": "1.0.0", "segments": [}', r"line 1, column 35: Expecting value"),
        ('{\n  "version": "1.0.0",\n  "segments": [\n    {"startTime": 1,}\n  ]\n}', "line 4"),
        ('{"version": "1.0.0"}', "is an object"),
        ('{"version": 1, "segments": []}', "'version' must be a string"),
        ('{"segments": {"startTime": 1}}', "'segments' must be a list, got dict"),
        (document({"body": "Hi"}), "segment 0: 'startTime' is missing"),
        (document({"startTime": "1:02", "body": "Hi"}), "segment 0: 'startTime' must be a number"),
        (document({"startTime": True, "body": "Hi"}), "segment 0: 'startTime' must be a number"),
        (document({"startTime": -1, "body": "Hi"}), "segment 0: 'startTime' is negative"),
        (document({"startTime": 5, "endTime": 4, "body": "Hi"}), "segment 0: 'endTime' 4 is"),
        (
            document({"startTime": 1, "body": "A"}, {"startTime": 2, "body": None}),
            "segment 1: 'body' must be the words spoken, got None",
        ),
        (
            document({"startTime": 1, "body": "A"}, {"startTime": 2, "body": "B", "speaker": 7}),
            "segment 1: 'speaker' must be a name, got 7",
        ),
        (
            document({"startTime": 9, "body": "A"}, {"startTime": 2, "body": "B"}),
            "segment 1: 'startTime' 2 is before segment 0's",
        ),
        (document("Hi"), "segment 0: must be an object"),  # type: ignore[arg-type]
    ],
)
def test_it_names_the_segment_and_field_of_a_broken_json_transcript(content, problem):
    with pytest.raises(TranscriptError, match=problem):
        parse_transcript(content)
