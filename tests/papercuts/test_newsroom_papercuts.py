"""Paper cuts a newsroom will hit (issue 34, first half), each through the admin as a user
would meet it: the test client posts the forms the pages render."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.contrib.auth.models import User

from glossary.models import Entry, Episode
from tests.personas import client_for

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

