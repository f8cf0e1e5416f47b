"""The NVLink story (a cited vendor page changes what it says after the citation was
confirmed), step by step, on the local changing site."""

from __future__ import annotations

import datetime
from typing import Any

from django.test import Client
from factory.declarations import LazyAttribute, LazyFunction
from factory.django import DjangoModelFactory

from editorial.linkcheck import service
from editorial.models import SourceText
from editorial.sourcetext import service as sourcetext
from glossary.models import Entry, Source
from tests.factories import CitationFactory
from tests.personas import client_for
from tests.sourcetext.pages import PAGE_V1, PAGE_V2, SEED_NOTE
from tests.sourcetext.site import ChangingSite
from tests.workflow.formdata import form_data

CONFIRMED_ON = datetime.date(2026, 11, 20)


def stored_text(stored: SourceText | None) -> str:
    """A stored text, which the test expects to be there."""
    assert stored is not None, "no text was stored"
    return sourcetext.text_of(stored)


class NVLinkSourceFactory(DjangoModelFactory[Source]):
    """The vendor page as first cited, "3 TB/s" per GPU, served by `site` at `page`."""

    class Meta:
        model = Source

    class Params:
        site: ChangingSite | None = None
        page = "nvlink"

    url = LazyAttribute(lambda o: o.site.serve(o.page, PAGE_V1))
    publisher = "NVIDIA"
    title = "NVLink and NVLink Switch"


class UnconfirmedCitationFactory(CitationFactory):
    """A citation with the seed's note that no fact-checker has confirmed yet."""

    note = SEED_NOTE
    checked_on = LazyFunction(lambda: None)


def confirm_in_admin(fact_checker: Any, entry: Entry, day: datetime.date = CONFIRMED_ON) -> Client:
    """A fact-checker sets the citation's "checked on" date on the entry's admin page."""
    client = client_for(fact_checker)
    page = client.get(f"/admin/glossary/entry/{entry.pk}/change/").content.decode()
    data = form_data(page)
    data["citations-0-checked_on"] = day.isoformat()
    response = client.post(f"/admin/glossary/entry/{entry.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return client


def change_page(site: ChangingSite, name: str = "nvlink") -> None:
    """The vendor now says "3.6 TB/s"."""
    site.serve(name, PAGE_V2)


def scheduled_check(*sources: Source) -> None:
    """What a worker's scheduled batch does: claim, check, record, store changed texts."""
    claim = service.claim_sources([s.pk for s in sources])
    service.check_claimed(claim, store_text=sourcetext.record_page)
