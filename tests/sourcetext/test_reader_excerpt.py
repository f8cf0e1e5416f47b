"""Readers see what a dead or changed source said when we checked it, dated, from published
content only."""

from __future__ import annotations

import pytest
from django.test import Client

from editorial import workflow
from glossary import publishing
from glossary.models import PublicRecord, Source
from tests.sourcetext.helpers import (
    NVLinkSourceFactory,
    UnconfirmedCitationFactory,
    change_page,
    confirm_in_admin,
    scheduled_check,
)
from tests.sourcetext.pages import ARTICLE_V1, vendor_page

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]

EXCERPT = "The sixth generation of NVLink delivers 3 TB/s of bandwidth per GPU"
DATED = '<time datetime="2026-11-20">November 20, 2026</time>'


def publish(entry, writer, editor) -> None:
    publishing.record_edit(entry, user=writer)
    workflow.submit_for_review(entry, user=writer)
    workflow.publish_entry(entry, user=editor)


def reader_page(entry) -> str:
    response = Client().get(entry.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def published(site, make_entry, writer, fact_checker, editor):
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink", slug="nvlink", created_by=writer)
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    publish(entry, writer, editor)
    return entry


def test_a_live_unchanged_source_shows_no_excerpt(published) -> None:
    page = reader_page(published)
    assert "NVLink and NVLink Switch" in page
    assert EXCERPT not in page


def test_a_dead_source_shows_the_dated_excerpt_once_published(published, writer, editor) -> None:
    source = published.citations.get().source
    Source.objects.filter(pk=source.pk).update(citation_status=Source.CitationStatus.DEAD)
    publishing.record_reference_change(
        PublicRecord.Kind.SOURCE, [source.pk], user=writer, what="Source is dead."
    )
    # Recorded, not yet reviewed: readers still see the page as last published.
    assert EXCERPT not in reader_page(published)
    workflow.submit_for_review(published, user=writer)
    workflow.publish_entry(published, user=editor)
    page = reader_page(published)
    assert "What it said when we checked it, " + DATED in page
    assert EXCERPT in page
    passage = page[page.index('class="source-excerpt"') :]
    assert len(passage[: passage.index("</figure>")].split("<blockquote")[1].split()) < 70


def test_a_changed_source_shows_what_it_said_after_the_next_publish(
    site, published, writer, editor
) -> None:
    change_page(site)
    scheduled_check(published.citations.get().source)
    assert EXCERPT not in reader_page(published)
    publish(published, writer, editor)
    page = reader_page(published)
    assert DATED in page
    assert EXCERPT in page
    assert "3.6 TB/s" not in page  # the reader sees the confirmed words, never the new page


def test_a_right_to_left_override_cannot_make_an_excerpt_show_other_words(
    site, make_entry, writer, fact_checker, editor
) -> None:
    """Shown right to left, "STNEMYAP LLA DNES" reads "SEND ALL PAYMENTS" on the page: the
    cited page's invisible direction and zero-width characters never reach readers."""
    hostile = [
        ARTICLE_V1[0],
        "The sixth generation of NVLink delivers 3 TB/s of bandwidth per GPU, "
        "\u202eSTNEMYAP LLA DNES\u202c on the Vera\u200b Rubin\ufeff platform.",
        *ARTICLE_V1[2:],
    ]
    source = Source.objects.create(
        url=site.serve("hostile", vendor_page(hostile)), title="NVLink and NVLink Switch"
    )
    entry = make_entry("NVLink", slug="nvlink", created_by=writer)
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    citation = entry.citations.get()
    assert "STNEMYAP LLA DNES on the Vera Rubin platform" in citation.excerpt
    Source.objects.filter(pk=source.pk).update(citation_status=Source.CitationStatus.DEAD)
    publish(entry, writer, editor)
    page = reader_page(entry)
    assert "STNEMYAP LLA DNES on the Vera Rubin platform" in page  # the excerpt is shown
    for invisible in ("\u202e", "\u202c", "\u200b", "\ufeff"):
        assert invisible not in page
        assert invisible not in citation.excerpt
