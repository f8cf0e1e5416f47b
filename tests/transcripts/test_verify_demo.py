"""The seed's quotes against the demo transcripts of episodes 44 and 28."""

import dataclasses

import pytest

from demo.demo_data import TRANSCRIPTS
from glossary.transcripts.parse import Transcript, parse_transcript
from glossary.transcripts.quote_verification import Outcome, find, quoted_phrases, suggest, verify

# As the seed publishes them: "Quotes lightly edited to remove filler words."
QUOTE_44 = (
    "Operate as one giant cluster, one coherent cluster. And when you do that, that's what's "
    "called scale across."
)
QUOTE_28 = (
    "Even in the hardware, at the microarchitecture level, at how they're brought together in "
    "the interconnects"
)
REFERENCE_44 = (
    "Cisco’s Jeetu Patel describes networking that lets two data centers “hundreds of "
    "kilometers apart operate as one giant cluster,” which he calls “scale across.”"
)


@pytest.fixture(scope="module")
def episode_44() -> Transcript:
    return parse_transcript(TRANSCRIPTS[44].read_bytes())


@pytest.fixture(scope="module")
def episode_28() -> Transcript:
    return parse_transcript(TRANSCRIPTS[28].read_bytes())


def test_the_seeds_quote_from_episode_44_matches_at_25_38_by_jeetu_patel(episode_44):
    verdict = verify(QUOTE_44, 1538, episode_44, speaker="Jeetu Patel")

    assert verdict.verdict is Outcome.MATCH
    assert (verdict.found_at, verdict.score) == (1538, 100.0)
    assert (verdict.speaker, verdict.speaker_agrees) == ("Jeetu Patel", True)


def test_the_seeds_quote_from_episode_28_matches_at_3_07_by_anush_elangovan(episode_28):
    verdict = verify(QUOTE_28, 187, episode_28, speaker="Anush Elangovan")

    assert verdict.verdict is Outcome.MATCH
    assert (verdict.found_at, verdict.score) == (187, 100.0)
    assert (verdict.speaker, verdict.speaker_agrees) == ("Anush Elangovan", True)


def test_the_verbatim_passages_keep_the_filler_words_the_quotes_removed(episode_44, episode_28):
    assert verify(QUOTE_44, 1538, episode_44).passage == (
        "operate as, um, one giant cluster, you know, one coherent cluster. And when you do "
        "that, uh, that's what's called scale across."
    )
    assert verify(QUOTE_28, 187, episode_28).passage == (
        "Even in the, uh, in the hardware, at the microarchitecture level, at, at how they're "
        "brought together in the interconnects,"
    )


def test_the_phrases_the_episode_reference_quotes_match_at_25_38(episode_44):
    verdicts = [
        verify(phrase, 1538, episode_44, speaker="Jeetu Patel")
        for phrase in quoted_phrases(REFERENCE_44)
    ]

    assert [(v.verdict, v.found_at, v.speaker_agrees) for v in verdicts] == [
        (Outcome.MATCH, 1538, True),
        (Outcome.MATCH, 1544, True),
    ]


def test_a_quote_moved_in_the_transcript_is_elsewhere_with_the_new_time(episode_44):
    moved = Transcript(
        episode_44.format,
        tuple(
            sorted(
                (
                    dataclasses.replace(s, start=s.start + 600, end=s.end + 600)
                    if 1538 <= s.start < 1549
                    else s
                    for s in episode_44.segments
                ),
                key=lambda s: s.start,
            )
        ),
    )

    verdict = verify(QUOTE_44, 1538, moved, speaker="Jeetu Patel")

    assert verdict.verdict is Outcome.ELSEWHERE
    assert verdict.found_at == 2138
    assert verdict.speaker_agrees is True


def test_a_mistyped_timestamp_is_elsewhere_with_the_right_time(episode_44):
    verdict = verify(QUOTE_44, 1438, episode_44, speaker="Jeetu Patel")

    assert (verdict.verdict, verdict.found_at) == (Outcome.ELSEWHERE, 1538)
    assert verdict.message == "Found at 25:38, said by Jeetu Patel, not at 23:58 (score 100)."


def test_a_quote_from_the_other_episode_is_not_found(episode_44, episode_28):
    assert verify(QUOTE_28, 187, episode_44).verdict is Outcome.NOT_FOUND
    assert verify(QUOTE_44, 1538, episode_28).verdict is Outcome.NOT_FOUND


def test_a_wrong_speaker_does_not_agree(episode_44, episode_28):
    assert verify(QUOTE_44, 1538, episode_44, speaker="Conor").speaker_agrees is False
    assert verify(QUOTE_28, 187, episode_28, speaker="Jeetu Patel").speaker_agrees is False
    assert verify(QUOTE_44, 1538, episode_44, speaker="Patel").speaker_agrees is True


def test_conor_mentions_the_sponsor_galileo_at_31_57_of_episode_44(episode_44):
    suggestion = suggest("Galileo is an NVIDIA AI factory partner", episode_44)

    assert (suggestion.at, suggestion.speaker) == (1917, "Conor")


def test_the_sponsor_read_of_episode_28_is_at_0_05(episode_28):
    suggestion = suggest("This episode is sponsored by Galileo.", episode_28)

    assert (suggestion.at, suggestion.speaker) == (5, "Conor")


# The measurements quoted in quote_verification.py's docstring.
@pytest.mark.parametrize(
    ("quote", "score"),
    [
        (QUOTE_44.replace("coherent", "inherent"), 98.0),
        (
            "Operate as one giant cluster, one single cluster. And when you do that, that's called",
            87.7,
        ),
    ],
)
def test_a_lightly_edited_or_misheard_quote_still_scores_above_the_threshold(
    episode_44, quote, score
):
    match = find(quote, episode_44)

    assert (match.found_at, match.score) == (1538, score)


@pytest.mark.parametrize(
    "never_said",
    [
        "Run like a single huge cluster, a coherent one, and doing that is what is called "
        "scale across.",
        "Optical links will let clusters span several buildings without any loss in speed.",
        "The interconnect is the hidden cost that ties customers to one vendor's systems.",
        "We build the switches that connect every GPU in the rack to every other GPU.",
    ],
)
def test_text_that_was_never_said_stays_well_below_the_threshold(
    episode_44, episode_28, never_said
):
    for transcript in (episode_44, episode_28):
        match = find(never_said, transcript)
        assert match.found_at is None
        assert match.score < 73
