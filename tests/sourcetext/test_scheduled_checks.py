"""Scheduled checks store a page's new text when its fingerprint differs from the confirmed one."""

from __future__ import annotations

import pytest

from editorial.linkcheck import service
from editorial.models import CitationConfirmation, SourceSnapshot, SourceText
from editorial.sourcetext import service as sourcetext
from glossary.models import LinkCheck
from tests.sourcetext.helpers import (
    NVLinkSourceFactory,
    UnconfirmedCitationFactory,
    change_page,
    confirm_in_admin,
    scheduled_check,
    stored_text,
)
from tests.sourcetext.pages import ARTICLE_V1, vendor_page

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


@pytest.fixture
def confirmed(site, make_entry, fact_checker):
    source = NVLinkSourceFactory.create(site=site)
    UnconfirmedCitationFactory.create(entry=make_entry("NVLink"), source=source)
    confirm_in_admin(fact_checker, source.citations.get().entry)
    return source


def test_a_check_of_an_unchanged_page_stores_nothing(site, confirmed) -> None:
    # Only the ad and the clock changed: same fingerprint, same words.
    site.serve("nvlink", vendor_page(ARTICLE_V1, ad="Another ad", clock="11:47"))
    scheduled_check(confirmed)
    assert LinkCheck.objects.filter(source=confirmed).count() == 1
    assert SourceSnapshot.objects.count() == 1  # the confirmation's own


def test_a_check_that_finds_new_words_stores_them_and_keeps_the_confirmed_text(
    site, confirmed
) -> None:
    change_page(site)
    scheduled_check(confirmed)
    confirmed.refresh_from_db()
    assert confirmed.changed_since_confirmed
    newest = SourceSnapshot.objects.filter(source=confirmed).latest()
    assert newest.fingerprint == confirmed.last_fingerprint
    assert "delivers 3.6 TB/s" in stored_text(newest.text)
    kept = CitationConfirmation.objects.get().text
    assert "delivers 3 TB/s" in stored_text(kept)
    assert SourceText.objects.count() == 2


def test_a_page_that_stays_changed_is_read_once_not_at_every_check(site, confirmed) -> None:
    change_page(site)
    scheduled_check(confirmed)
    scheduled_check(confirmed)
    confirmed.refresh_from_db()
    assert SourceSnapshot.objects.filter(source=confirmed).count() == 2  # confirmed + new
    assert service.texts_wanted([confirmed]) == {
        confirmed.url: frozenset({confirmed.confirmed_fingerprint, confirmed.last_fingerprint})
    }


def test_a_never_confirmed_source_keeps_no_text(site, make_source) -> None:
    source = NVLinkSourceFactory.create(site=site)
    scheduled_check(source)
    assert LinkCheck.objects.filter(source=source).get().outcome == "ok"
    assert SourceSnapshot.objects.count() == 0
    assert service.texts_wanted([source]) == {}


def test_checks_without_a_text_store_hold_no_page_bodies(site, confirmed) -> None:
    change_page(site)
    claim = service.claim_sources([confirmed.pk])
    [result] = service.check_claimed(claim)
    assert result.body == ""
    assert SourceSnapshot.objects.count() == 1


def test_a_page_whose_text_cannot_be_read_still_has_its_check_recorded(
    site, confirmed, monkeypatch, caplog
) -> None:
    def broken(body: str, content_type: str) -> str:
        raise RuntimeError("readable text lost alignment with the fingerprint's text")

    monkeypatch.setattr(sourcetext, "readable_text", broken)
    change_page(site)
    scheduled_check(confirmed)
    assert LinkCheck.objects.filter(source=confirmed).count() == 1
    assert SourceSnapshot.objects.count() == 1  # only the confirmation's
    assert f"Could not read the text of source {confirmed.pk}" in caplog.text
