"""The gate panel on the entry page, and the one-click fixes it links to."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client

from editorial import gates
from editorial.gates import run_gates
from editorial.models import InterestDisclosureWaiver
from glossary.models import (
    Appearance,
    Disclosure,
    Entry,
    Episode,
    Organisation,
    Person,
    Quote,
    Show,
    Sponsorship,
)

NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)


@pytest.fixture(autouse=True)
def frozen() -> Any:
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def quoted(entry_in_review: Callable[..., Entry]) -> tuple[Entry, Episode, Organisation]:
    """An entry quoting a Cisco guest from an episode Galileo sponsored."""
    entry = entry_in_review()
    show = Show.objects.create(name="Show", slug="show")
    episode = Episode.objects.create(show=show, season=2, number=28, title="T", duration=3000)
    galileo = Organisation.objects.create(name="Galileo", slug="galileo")
    cisco = Organisation.objects.create(name="Cisco", slug="cisco")
    Sponsorship.objects.create(episode=episode, organisation=galileo, read_at=5)
    patel = Person.objects.create(name="Jeetu Patel", slug="patel")
    Appearance.objects.create(episode=episode, person=patel, affiliation=cisco)
    Quote.objects.create(entry=entry, episode=episode, speaker=patel, start=60, text="Hi")
    return entry, episode, cisco


def test_the_entry_page_shows_the_publish_checks(
    client: Client, editor: User, quoted: tuple[Entry, Episode, Organisation]
) -> None:
    entry, _, _ = quoted
    client.force_login(editor)
    body = client.get(f"/admin/glossary/entry/{entry.pk}/change/").content.decode()
    assert "1 check blocks publishing." in body
    assert "which was sponsored by Galileo" in body
    assert "Jeetu Patel spoke for Cisco" in body


def test_generating_the_sponsorship_disclosure_uses_the_seed_sentence(
    client: Client, writer: User, quoted: tuple[Entry, Episode, Organisation]
) -> None:
    entry, episode, _ = quoted
    [failure] = [r for r in run_gates(entry) if r.code == gates.SPONSORSHIP_DISCLOSED]
    client.force_login(writer)
    page = client.get(str(failure.fix_url))
    assert "Episode 28 is a Season 2 episode sponsored by Galileo (intro at 0:05)." in (
        page.content.decode()
    )
    assert not Disclosure.objects.exists()  # GET only asks
    response = client.post(str(failure.fix_url))
    assert response.status_code == 302
    disclosure = Disclosure.objects.get()
    assert (disclosure.kind, disclosure.episode, disclosure.text) == ("sponsorship", episode, "")
    assert not [r for r in run_gates(entry) if r.code == gates.SPONSORSHIP_DISCLOSED and r.blocks]
    client.post(str(failure.fix_url))  # a double click adds nothing
    assert Disclosure.objects.count() == 1


def test_a_fact_checker_cannot_generate_a_disclosure(
    client: Client, fact_checker: User, quoted: tuple[Entry, Episode, Organisation]
) -> None:
    entry, episode, _ = quoted
    client.force_login(fact_checker)
    response = client.post(f"/admin/gates/{entry.pk}/sponsorship/{episode.pk}/")
    assert response.status_code == 403
    assert not Disclosure.objects.exists()


def test_an_editor_marks_an_interest_disclosure_not_needed_with_a_reason(
    client: Client, editor: User, quoted: tuple[Entry, Episode, Organisation]
) -> None:
    entry, _, cisco = quoted
    [warning] = [r for r in run_gates(entry) if r.code == gates.INTEREST_DISCLOSED]
    assert warning.fix_url == f"/admin/gates/{entry.pk}/interest/{cisco.pk}/not-needed/"
    client.force_login(editor)
    client.post(warning.fix_url, {"reason": "Cisco has no stake in this term."})
    waiver = InterestDisclosureWaiver.objects.get()
    assert (waiver.entry, waiver.organisation, waiver.decided_by) == (entry, cisco, editor)
    assert waiver.reason == "Cisco has no stake in this term."
    assert not gates.warnings([r for r in run_gates(entry) if r.code == gates.INTEREST_DISCLOSED])


def test_a_writer_cannot_mark_an_interest_disclosure_not_needed(
    client: Client, writer: User, quoted: tuple[Entry, Episode, Organisation]
) -> None:
    entry, _, cisco = quoted
    client.force_login(writer)
    response = client.post(f"/admin/gates/{entry.pk}/interest/{cisco.pk}/not-needed/")
    assert response.status_code == 403
    assert not InterestDisclosureWaiver.objects.exists()


def test_the_fix_pages_are_staff_only(
    client: Client, quoted: tuple[Entry, Episode, Organisation]
) -> None:
    entry, episode, _ = quoted
    response = client.post(f"/admin/gates/{entry.pk}/sponsorship/{episode.pk}/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert not Disclosure.objects.exists()
