"""Publishing several entries together (`workflow.publish_entries`): what the admin's bulk
publish and `generate_glossary` use. It must leave exactly what publishing them one after
another leaves, refuse the whole batch for any entry a single publish would refuse, and
cost a few queries per entry rather than a hundred."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from editorial import workflow
from editorial.models import WorkflowEvent
from glossary import publishing
from glossary.models import (
    Citation,
    Entry,
    EntryRedirect,
    EntryVersion,
    Episode,
    Person,
    PublicRecord,
    Quote,
    SeeAlso,
    Source,
)
from tests.live import make_live_unchecked

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)
CHECKED = datetime.date(2026, 11, 29)


class Rollback(Exception):
    pass


@pytest.fixture
def glossary(
    make_entry: Callable[..., Entry],
    make_source: Callable[..., Source],
    episode: Episode,
    person: Person,
    writer: User,
) -> list[Entry]:
    """Five entries in review, written by the writer, sharing a source, an episode and a
    speaker, each linking to the one before it and one with an alias."""
    shared = make_source(title="Shared source")
    entries: list[Entry] = []
    for n in range(5):
        entry = make_entry(f"Term {n}", created_by=writer, aliases="T-alias" if n == 2 else "")
        Citation.objects.create(entry=entry, source=shared, note="Says so.", checked_on=CHECKED)
        Citation.objects.create(
            entry=entry, source=make_source(), note="Also.", checked_on=CHECKED, order=1
        )
        Quote.objects.create(
            entry=entry, episode=episode, speaker=person, start=60 + n, text=f"Quote {n}."
        )
        if entries:
            SeeAlso.objects.create(entry=entry, target=entries[-1], note="Before it.")
        entries.append(entry)
    with time_machine.travel(NOW, tick=False):
        publishing.record_edits(entries, user=writer, comment="Written.")
        workflow.submit_entries(entries, user=writer)
    return entries


def readers_see() -> dict[str, Any]:
    """Everything publishing writes for readers, by natural keys."""
    return {
        "pages": {
            v.slug: (v.rendered_html, v.api_json, v.published_at, v.is_material)
            for v in EntryVersion.objects.live()
        },
        "entries": list(
            Entry.objects.order_by("slug").values_list(
                "slug",
                "status",
                "live_version",
                "first_published_at",
                "significant_change_at",
                "has_unpublished_changes",
            )
        ),
        "records": sorted(
            PublicRecord.objects.values_list("kind", "object_id", "slug", "data", "version")
        ),
        "redirects": sorted(EntryRedirect.objects.values_list("slug", "entry", "kind")),
        "events": sorted(
            WorkflowEvent.objects.filter(action=WorkflowEvent.Action.PUBLISH).values_list(
                "entry", "version", "actor"
            )
        ),
    }


def test_publishing_together_leaves_what_publishing_one_by_one_leaves(
    glossary: list[Entry], editor: User
) -> None:
    with pytest.raises(Rollback), transaction.atomic(), time_machine.travel(NOW, tick=False):
        for entry in glossary:
            workflow.publish_entry(entry, user=editor)
        one_by_one = readers_see()
        raise Rollback
    with time_machine.travel(NOW, tick=False):
        workflow.publish_entries(glossary, user=editor)
    together = readers_see()
    assert together == one_by_one
    # The batch really linked its entries to each other and made the alias an address.
    linking, linked = glossary[2].slug, glossary[1].slug
    assert f'href="/glossary/{linked}/"' in together["pages"][linking][0]
    assert ("t-alias", glossary[2].pk, "alias") in together["redirects"]
    assert len(together["pages"]) == 5


def test_one_entry_that_fails_its_checks_publishes_none_of_the_batch(
    glossary: list[Entry], editor: User
) -> None:
    Citation.objects.filter(entry=glossary[3]).update(checked_on=None)
    with pytest.raises(workflow.GateFailed, match="never been checked"):
        workflow.publish_entries(glossary, user=editor)
    assert not Entry.objects.published().exists()
    assert not WorkflowEvent.objects.filter(action=WorkflowEvent.Action.PUBLISH).exists()


def test_an_entry_the_publisher_helped_write_stops_the_batch(
    glossary: list[Entry], editor: User
) -> None:
    publishing.record_edit(glossary[1], user=editor, comment="A fix of my own.")
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entries(glossary, user=editor)
    assert not Entry.objects.published().exists()


def test_a_version_saved_after_the_editor_looked_stops_the_batch(
    glossary: list[Entry], editor: User, writer: User
) -> None:
    shown = {e.pk: e.versions.order_by("-number").first().number for e in glossary}
    publishing.record_edit(glossary[4], user=writer, comment="One more change.")
    with pytest.raises(workflow.InvalidTransition, match="saved version 2 after you opened"):
        workflow.publish_entries(glossary, user=editor, expected_versions=shown)
    assert not Entry.objects.published().exists()


def test_an_entry_not_in_review_stops_the_batch(glossary: list[Entry], editor: User) -> None:
    Entry.objects.filter(pk=glossary[0].pk).update(status=Entry.Status.DRAFT)
    with pytest.raises(workflow.InvalidTransition, match="is draft"):
        workflow.publish_entries(glossary, user=editor)
    assert not Entry.objects.published().exists()


def _entries_in_review(
    n: int, make_entry: Callable[..., Entry], source: Source, writer: User
) -> list[Entry]:
    entries = [make_entry(created_by=writer) for _ in range(n)]
    Citation.objects.bulk_create(
        Citation(entry=e, source=source, note="Says so.", checked_on=CHECKED) for e in entries
    )
    publishing.record_edits(entries, user=writer)
    workflow.submit_entries(entries, user=writer)
    return entries


def test_each_more_entry_in_a_batch_costs_a_few_queries(
    make_entry: Callable[..., Entry],
    make_source: Callable[..., Source],
    writer: User,
    editor: User,
) -> None:
    source = make_source()
    small = _entries_in_review(2, make_entry, source, writer)
    large = _entries_in_review(22, make_entry, source, writer)
    with CaptureQueriesContext(connection) as two:
        workflow.publish_entries(small, user=editor)
    with CaptureQueriesContext(connection) as twenty_two:
        workflow.publish_entries(large, user=editor)
    # One entry alone took about a hundred queries before publishing in batches.
    per_entry = (len(twenty_two) - len(two)) / 20
    assert per_entry <= 8, per_entry
    assert Entry.objects.published().count() == 24


def test_saving_and_submitting_many_entries_costs_the_same_queries_as_a_few(
    make_entry: Callable[..., Entry], make_source: Callable[..., Source], writer: User
) -> None:
    source = make_source()
    counts = []
    # The first round also reads what is cached afterwards (permissions, content types).
    for n in (1, 2, 22):
        entries = [make_entry(created_by=writer) for _ in range(n)]
        Citation.objects.bulk_create(
            Citation(entry=e, source=source, note="Says so.", checked_on=CHECKED) for e in entries
        )
        with CaptureQueriesContext(connection) as saved:
            publishing.record_edits(entries, user=writer)
            workflow.submit_entries(entries, user=writer)
        counts.append(len(saved))
    assert counts[1] == counts[2]


def test_a_back_dated_publish_does_not_take_a_record_from_a_newer_live_version(
    make_entry: Callable[..., Entry], make_source: Callable[..., Source], episode: Episode
) -> None:
    person = Person.objects.create(name="Ada Guest", slug="ada-guest")
    newer = make_entry("Newer")
    Quote.objects.create(entry=newer, episode=episode, speaker=person, start=60, text="Hi.")
    older = make_entry("Older")
    Quote.objects.create(entry=older, episode=episode, speaker=person, start=70, text="Yo.")
    ready = publishing.save_version(older)  # names her "Ada Guest"
    Person.objects.filter(pk=person.pk).update(name="Ada Renamed")
    make_live_unchecked(newer, now=NOW)  # names her "Ada Renamed", published at NOW
    make_live_unchecked(older, version=ready, now=NOW - datetime.timedelta(days=1))
    record = PublicRecord.objects.get(kind="person", object_id=person.pk)
    assert record.name == "Ada Renamed"
    assert record.version == newer.versions.get()
