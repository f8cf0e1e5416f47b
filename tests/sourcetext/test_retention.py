"""Retention keeps every confirmed text and each source's latest SOURCETEXT_KEEP_LATEST."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from editorial.models import CitationConfirmation, SourceSnapshot, SourceText
from editorial.sourcetext import service as sourcetext
from tests.sourcetext.helpers import (
    NVLinkSourceFactory,
    UnconfirmedCitationFactory,
    confirm_in_admin,
    stored_text,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


def test_old_texts_go_but_the_confirmed_one_and_the_latest_stay(
    site, make_entry, fact_checker, settings
) -> None:
    settings.SOURCETEXT_KEEP_LATEST = 2
    source = NVLinkSourceFactory.create(site=site)
    UnconfirmedCitationFactory.create(entry=make_entry("NVLink"), source=source)
    confirm_in_admin(fact_checker, source.citations.get().entry)
    start = timezone.now()  # after the confirmation's own fetch
    for day in range(1, 6):
        sourcetext.record_text(
            source.pk,
            f"Version {day} says {day} TB/s.",
            f"{day}" * 64,
            start + datetime.timedelta(days=day),
        )
    assert SourceText.objects.count() == 6
    deleted = sourcetext.prune(now=start + datetime.timedelta(days=10))
    assert deleted == 3
    kept = {stored_text(t) for t in SourceText.objects.all()}
    confirmed = stored_text(CitationConfirmation.objects.get().text)
    assert kept == {confirmed, "Version 5 says 5 TB/s.", "Version 4 says 4 TB/s."}
    # The history stays (its text emptied) until it ages out with the check history.
    assert SourceSnapshot.objects.filter(source=source).count() == 6
    assert SourceSnapshot.objects.filter(text__isnull=True).count() == 3
    sourcetext.prune(now=start + datetime.timedelta(days=510))
    assert SourceSnapshot.objects.filter(text__isnull=True).count() == 0


def test_the_setting_defaults_small(settings) -> None:
    assert settings.SOURCETEXT_KEEP_LATEST == 3
