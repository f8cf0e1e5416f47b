import json

import pytest

from glossary.transcripts import quote_verification as verify_module
from glossary.transcripts.parse import Segment, Transcript, TranscriptFormat
from glossary.transcripts.quote_verification import (
    Outcome,
    find,
    normalise,
    passage_around,
    quoted_phrases,
    speaker_agrees,
    suggest,
    threshold_for,
    verify,
)


def transcript(*segments: tuple[float, float, str, str]) -> Transcript:
    return Transcript(TranscriptFormat.WEBVTT, tuple(Segment(*s) for s in segments))


TALK = transcript(
    (100.0, 104.0, "Conor", "Welcome back. Today we are talking about networks for AI."),
    (104.0, 110.5, "Ada Park", "Thanks. So, um, the thing people miss is that the the network"),
    (110.5, 116.0, "Ada Park", "decides how many chips can, you know, usefully work together."),
    (116.0, 120.0, "Conor", "That's a strong claim. Why do you say that?"),
    (300.0, 306.0, "Ada Park", "Because every step of training waits for the slowest link."),
    (306.0, 312.0, "Conor", "So the slowest link sets the pace for thousands of chips."),
)
QUOTE = "The network decides how many chips can usefully work together."


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("“Operate as one giant cluster,” he said.", "operate as one giant cluster he said"),
        ("That’s what's CALLED ‘scale across’", "thats whats called scale across"),
        ("Operate as, um, one giant cluster, you know, one", "operate as one giant cluster one"),
        ("Even in the, uh, in the hardware", "even in the hardware"),
        ("at, at how they're brought together", "at how theyre brought together"),
        ("I mean, it's like, so fast, right?", "its fast"),
        ("scale-up and scale-out — Müller’s café", "scale up and scale out mullers cafe"),
        ("", ""),
    ],
)
def test_it_compares_content_words_only(text, words):
    assert normalise(text) == words


def test_it_finds_a_quote_across_segments_with_the_words_as_spoken():
    match = find(QUOTE, TALK)

    assert match.found_at == 104
    assert match.score == 100.0
    assert match.speaker == "Ada Park"
    assert (match.start_segment, match.end_segment) == (1, 2)
    assert match.passage == (
        "the the network decides how many chips can, you know, usefully work together."
    )


def test_it_verifies_a_quote_at_its_stored_time():
    verdict = verify(QUOTE, 105, TALK, speaker="Ada Park")

    assert verdict.verdict is Outcome.MATCH
    assert (verdict.found_at, verdict.score, verdict.speaker) == (104, 100.0, "Ada Park")
    assert verdict.speaker_agrees is True
    assert verdict.message == "Found at 1:44, said by Ada Park (score 100)."


def test_it_reports_a_moved_quote_as_elsewhere_with_the_fix():
    verdict = verify("Every step of training waits for the slowest link.", 104, TALK)

    assert verdict.verdict is Outcome.ELSEWHERE
    assert verdict.found_at == 300
    assert verdict.message == "Found at 5:00, said by Ada Park, not at 1:44 (score 100)."


def test_the_tolerance_reaches_either_side_of_the_segment_where_the_quote_starts():
    quote = "Every step of training waits for the slowest link."

    assert verify(quote, 290, TALK, tolerance=10).verdict is Outcome.MATCH
    assert verify(quote, 316, TALK, tolerance=10).verdict is Outcome.MATCH  # segment ends at 306
    assert verify(quote, 289, TALK, tolerance=10).verdict is Outcome.ELSEWHERE
    assert verify(quote, 317, TALK, tolerance=10).verdict is Outcome.ELSEWHERE
    assert verify(quote, 317, TALK, tolerance=11).verdict is Outcome.MATCH


def test_a_line_said_twice_matches_where_the_editor_placed_it():
    said_twice = transcript(
        (10.0, 14.0, "Ada Park", "The slowest link sets the pace for thousands of chips."),
        (
            600.0,
            604.0,
            "Conor",
            "As you said, the slowest link sets the pace for thousands of chips.",
        ),
    )
    quote = "The slowest link sets the pace for thousands of chips."

    assert verify(quote, 10, said_twice).found_at == 10
    assert verify(quote, 600, said_twice).found_at == 600
    assert verify(quote, 600, said_twice).speaker == "Conor"


def test_it_reports_an_absent_quote_as_not_found_with_the_closest_score():
    verdict = verify("Optical links will soon join buildings across a whole city.", 100, TALK)

    assert verdict.verdict is Outcome.NOT_FOUND
    assert verdict.found_at is None
    assert verdict.score < threshold_for("Optical links will soon join buildings across a city.")
    assert verdict.passage == ""
    assert verdict.message.startswith("Not found in the transcript (closest score")


@pytest.mark.parametrize("missing", [None, Transcript(TranscriptFormat.JSON, ())])
def test_it_says_when_there_is_no_transcript_to_check_against(missing):
    verdict = verify(QUOTE, 104, missing)

    assert verdict.verdict is Outcome.NO_TRANSCRIPT
    assert (verdict.found_at, verdict.speaker_agrees) == (None, None)


