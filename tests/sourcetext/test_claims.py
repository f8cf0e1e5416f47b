"""A citation's note is held to what the source says now."""

from __future__ import annotations

from editorial.sourcetext.claims import (
    ClaimProblem,
    check_note,
    claim_words,
    quoted_phrases,
    relevant_sentences,
)
from editorial.sourcetext.diff import diff
from editorial.sourcetext.text import readable_text
from tests.sourcetext.pages import ARTICLE_V1, ARTICLE_V2, PAGE_V1, PAGE_V2, SEED_NOTE

CONFIRMED = readable_text(PAGE_V1, "text/html")
CURRENT = readable_text(PAGE_V2, "text/html")


def test_the_seed_note_no_longer_holds_and_says_what_the_page_says_now() -> None:
    (problem,) = check_note(SEED_NOTE, CURRENT, CONFIRMED)
    assert problem.message == "no longer says '3 TB/s'; it now says '3.6 TB/s'"
    assert problem == ClaimProblem(
        kind="figure",
        cited="3 TB/s",
        in_confirmed=True,
        confirmed_sentence=ARTICLE_V1[1],
        current_sentence=ARTICLE_V2[1],
        now_says="3.6 TB/s",
    )


def test_the_seed_note_holds_on_the_page_that_was_confirmed() -> None:
    assert check_note(SEED_NOTE, CONFIRMED, CONFIRMED) == []


def test_an_unchanged_figure_in_a_reworded_sentence_still_holds() -> None:
    note = "an NVLink Switch system connects 72 GPUs"
    assert ARTICLE_V1[2] in CONFIRMED and ARTICLE_V1[2] not in CURRENT
    assert check_note(note, CURRENT, CONFIRMED) == []


def test_a_figure_that_moved_to_another_sentence_still_holds() -> None:
    current = "Bandwidth per GPU: 3 TB/s. The sixth generation of NVLink is on Vera Rubin."
    assert check_note(SEED_NOTE, current, CONFIRMED) == []


def test_without_the_confirmed_text_it_says_only_what_is_missing() -> None:
    (problem,) = check_note(SEED_NOTE, CURRENT, None)
    assert problem.message == "does not say '3 TB/s'"
    assert problem.in_confirmed is None and problem.now_says is None


def test_a_figure_the_confirmed_text_never_had_is_told_apart_from_a_change() -> None:
    (problem,) = check_note("NVLink reaches 900 GB/s", CURRENT, CONFIRMED)
    assert problem.in_confirmed is False
    assert problem.message == "does not say '900 GB/s', nor did the text that was confirmed"


def test_a_deleted_sentence_is_reported_as_gone() -> None:
    current = "\n".join(line for line in CONFIRMED.splitlines() if "3 TB/s" not in line)
    assert [problem.message for problem in check_note(SEED_NOTE, current, CONFIRMED)] == [
        "no longer says '6th generation'; the sentence that said it is gone",
        "no longer says '3 TB/s'; the sentence that said it is gone",
    ]


def test_the_figure_in_the_same_place_is_named_among_several_of_its_unit() -> None:
    confirmed = "NVLink gives 1.8 TB/s per GPU and 130 TB/s per rack."
    current = "NVLink gives 3.6 TB/s per GPU and 260 TB/s per rack."
    (problem,) = check_note("130 TB/s per rack", current, confirmed)
    assert problem.now_says == "260 TB/s"


def test_a_figure_restated_in_other_units_is_named_as_what_it_says_now() -> None:
    confirmed = "Each GPU gets 3 TB/s of bandwidth in the rack."
    current = "Each GPU gets 3,000 GB/s of bandwidth in the rack."
    (problem,) = check_note("3 TB/s", current, confirmed)
    assert problem.message == "no longer says '3 TB/s'; it now says '3,000 GB/s'"


def test_a_quoted_phrase_that_is_gone_is_reported_with_the_sentence_in_its_place() -> None:
    note = "Describes NVLink as “a single, giant accelerator”"
    (problem,) = check_note(note, CURRENT.replace("giant", "unified"), CONFIRMED)
    assert problem.kind == "phrase"
    assert problem.cited == "a single, giant accelerator"
    assert problem.current_sentence == ARTICLE_V2[2].replace("giant", "unified")
    assert problem.message.startswith("no longer says 'a single, giant accelerator'; in its place")


def test_a_quoted_phrase_matches_whatever_the_case_spacing_and_quote_style() -> None:
    note = 'calls it "A  single, GIANT accelerator" and “lets GPUs talk to each other”'
    assert check_note(note, CURRENT, CONFIRMED) == []


def test_quoted_phrases_are_the_paired_quotations_not_apostrophes() -> None:
    note = "NVIDIA's page says “scale up” and \"rack-scale\"; it's ‘fast’."
    assert quoted_phrases(note) == ["scale up", "rack-scale", "fast"]


def test_a_note_with_no_figure_and_no_quotation_has_nothing_to_check() -> None:
    assert check_note("Industry consortium developing a specification", "", "") == []


def test_relevant_sentences_are_the_changes_that_share_a_claims_words() -> None:
    changes = diff(CONFIRMED, CURRENT)
    words = claim_words([SEED_NOTE])
    assert relevant_sentences(changes, words) == [
        ARTICLE_V1[1],
        ARTICLE_V1[2],
        ARTICLE_V2[1],
        ARTICLE_V2[2],
    ]
    assert relevant_sentences(changes, {"bandwidth"}) == [ARTICLE_V1[1], ARTICLE_V2[1]]


def test_sharing_only_stopwords_does_not_make_a_change_relevant() -> None:
    changes = diff(CONFIRMED, CURRENT)
    assert relevant_sentences(changes, {"the", "of", "per", "on", "InfiniBand"}) == []


def test_plural_and_case_do_not_hide_a_relevant_change() -> None:
    assert relevant_sentences(diff(CONFIRMED, CURRENT), {"Accelerators"}) == [
        ARTICLE_V1[2],
        ARTICLE_V2[2],
    ]
