"""The publish checks against the transcript: not found blocks (overridable with a
reason), said at another time or by someone else warns."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from editorial import gates, workflow
from editorial.gates import run_gates
from glossary.models import Entry, Person, Quote, Transcript
from glossary.publishing import record_edit


@pytest.fixture
def interconnect(demo: Any) -> Entry:
    return Entry.objects.get(slug="interconnect")


def results(entry: Entry, code: str) -> list[gates.GateResult]:
    return [r for r in run_gates(entry) if r.code == code]


def test_the_seed_passes_with_every_quote_found(interconnect: Entry) -> None:
    [result] = results(interconnect, gates.QUOTE_IN_TRANSCRIPT)

    assert result.passed and result.blocking
    assert result.message == "4 quotes and quoted phrases found in the episode transcripts."
    assert not results(interconnect, gates.QUOTE_AT_ITS_TIME)
    assert not results(interconnect, gates.QUOTE_SPEAKER)


def test_a_quote_not_in_the_transcript_blocks(interconnect: Entry) -> None:
    Quote.objects.filter(start=1538).update(text="Words that were never spoken on the show.")

    [result] = results(interconnect, gates.QUOTE_IN_TRANSCRIPT)

    assert result.blocks
    assert result.message.startswith(
        "The quote “Words that were never spoken on the show.” (episode 44 (“Scale Across: "
        "When Two Data Centers Act as One”) at 25:38) is not in the episode's transcript"
    )
    assert result.fix_url is not None and result.fix_url.endswith("#quotes-group")


def test_a_quote_at_another_time_warns_and_links_the_move(interconnect: Entry) -> None:
    quote = Quote.objects.get(start=1538)
    Quote.objects.filter(pk=quote.pk).update(start=600)

    [result] = results(interconnect, gates.QUOTE_AT_ITS_TIME)

    assert result.is_warning
    assert (
        "placed at 10:00 in episode 44 (“Scale Across: When Two Data Centers Act as One”), "
        "but the transcript has it at 25:38" in result.message
    )
    assert result.fix_url == f"/admin/quotes/{quote.pk}/move/"
    assert results(interconnect, gates.QUOTE_IN_TRANSCRIPT)[0].passed


def test_a_quote_credited_to_someone_else_warns(interconnect: Entry) -> None:
    Quote.objects.filter(start=1538).update(speaker=Person.objects.get(slug="anush-elangovan"))

    [result] = results(interconnect, gates.QUOTE_SPEAKER)

    assert result.is_warning
    assert "credited to Anush Elangovan, but the transcript gives the words to Jeetu Patel" in (
        result.message
    )


def test_without_transcripts_nothing_blocks_and_the_check_says_why(interconnect: Entry) -> None:
    Transcript.objects.all().delete()

    [result] = results(interconnect, gates.QUOTE_IN_TRANSCRIPT)

    assert result.passed
    assert result.message == "No quote could be checked: no transcript for the episodes quoted."


def test_not_found_stops_publishing_unless_overridden_with_a_reason(
    interconnect: Entry, writer: User, editor: User, settings: Any
) -> None:
    settings.WORKFLOW_ALLOW_SELF_APPROVAL = False
    Quote.objects.filter(start=1538).update(text="Words that were never spoken on the show.")
    record_edit(interconnect, user=writer)
    workflow.submit_for_review(interconnect, user=writer)

    with pytest.raises(workflow.GateFailed, match="not in the episode's transcript"):
        workflow.publish_entry(interconnect, user=editor)

    version = workflow.publish_entry(
        interconnect, user=editor, override_reason="The transcript misheard this passage."
    )
    assert version.published_at is not None
