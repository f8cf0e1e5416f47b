"""A hand-typed id in an autocomplete field is shown again with its error, never a 500."""

from __future__ import annotations

import pytest
from django.urls import reverse

from glossary.models import Entry, Episode
from tests.personas import client_for
from tests.workflow.formdata import form_data

pytestmark = pytest.mark.django_db

JUNK = ["abc", "99999999999999999999999", "-3", "1e400", "\u0661\u0662", "7\x00"]


@pytest.mark.parametrize("value", JUNK)
def test_the_entry_form_with_a_junk_source_or_speaker(demo, editor, value):
    entry = Entry.objects.get(slug="interconnect")
    url = reverse("admin:glossary_entry_change", args=[entry.pk])
    client = client_for(editor)
    data = form_data(client.get(url).content.decode())
    data.update({"citations-0-source": value, "quotes-0-speaker": value})
    response = client.post(url, data)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'class="errornote"' in page and 'class="errorlist' in page
    # What the editor typed elsewhere is still in the form.
    assert entry.summary.split()[0] in page


@pytest.mark.parametrize("value", JUNK)
def test_the_episode_form_with_a_junk_sponsor_or_guest(demo, editor, value):
    episode = Episode.objects.get(number=44)
    url = reverse("admin:glossary_episode_change", args=[episode.pk])
    client = client_for(editor)
    page = client.get(url).content.decode()
    data = form_data(page, "episode_form")
    data.update({"appearances-0-person": value})
    if "sponsorships-0-organisation" in data:
        data["sponsorships-0-organisation"] = value
    response = client.post(url, data)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'class="errornote"' in page and 'class="errorlist' in page
