"""`manage.py generate_glossary`: a realistic glossary, published the way editors publish."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.models import Count

from demo import generate
from editorial.models import WorkflowEvent
from glossary import stored_pages
from glossary.models import (
    Citation,
    Entry,
    EntryVersion,
    PublicRecord,
    Quote,
    SeeAlso,
    Source,
    StoredPage,
)

pytestmark = pytest.mark.django_db


def snapshot() -> list[tuple[Any, ...]]:
    """What a seed decides, by natural keys (ids and clock times differ between runs)."""
    out = []
    for entry in Entry.objects.order_by("slug"):
        out.append(
            (
                entry.term,
                entry.slug,
                entry.summary,
                entry.aliases,
                sorted(entry.tags.names()),
                list(
                    entry.quotes.order_by("order").values_list(
                        "text", "start", "end", "episode__title", "speaker__name"
                    )
                ),
                list(entry.citations.order_by("order").values_list("source__url", "note")),
                list(entry.see_also.order_by("order").values_list("target__slug", flat=True)),
                list(entry.disclosures.order_by("order").values_list("kind", "text")),
            )
        )
    return out


class Rollback(Exception):
    pass


def run(entries: int, **options: Any) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("generate_glossary", entries=entries, stdout=out, stderr=err, **options)
    return out.getvalue() + err.getvalue()


def test_every_generated_entry_is_published_by_an_editor_who_did_not_write_it(roles: None) -> None:
    run(12, seed=1)
    entries = Entry.objects.all()
    assert entries.count() == 12
    for entry in entries:
        assert entry.status == Entry.Status.PUBLISHED and entry.live_version is not None
        live = entry.live_version
        assert live.published_by.username == generate.EDITOR
        assert set(entry.versions.values_list("created_by__username", flat=True)) == {
            generate.WRITER
        }
        actions = list(
            WorkflowEvent.objects.filter(entry=entry)
            .order_by("at", "pk")
            .values_list("action", "actor__username")
        )
        assert actions == [("submit", generate.WRITER), ("publish", generate.EDITOR)]
        assert live.rendered_html and live.api_json
    # Public records come from the published versions.
    assert PublicRecord.objects.filter(kind="episode").exists()
    assert PublicRecord.objects.filter(kind="source").count() == (
        Source.objects.filter(citations__isnull=False).distinct().count()
    )


def test_the_proportions_are_those_of_a_real_glossary(roles: None) -> None:
    run(40, seed=2)
    per_entry = Entry.objects.annotate(
        q=Count("quotes", distinct=True),
        c=Count("citations", distinct=True),
        s=Count("see_also", distinct=True),
    )
    assert all(3 <= e.q <= 7 and 3 <= e.c <= 5 for e in per_entry)  # type: ignore[attr-defined]
    assert 4 <= Quote.objects.count() / 40 <= 6
    assert 3 <= Citation.objects.count() / 40 <= 5
    assert 2 <= SeeAlso.objects.count() / 40 <= 4
    # Sources are shared: fewer sources than citations, some cited more than once.
    assert Source.objects.annotate(n=Count("citations")).filter(n__gt=1).exists()
    assert Entry.objects.filter(disclosures__kind="sponsorship").exists()
    assert EntryVersion.objects.live().count() == 40


def test_the_same_seed_gives_the_same_glossary(roles: None) -> None:
    with pytest.raises(Rollback), transaction.atomic():
        run(10, seed=7)
        first = snapshot()
        raise Rollback
    run(10, seed=7)
    assert snapshot() == first
    assert len(first) == 10


def test_another_seed_gives_another_glossary(roles: None) -> None:
    with pytest.raises(Rollback), transaction.atomic():
        run(6, seed=1)
        first = snapshot()
        raise Rollback
    run(6, seed=2)
    assert snapshot() != first


def test_it_refuses_a_glossary_that_has_entries_and_adds_nothing(roles: None) -> None:
    run(3, seed=1)
    sources = Source.objects.count()
    with pytest.raises(CommandError, match="already has 3 entries.*--force-append"):
        run(5, seed=1)
    assert Entry.objects.count() == 3 and Source.objects.count() == sources


def test_force_append_adds_beside_existing_entries_with_names_kept_apart(roles: None) -> None:
    run(3, seed=1)
    run(3, seed=1, force_append=True)
    assert Entry.objects.count() == 6
    assert Entry.objects.published().count() == 6
    assert Entry.objects.values("slug").distinct().count() == 6


def test_a_number_of_entries_that_is_not_positive_is_refused(roles: None) -> None:
    with pytest.raises(CommandError, match="--entries must be a positive number"):
        run(0)


def test_it_reports_progress_and_what_it_made(roles: None) -> None:
    output = run(4, seed=1)
    assert "published 4/4 entries" in output
    assert "Published 4 entries" in output


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pages are stored on PostgreSQL only")
# Committed as the command commits it: each batch's pages are collected once it commits.
@pytest.mark.django_db(transaction=True)
def test_every_episodes_persons_and_organisations_first_page_is_stored_once_at_the_end(
    roles: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    store = stored_pages.store_first_pages

    def counted(keys: Any, **options: Any) -> int:
        calls.append(1)
        return store(keys, **options)

    monkeypatch.setattr(stored_pages, "store_first_pages", counted)
    run(12, seed=1)
    assert len(calls) == 1
    records = set(
        PublicRecord.objects.filter(kind__in=["episode", "person", "organisation"]).values_list(
            "kind", "slug"
        )
    )
    assert records and set(StoredPage.objects.values_list("kind", "slug")) == records
    # Each is current: storing finds nothing to store.
    monkeypatch.setattr(stored_pages, "store_first_pages", store)
    assert stored_pages.store_first_pages(sorted(records)) == 0
