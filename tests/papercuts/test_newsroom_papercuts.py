"""Paper cuts a newsroom will hit (issue 34, first half), each through the admin as a user
would meet it: the test client posts the forms the pages render."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.test import Client

from glossary.models import Disclosure, Entry, Episode, EpisodeReference, Person, Quote
from tests.personas import client_for
from tests.workflow.formdata import form_data

pytestmark = pytest.mark.django_db


# --- Help text shows its tags as text --------------------------------------------------------


def test_the_body_help_text_shows_its_tag_as_text_not_as_bold(
    ready_entry: Entry, writer: User
) -> None:
    html = client_for(writer).get(f"/admin/glossary/entry/{ready_entry.pk}/change/").content
    assert b"a tag such as &lt;b&gt; shows on the page" in html
    assert b"such as <b>" not in html


def test_the_episode_guid_help_text_names_the_guid_tag(episode: Episode, editor: User) -> None:
    html = client_for(editor).get(f"/admin/glossary/episode/{episode.pk}/change/").content
    assert b"The episode&#x27;s &lt;guid&gt; in the show" in html


def test_no_help_text_carries_an_unescaped_tag() -> None:
    # The admin renders help text as HTML: a literal tag there is markup, not words.
    tag = re.compile(r"<[a-zA-Z/]")
    raw = [
        f"{model._meta.label}.{field.name}"
        for app in ("glossary", "editorial")
        for model in apps.get_app_config(app).get_models()
        for field in model._meta.get_fields()
        if tag.search(str(getattr(field, "help_text", "")))
    ]
    assert raw == []



# --- An episode cannot end before what is cited in it ------------------------------------


def episode_form(client: Client, episode: Episode) -> dict[str, Any]:
    page = client.get(f"/admin/glossary/episode/{episode.pk}/change/")
    return form_data(page.content.decode(), "episode_form")


def test_shortening_an_episode_below_a_quote_is_refused_naming_the_quote_and_its_time(
    ready_entry: Entry, episode: Episode, person: Person, editor: User
) -> None:
    Quote.objects.create(
        entry=ready_entry, episode=episode, speaker=person, start=3300, end=3320, text="Late."
    )
    client = client_for(editor)
    data = episode_form(client, episode)
    data.update(duration="50:00", title="Seven, renamed")
    response = client.post(f"/admin/glossary/episode/{episode.pk}/change/", data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["duration"]
    assert errors == [
        "Episode 7 cannot end at 50:00: the quote “Late.” at 55:00–55:20 in “Interconnect” "
        "would be past its end. Correct those times first, or keep the longer duration."
    ]
    html = response.content.decode()
    assert 'value="50:00"' in html and 'value="Seven, renamed"' in html  # nothing typed lost
    episode.refresh_from_db()
    assert (episode.duration, episode.title) == (3600, "Seven")


def test_shortening_names_every_reference_and_disclosure_left_past_the_end(
    ready_entry: Entry, episode: Episode, editor: User
) -> None:
    EpisodeReference.objects.create(entry=ready_entry, episode=episode, at=3000, text="Says.")
    Disclosure.objects.create(
        entry=ready_entry, kind=Disclosure.Kind.OTHER, episode=episode, at=2900, text="Paid."
    )
    client = client_for(editor)
    data = episode_form(client, episode)
    data.update(duration="45:00")
    response = client.post(f"/admin/glossary/episode/{episode.pk}/change/", data)
    [error] = response.context["adminform"].form.errors["duration"]
    assert "the reference at 50:00 in “Interconnect”" in error
    assert "the disclosure at 48:20 in “Interconnect”" in error


def test_an_episode_can_be_shortened_to_the_end_of_its_last_quote(
    ready_entry: Entry, episode: Episode, person: Person, editor: User
) -> None:
    Quote.objects.create(
        entry=ready_entry, episode=episode, speaker=person, start=3300, end=3320, text="Late."
    )
    client = client_for(editor)
    data = episode_form(client, episode)
    data.update(duration="55:20")
    response = client.post(f"/admin/glossary/episode/{episode.pk}/change/", data)
    assert response.status_code == 302
    episode.refresh_from_db()
    assert episode.duration == 3320