def test_it_still_finds_a_quote_whose_every_word_was_mistranscribed():
    # No pair of words matches exactly, so only the exhaustive pass can place it.
    garbled = transcript(
        (0.0, 5.0, "Conor", "Welcome back. Today we are talking about networks for AI."),
        (
            500.0,
            506.0,
            "Ada Park",
            "the netwerk decidez howw manny chipps kan usefuly werk togetha",
        ),
    )

    match = find(QUOTE, garbled)

    assert match.found_at == 500
    assert match.score >= threshold_for(QUOTE)


def test_a_wrong_speaker_is_flagged_but_the_quote_still_matches():
    verdict = verify(QUOTE, 104, TALK, speaker="Conor")

    assert verdict.verdict is Outcome.MATCH
    assert verdict.speaker_agrees is False
    assert verdict.message.endswith("The transcript gives a different speaker.")


@pytest.mark.parametrize(
    ("label", "name", "agrees"),
    [
        ("Jeetu Patel", "Jeetu Patel", True),
        ("Jeetu", "Jeetu Patel", True),
        ("Patel", "Jeetu Patel", True),
        ("JEETU PATEL:", "Jeetu Patel", True),
        ("J. Patel", "Jeetu Patel", True),
        ("Dr. Jeetu Patel", "Jeetu Patel", True),
        ("Anush Elangovan", "Anush Elangovan", True),
        ("Conor", "Jeetu Patel", False),
        ("Jeetu Shah", "Jeetu Patel", False),
        ("Speaker 1", "Jeetu Patel", None),
        ("SPEAKER_00", "Jeetu Patel", None),
        ("Guest", "Jeetu Patel", None),
        ("", "Jeetu Patel", None),
        ("Jeetu Patel", None, None),
    ],
)
def test_it_compares_speakers_leniently(label, name, agrees):
    assert speaker_agrees(label, name) is agrees


def test_it_suggests_where_and_by_whom_a_quote_without_a_timestamp_was_said():
    suggestion = suggest("The slowest link sets the pace for thousands of chips", TALK)

    assert (suggestion.at, suggestion.speaker, suggestion.score) == (306, "Conor", 100.0)
    assert suggestion.passage == "the slowest link sets the pace for thousands of chips."


def test_it_suggests_nothing_for_a_quote_that_was_not_said():
    suggestion = suggest("Optical links will soon join buildings across a whole city.", TALK)

    assert (suggestion.at, suggestion.speaker, suggestion.passage) == (None, None, "")
    assert suggest(QUOTE, None).at is None


def test_the_passage_around_a_moment_starts_with_the_segment_being_spoken():
    passage = passage_around(TALK, 106, seconds=12)

    assert [s.start for s in passage.segments] == [104.0, 110.5, 116.0]
    assert (passage.start, passage.end) == (104.0, 120.0)
    assert passage.text.startswith("Thanks. So, um, the thing people miss")


def test_the_passage_after_a_gap_starts_with_the_next_segment():
    assert [s.start for s in passage_around(TALK, 200, seconds=105).segments] == [300.0]
    assert passage_around(TALK, 200, seconds=30).segments == ()
    assert passage_around(TALK, 10, seconds=91).segments[0].start == 100.0
    assert passage_around(TALK, 999).segments == ()


def test_it_takes_the_phrases_an_episode_reference_quotes():
    reference = (
        "Cisco’s Jeetu Patel describes networking that lets two data centers “hundreds of "
        "kilometers apart operate as one giant cluster,” which he calls “scale across.”"
    )

    assert quoted_phrases(reference) == [
        "hundreds of kilometers apart operate as one giant cluster",
        "scale across",
    ]
    assert quoted_phrases('He calls it "scale across".') == ["scale across"]
    assert quoted_phrases("No quotation here.") == []


@pytest.mark.parametrize(
    ("text", "needs"),
    [
        ("scale across", 95.0),
        ("Um, scale, you know, across the the building", 95.0),
        ("hundreds of kilometers apart operate as one", 90.0),
        ("hundreds of kilometers apart operate as one giant cluster", 90.0),
        ("The network decides how many chips can usefully work together.", 80.0),
    ],
)
def test_shorter_texts_need_a_closer_match(text, needs):
    assert threshold_for(text) == needs


def test_a_short_phrase_needs_an_almost_exact_match():
    assert verify("slowest link", 300, TALK).verdict is Outcome.MATCH
    assert verify("fastest link", 300, TALK).verdict is Outcome.NOT_FOUND
    assert verify("the slowest chip", 300, TALK).verdict is Outcome.NOT_FOUND


def test_a_verdict_serialises_to_plain_json():
    verdict = verify(QUOTE, 104, TALK, speaker="Ada Park")

    assert json.loads(json.dumps(verdict.as_dict())) == {
        "verdict": "match",
        "stored_at": 104,
        "found_at": 104,
        "score": 100.0,
        "speaker": "Ada Park",
        "speaker_agrees": True,
        "passage": "the the network decides how many chips can, you know, usefully work together.",
        "message": "Found at 1:44, said by Ada Park (score 100).",
    }


def test_a_transcript_is_indexed_once_for_all_its_quotes(monkeypatch):
    built = []
    real = verify_module._build_index

    def counting(t):
        built.append(t)
        return real(t)

    monkeypatch.setattr(verify_module, "_build_index", counting)
    fresh = transcript(*((s.start, s.end, s.speaker, s.text) for s in TALK.segments))

    for stored_at in (104, 300, 306):
        verify(QUOTE, stored_at, fresh)
    suggest(QUOTE, fresh)
    passage_around(fresh, 104)

    assert len(built) == 1
