"""editorial.gates.run_gates: each publish check, in plain words, at a fixed query cost."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editorial import gates
from editorial.admin.gates import gate_panel
from editorial.gates import GateResult, blocking_failures, run_gates, warnings
from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    Quote,
    SeeAlso,
    Show,
    Source,
    Sponsorship,
)
from tests.live import make_live_unchecked

NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)
TODAY = datetime.date(2026, 11, 30)


def codes(results: list[GateResult]) -> set[str]:
    return {r.code for r in results}


def failing(results: list[GateResult], code: str) -> list[GateResult]:
    return [r for r in results if r.code == code and not r.passed]


@pytest.fixture
def entry(make_entry: Callable[..., Entry], make_source: Callable[..., Source]) -> Entry:
    """A clean entry: one fresh citation, nothing else to check."""
    entry = make_entry("Interconnect", summary="The links between AI chips.")
    Citation.objects.create(
        entry=entry, source=make_source(title="NVLink", publisher="NVIDIA"), checked_on=TODAY
    )
    return entry


def test_a_clean_entry_passes_every_check(entry: Entry) -> None:
    results = run_gates(entry, now=NOW)
    assert blocking_failures(results) == []
    assert warnings(results) == []
    assert {
        gates.HAS_SOURCE,
        gates.CITATION_FRESH,
        gates.SOURCE_NOT_BROKEN,
        gates.TIMESTAMP_IN_EPISODE,
        gates.SPONSORSHIP_DISCLOSED,
        gates.INTEREST_DISCLOSED,
        gates.SEE_ALSO_PUBLISHED,
        gates.SUMMARY_PRESENT,
        gates.SUMMARY_LENGTH,
    } <= codes(results)


def test_it_blocks_an_entry_that_cites_no_source(make_entry: Callable[..., Entry]) -> None:
    entry = make_entry()
    [result] = failing(run_gates(entry, now=NOW), gates.HAS_SOURCE)
    assert result.blocking
    assert "cites no source" in result.message
    assert result.fix_url == f"/admin/glossary/entry/{entry.pk}/change/#citations-group"


def test_it_blocks_a_citation_checked_before_the_freshness_window(
    entry: Entry, settings: Any
) -> None:
    settings.CITATION_FRESHNESS_DAYS = 180
    Citation.objects.filter(entry=entry).update(checked_on=TODAY - datetime.timedelta(days=212))
    [result] = failing(run_gates(entry, now=NOW), gates.CITATION_FRESH)
    assert result.blocks
    assert result.message == (
        "The citation of “NVIDIA: NVLink” was last checked 212 days ago; "
        "the freshness window is 180 days."
    )


def test_a_citation_checked_on_the_last_day_of_the_window_passes(entry: Entry) -> None:
    Citation.objects.filter(entry=entry).update(checked_on=TODAY - datetime.timedelta(days=180))
    assert failing(run_gates(entry, now=NOW), gates.CITATION_FRESH) == []


def test_citation_age_follows_the_clock(entry: Entry) -> None:
    Citation.objects.filter(entry=entry).update(checked_on=TODAY)
    with time_machine.travel(NOW + datetime.timedelta(days=181), tick=False):
        [result] = failing(run_gates(entry), gates.CITATION_FRESH)
    assert "181 days ago" in result.message


def test_it_blocks_a_citation_nobody_has_checked(entry: Entry) -> None:
    Citation.objects.filter(entry=entry).update(checked_on=None)
    [result] = failing(run_gates(entry, now=NOW), gates.CITATION_FRESH)
    assert result.blocks
    assert "“NVIDIA: NVLink” has never been checked" in result.message


def test_it_blocks_a_broken_source_and_links_to_it(entry: Entry) -> None:
    source = entry.citations.get().source
    Source.objects.filter(pk=source.pk).update(health=Source.Health.BROKEN)
    [result] = failing(run_gates(entry, now=NOW), gates.SOURCE_NOT_BROKEN)
    assert result.blocks
    assert "“NVIDIA: NVLink” is broken" in result.message
    assert result.fix_url == f"/admin/glossary/source/{source.pk}/change/"


def test_a_moved_source_is_a_warning_naming_the_new_address(entry: Entry) -> None:
    Source.objects.update(health=Source.Health.MOVED, suggested_url="https://new.example/x")
    results = run_gates(entry, now=NOW)
    [result] = failing(results, gates.SOURCE_MOVED)
    assert not result.blocking
    assert "moved to https://new.example/x" in result.message
    assert blocking_failures(results) == []


@pytest.fixture
def episode44(db: Any) -> Episode:
    show = Show.objects.create(name="The Show", slug="the-show")
    return Episode.objects.create(
        show=show, season=3, number=44, title="Scale across", duration=58 * 60
    )


def test_it_blocks_a_quote_past_the_end_of_its_episode(
    entry: Entry, episode44: Episode, person: Person
) -> None:
    # Rows written without the form's validation, e.g. after the duration was corrected.
    Quote.objects.create(entry=entry, episode=episode44, speaker=person, start=59 * 60, text="Hi")
    [result] = failing(run_gates(entry, now=NOW), gates.TIMESTAMP_IN_EPISODE)
    assert result.blocks
    assert result.message == (
        "The quote “Hi” (Ada Guest) is at 59:00, past the end of episode 44 (“Scale across”), "
        "which runs 58:00."
    )


def test_it_blocks_a_reference_past_the_end_of_its_episode(
    entry: Entry, episode44: Episode
) -> None:
    EpisodeReference.objects.create(entry=entry, episode=episode44, at=3600, text="Says so.")
    [result] = failing(run_gates(entry, now=NOW), gates.TIMESTAMP_IN_EPISODE)
    assert result.blocks and "1:00:00, past the end of episode 44" in result.message


def test_an_episode_without_a_duration_is_a_warning(entry: Entry, episode44: Episode) -> None:
    Episode.objects.filter(pk=episode44.pk).update(duration=None)
    EpisodeReference.objects.create(entry=entry, episode=episode44, at=60, text="Says so.")
    results = run_gates(entry, now=NOW)
    [result] = failing(results, gates.TIMESTAMP_IN_EPISODE)
    assert not result.blocking
    assert "has no duration recorded" in result.message
    assert result.fix_url == f"/admin/glossary/episode/{episode44.pk}/change/"
    assert blocking_failures(results) == []


def test_timestamps_inside_the_episode_pass(
    entry: Entry, episode44: Episode, person: Person
) -> None:
    EpisodeReference.objects.create(entry=entry, episode=episode44, at=25 * 60, text="Says so.")
    Quote.objects.create(
        entry=entry, episode=episode44, speaker=person, start=60, end=58 * 60, text="Hi"
    )
    assert failing(run_gates(entry, now=NOW), gates.TIMESTAMP_IN_EPISODE) == []


@pytest.fixture
def galileo(episode44: Episode) -> Organisation:
    galileo = Organisation.objects.create(name="Galileo", slug="galileo")
    Sponsorship.objects.create(episode=episode44, organisation=galileo, read_at=5)
    return galileo


def test_it_blocks_a_sponsored_episode_without_a_sponsorship_disclosure(
    entry: Entry, episode44: Episode, galileo: Organisation
) -> None:
    EpisodeReference.objects.create(entry=entry, episode=episode44, at=60, text="Says so.")
    [result] = failing(run_gates(entry, now=NOW), gates.SPONSORSHIP_DISCLOSED)
    assert result.blocks
    assert "episode 44 (“Scale across”), which was sponsored by Galileo" in result.message
    assert result.fix_url is not None


def test_a_sponsorship_disclosure_for_the_episode_satisfies_the_check(
    entry: Entry, episode44: Episode, galileo: Organisation
) -> None:
    EpisodeReference.objects.create(entry=entry, episode=episode44, at=60, text="Says so.")
    Disclosure.objects.create(entry=entry, kind=Disclosure.Kind.SPONSORSHIP, episode=episode44)
    assert failing(run_gates(entry, now=NOW), gates.SPONSORSHIP_DISCLOSED) == []


def test_a_sponsorship_disclosure_for_another_episode_does_not_count(
    entry: Entry, episode44: Episode, galileo: Organisation
) -> None:
    other = Episode.objects.create(show=episode44.show, season=3, number=45, title="Next")
    Quote.objects.create(
        entry=entry,
        episode=episode44,
        speaker=Person.objects.create(name="P", slug="p"),
        start=60,
        text="Hi",
    )
    Disclosure.objects.create(entry=entry, kind=Disclosure.Kind.SPONSORSHIP, episode=other)
    assert len(failing(run_gates(entry, now=NOW), gates.SPONSORSHIP_DISCLOSED)) == 1


@pytest.fixture
def quoted_guest(entry: Entry, episode44: Episode) -> tuple[Person, Organisation]:
    cisco = Organisation.objects.create(name="Cisco", slug="cisco")
    patel = Person.objects.create(name="Jeetu Patel", slug="jeetu-patel")
    Appearance.objects.create(episode=episode44, person=patel, affiliation=cisco)
    Quote.objects.create(entry=entry, episode=episode44, speaker=patel, start=60, text="Hi")
    return patel, cisco


def test_it_warns_when_a_quoted_guests_organisation_is_not_disclosed(
    entry: Entry, quoted_guest: tuple[Person, Organisation]
) -> None:
    results = run_gates(entry, now=NOW)
    [result] = failing(results, gates.INTEREST_DISCLOSED)
    assert not result.blocking
    assert result.message.startswith("Jeetu Patel spoke for Cisco in episode 44")
    assert "mark it not needed" in result.message
    assert blocking_failures(results) == []


def test_a_disclosure_naming_the_organisation_satisfies_the_interest_check(
    entry: Entry, quoted_guest: tuple[Person, Organisation]
) -> None:
    _, cisco = quoted_guest
    Disclosure.objects.create(
        entry=entry, kind=Disclosure.Kind.COMMERCIAL_INTEREST, organisation=cisco, text="Sells it."
    )
    assert failing(run_gates(entry, now=NOW), gates.INTEREST_DISCLOSED) == []


def test_the_interest_check_ignores_hosts_and_guests_the_entry_does_not_quote(
    entry: Entry, episode44: Episode
) -> None:
    amd = Organisation.objects.create(name="AMD", slug="amd")
    host = Person.objects.create(name="Conor", slug="conor")
    silent = Person.objects.create(name="Silent", slug="silent")
    Appearance.objects.create(episode=episode44, person=host, role="host", affiliation=amd)
    Appearance.objects.create(episode=episode44, person=silent, affiliation=amd)
    Quote.objects.create(entry=entry, episode=episode44, speaker=host, start=60, text="Hi")
    assert failing(run_gates(entry, now=NOW), gates.INTEREST_DISCLOSED) == []


def test_an_unpublished_see_also_target_is_a_warning(
    entry: Entry, make_entry: Callable[..., Entry]
) -> None:
    target = make_entry("AI factory")
    SeeAlso.objects.create(entry=entry, target=target)
    results = run_gates(entry, now=NOW)
    [result] = failing(results, gates.SEE_ALSO_PUBLISHED)
    assert not result.blocking
    assert "“AI factory” points at an entry that is not published" in result.message
    assert result.fix_url == f"/admin/glossary/entry/{target.pk}/change/"


def test_a_published_see_also_target_passes(entry: Entry, make_entry: Callable[..., Entry]) -> None:
    target = make_entry("AI factory")
    make_live_unchecked(target)
    SeeAlso.objects.create(entry=entry, target=target)
    assert failing(run_gates(entry, now=NOW), gates.SEE_ALSO_PUBLISHED) == []


def test_it_blocks_an_empty_summary(entry: Entry) -> None:
    Entry.objects.filter(pk=entry.pk).update(summary="   ")
    entry.refresh_from_db()
    [result] = failing(run_gates(entry, now=NOW), gates.SUMMARY_PRESENT)
    assert result.blocks and "summary is empty" in result.message


def test_a_summary_too_long_for_a_meta_description_is_a_warning(entry: Entry) -> None:
    entry.summary = "x" * 161
    [result] = failing(run_gates(entry, now=NOW), gates.SUMMARY_LENGTH)
    assert not result.blocking
    assert "161 characters" in result.message and "Shorten it by 1 character." in result.message
    entry.summary = "x" * 160
    assert failing(run_gates(entry, now=NOW), gates.SUMMARY_LENGTH) == []


def test_the_demo_entry_passes_the_blocking_checks_and_asks_about_amd(demo: Any) -> None:
    entry = Entry.objects.get(slug="interconnect")
    with time_machine.travel(datetime.datetime(2026, 11, 30, 12, tzinfo=datetime.UTC)):
        results = run_gates(entry)
    assert blocking_failures(results) == []
    [interest] = warnings(results)
    assert interest.message.startswith("Anush Elangovan spoke for AMD in episode 28")


def _fill(entry: Entry, episode: Episode, n: int) -> None:
    org = Organisation.objects.create(name=f"Org {n}", slug=f"org-{n}")
    for i in range(n):
        source = Source.objects.create(url=f"https://many.example/{n}/{i}", title=f"S{i}")
        Citation.objects.create(entry=entry, source=source, checked_on=TODAY)
        person = Person.objects.create(name=f"Guest {n}-{i}", slug=f"guest-{n}-{i}")
        Appearance.objects.create(episode=episode, person=person, affiliation=org)
        Quote.objects.create(entry=entry, episode=episode, speaker=person, start=i, text="q")
        EpisodeReference.objects.create(
            entry=entry, episode=episode, at=i, speaker=person, text="r"
        )
        Disclosure.objects.create(entry=entry, kind="other", episode=episode, at=i, text="d")
        target = Entry.objects.create(term=f"T{n}-{i}", slug=f"t-{n}-{i}")
        SeeAlso.objects.create(entry=entry, target=target)


def test_the_query_count_does_not_grow_with_the_entry(
    make_entry: Callable[..., Entry], episode44: Episode, galileo: Organisation
) -> None:
    small, large = make_entry("Small"), make_entry("Large")
    _fill(small, episode44, 1)
    other = Episode.objects.create(show=episode44.show, season=1, number=2, title="Two")
    Sponsorship.objects.create(episode=other, organisation=galileo)
    _fill(large, other, 25)
    with CaptureQueriesContext(connection) as few:
        run_gates(small, now=NOW)
    with CaptureQueriesContext(connection) as many:
        run_gates(large, now=NOW)
    empty = make_entry("Empty")
    with CaptureQueriesContext(connection) as none:
        run_gates(empty, now=NOW)
    # 8, one for the names of every entry (duplicates), 4 for the quotes checked
    # against transcripts (editorial.gates._transcript_checks), and one for the open
    # comment threads (editorial.gates._comment_checks).
    assert len(few) == len(many) == len(none) == 14


def test_the_panel_lists_blocking_checks_first(make_entry: Callable[..., Entry]) -> None:
    html = gate_panel(make_entry(), now=NOW)
    assert "1 check blocks publishing." in html
    assert html.index("Blocks publishing:") < html.index("Passed:")
    assert "cites no source" in html


def test_the_panel_asks_to_save_a_new_entry_first() -> None:
    assert "Save the entry to see its publish checks." in gate_panel(None)


def test_the_meta_description_length_is_a_setting(entry: Entry, settings: Any) -> None:
    settings.META_DESCRIPTION_MAX_LENGTH = 120
    entry.summary = "x" * 121
    [result] = failing(run_gates(entry, now=NOW), gates.SUMMARY_LENGTH)
    assert "after about 120" in result.message
