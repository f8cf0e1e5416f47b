"""Confirming a citation ties it to the text of its source as last fetched (issues 13, 14)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from editorial.linkcheck.fingerprint import fingerprint
from editorial.models import CitationConfirmation, SourceSnapshot, SourceText
from editorial.versions import compare
from glossary import publishing
from glossary.document import load
from glossary.models import Citation, Source
from tests.personas import client_for
from tests.sourcetext.helpers import (
    CONFIRMED_ON,
    NVLinkSourceFactory,
    UnconfirmedCitationFactory,
    change_page,
    confirm_in_admin,
    scheduled_check,
    stored_text,
)
from tests.sourcetext.pages import PAGE_V1, PAGE_V2
from tests.workflow.formdata import form_data

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


def test_checked_on_in_the_entry_admin_stores_the_fingerprint_like_mark_confirmed_today(
    site, make_entry, fact_checker
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    source.refresh_from_db()
    assert source.confirmed_fingerprint == fingerprint(PAGE_V1, "text/html")
    assert source.last_fingerprint == source.confirmed_fingerprint
    assert source.confirmed_at is not None
    # A later change to the page is flagged.
    change_page(site)
    scheduled_check(source)
    source.refresh_from_db()
    assert source.changed_since_confirmed


def test_a_confirmation_with_no_stored_text_fetches_the_page_then_and_keeps_its_text(
    site, make_entry, fact_checker
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    assert site.paths().count("/pages/nvlink") == 1
    confirmation = CitationConfirmation.objects.get()
    assert (confirmation.entry, confirmation.source) == (entry, source)
    assert confirmation.confirmed_on == CONFIRMED_ON
    assert confirmation.confirmed_by == fact_checker
    assert confirmation.text is not None
    text = stored_text(confirmation.text)
    assert "delivers 3 TB/s of bandwidth per GPU" in text
    assert "Buy DGX today" not in text  # the ad is not the page's text
    assert SourceSnapshot.objects.get().fingerprint == confirmation.fingerprint


def test_confirming_uses_the_text_as_last_fetched_without_fetching_again(
    site, make_entry, fact_checker
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    change_page(site)
    scheduled_check(source)
    site.reset()
    response = client_for(fact_checker).post(
        reverse("admin:glossary_source_changelist"),
        {"action": "mark_confirmed_today", "_selected_action": [source.pk]},
        follow=True,
    )
    assert "Confirmed 1 source(s) today" in response.content.decode()
    assert site.paths() == []  # the checked text was stored: no fetch
    latest = CitationConfirmation.objects.latest()
    assert "delivers 3.6 TB/s" in stored_text(latest.text)
    source.refresh_from_db()
    assert source.confirmed_fingerprint == fingerprint(PAGE_V2, "text/html")
    assert not source.changed_since_confirmed


def test_many_citations_and_sources_with_the_same_words_share_one_stored_text(
    site, make_entry, fact_checker
) -> None:
    first = NVLinkSourceFactory.create(site=site)
    mirror = NVLinkSourceFactory.create(site=site, page="mirror")
    entries = [make_entry("NVLink"), make_entry("NVLink Switch")]
    for entry in entries:
        UnconfirmedCitationFactory.create(entry=entry, source=first)
    UnconfirmedCitationFactory.create(entry=entries[1], source=mirror)
    client_for(fact_checker).post(
        reverse("admin:glossary_source_changelist"),
        {"action": "mark_confirmed_today", "_selected_action": [first.pk, mirror.pk]},
    )
    assert CitationConfirmation.objects.count() == 3
    assert SourceText.objects.count() == 1
    assert SourceSnapshot.objects.count() == 2  # one history row per source


def test_the_citation_keeps_a_dated_excerpt_of_what_supported_its_note(
    site, make_entry, fact_checker
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    citation = Citation.objects.get()
    assert citation.excerpt_on == CONFIRMED_ON
    assert "The sixth generation of NVLink delivers 3 TB/s of bandwidth per GPU" in (
        citation.excerpt
    )
    assert len(citation.excerpt.split()) <= 50
    # ... and it is part of the version the admin saved, for an editor to review.
    version = entry.versions.order_by("-number").first()
    assert version is not None
    assert version.data["citations"][0]["excerpt"] == citation.excerpt


def test_a_page_that_cannot_be_read_is_confirmed_without_a_text(
    site, make_entry, fact_checker
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    site.serve("nvlink", "<p>Gone.</p>", status=410)
    entry = make_entry("NVLink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    confirmation = CitationConfirmation.objects.get()
    assert confirmation.text is None
    assert Citation.objects.get().excerpt == ""
    assert SourceText.objects.count() == 0


def test_saving_an_unchanged_check_date_confirms_nothing(site, make_entry, fact_checker) -> None:
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink")
    Citation.objects.create(entry=entry, source=source, checked_on=CONFIRMED_ON)
    confirm_in_admin(fact_checker, entry, CONFIRMED_ON)  # unchanged date: not a confirmation
    assert CitationConfirmation.objects.count() == 0
    assert site.paths() == []


def test_the_reviewer_sees_the_excerpt_in_the_version_compare(
    site, make_entry, fact_checker
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    publishing.save_version(entry)
    confirm_in_admin(fact_checker, entry)
    before, after = (load(v.data) for v in entry.versions.order_by("number"))
    [section] = [s for s in compare(before, after) if s.title == "Citations"]
    added = [str(row.right) for row in section.rows if row.kind != "equal"]
    assert any("said on 2026-11-20" in row and "3 TB/s" in row for row in added)


def test_with_fetching_on_confirm_off_nothing_is_fetched_and_no_text_is_tied(
    site, make_entry, fact_checker, settings
) -> None:
    settings.SOURCETEXT_FETCH_ON_CONFIRM = False
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    assert site.paths() == []
    assert CitationConfirmation.objects.get().text is None


APP_SHELL = (
    "<!doctype html><html><head><title>NVLink</title><script src='/app.js'></script></head>"
    "<body><div id='root'></div></body></html>"
)


def post_checked_on(client, entry):
    """The entry's admin form with the citation's "checked on" date set, followed."""
    change = f"/admin/glossary/entry/{entry.pk}/change/"
    data = form_data(client.get(change).content.decode())
    data["citations-0-checked_on"] = CONFIRMED_ON.isoformat()
    return client.post(change, data, follow=True)


def test_confirming_a_page_that_comes_back_empty_warns_the_confirmer_at_once(
    site, make_entry, fact_checker
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    site.serve("nvlink", APP_SHELL)
    entry = make_entry("NVLink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    page = post_checked_on(client_for(fact_checker), entry).content.decode()
    assert "came back empty: it answered, but with no text to read" in page
    assert source.url in page
    assert CitationConfirmation.objects.get().text is None


def test_confirming_a_page_with_text_gives_no_empty_page_warning(
    site, make_entry, fact_checker
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink")
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    page = post_checked_on(client_for(fact_checker), entry).content.decode()
    assert "came back empty" not in page
    assert Citation.objects.get().excerpt


def test_mark_confirmed_today_warns_of_a_page_the_link_checks_found_empty(
    site, make_entry, fact_checker, settings
) -> None:
    # Not fetched at confirmation: the link checks' verdict is what the desk knows.
    settings.SOURCETEXT_FETCH_ON_CONFIRM = False
    source = NVLinkSourceFactory.create(site=site)
    Source.objects.filter(pk=source.pk).update(health=Source.Health.EMPTY, last_outcome="empty")
    UnconfirmedCitationFactory.create(entry=make_entry("NVLink"), source=source)
    response = client_for(fact_checker).post(
        reverse("admin:glossary_source_changelist"),
        {"action": "mark_confirmed_today", "_selected_action": [source.pk]},
        follow=True,
    )
    page = response.content.decode()
    assert "Confirmed 1 source(s) today" in page
    assert "came back empty" in page
